import Fixtures
import Foundation
import Harness
import Hemocytometer
import Imaging
import JSON
import Vision

/// What counting one image produced, for `cellqa count` to print in the order the images were
/// given.
struct CountedImage: Sendable {
    /// Lines for stderr, without the "cellqa count: " prefix.
    var messages: [String] = []
    /// Text for stdout (table mode), each piece ending in a newline.
    var lines: [String] = []
    /// The image's object (JSON mode).
    var json: JSONValue?
    /// Why the image could not be counted, as on stderr (it is then in no table row and no
    /// `images` entry).
    var error: String?
    /// Problems that make the command exit 2: an unreadable image, an overlay or draft not written.
    var failures = 0
}

/// An overlay or draft label not written: the whole message, led by the file or directory
/// that stopped it.
struct CountWriteFailure: Error {
    let message: String
}

/// One image through `cellqa count`: decode, pipeline, overlay, draft label and the printed
/// result. Safe to call from several threads: each call touches only its image's files.
struct ImageCounter: Sendable {
    let pipeline: Pipeline
    let config: PipelineConfig
    let outputs: CountOutputs
    let probes: [CandidateTrace.Probe]
    let reach: Double
    /// `--seed-target` and `--seed-volume`.
    let seeding: (target: Double, volumeML: Double)?
    let json: Bool

    static let tableHeader = tableRow(["image", "total", "live", "dead", "viab%", "cells/mL", "um/px", "ms", "flags"])

    /// Counts the `index`th image given, at `path`.
    func count(_ path: String, index: Int) -> CountedImage {
        var out = CountedImage()
        // An image that cannot be read, or a stage that throws, fails this image only; the
        // others are still counted.
        let image: Image, result: PipelineResult, trace: CandidateTrace?
        do {
            image = try Image.decode(file: path)
            (result, trace) = probes.isEmpty ? (try pipeline.run(image), nil)
                : try pipeline.explain(image, probes: probes, reach: reach)
        } catch {
            let message = ImageCounter.message(error, file: path)
            out.messages.append(message)
            out.error = message
            out.failures += 1
            return out
        }
        // A probe off this image is never near a candidate; its trace would read "lost at: detector".
        for probe in probes where !(probe.x >= 0 && probe.x < Double(image.width) && probe.y >= 0 && probe.y < Double(image.height)) {
            out.messages.append("note: \(path): --explain \(String(format: "%g,%g", probe.x, probe.y)) lies outside "
                                + "the image (\(image.width)x\(image.height))")
        }
        // A viewer shows such an image turned, the overlay and coordinates as stored: say so
        // before a person compares the two.
        if let turn = viewerTurn(ofExifOrientation: image.exifOrientation) {
            out.messages.append("note: \(path): \(turn); coordinates, overlays and draft labels are of the pixels as stored")
        }
        let (seedingJSON, seedingText) = seedingPlan(for: result)
        write(outputs.overlays[index], "overlay", of: path, into: &out) { (target) throws(CountWriteFailure) in
            do { try drawOverlay(image, result: result).writePNG(to: target) } catch {
                throw CountWriteFailure(message: ImageCounter.message(error, file: target))
            }
        }
        write(outputs.drafts[index], "draft label", of: path, into: &out) { (target) throws(CountWriteFailure) in
            try ImageCounter.writeDraft(draftLabel(for: result, imageName: (path as NSString).lastPathComponent,
                                                   configHash: config.configHash, dilution: config.dilution), to: target)
        }
        if json {
            var object = JSONObject()
            object.set("image", .string(path))
            object.set("configHash", .string(config.configHash))
            if case .object(let body) = result.jsonValue { for (k, v) in body { object.set(k, v) } }
            if let seedingJSON { object.set("seeding", seedingJSON) }
            if let trace { object.set("explain", trace.jsonValue) }
            out.json = .object(object)
        } else {
            let c = result.count
            let totalMs = result.timings.reduce(0) { $0 + $1.wallSeconds } * 1000
            out.lines.append(ImageCounter.tableRow([
                (path as NSString).lastPathComponent, "\(c.total)", "\(c.live)", "\(c.dead)",
                c.viabilityPercent.map { String(format: "%.1f", $0) } ?? "-",
                c.concentrationPerML.map { String(format: "%.3g", $0) } ?? "-",
                result.umPerPixel.map { String(format: "%.3f", $0) } ?? "-",
                String(format: "%.1f", totalMs), result.flags.joined(separator: ","),
            ]) + "\n")
            if let seedingText { out.lines.append(seedingText + "\n") }
            if let trace { out.lines.append(trace.text) }
        }
        return out
    }

    /// One of the image's files written to its planned target by `write`, or, when the plan
    /// refused it or the write fails, a message naming the file and a failure.
    private func write(_ target: CountOutputs.Target?, _ what: String, of path: String, into out: inout CountedImage,
                       _ write: (String) throws(CountWriteFailure) -> Void) {
        switch target {
        case .write(let file)?:
            do { try write(file) } catch {
                out.messages.append(error.message)
                out.failures += 1
            }
        case .refused(let file, let reason)?:
            out.messages.append("\(path): \(what) not written: \(file) \(reason)")
            out.failures += 1
        case nil:
            break
        }
    }

    /// The seeding plan from the image's concentration, as JSON and as a line; nils without
    /// `--seed-target`.
    private func seedingPlan(for result: PipelineResult) -> (JSONValue?, String?) {
        guard let (target, volume) = seeding else { return (nil, nil) }
        func failed(_ reason: String) -> (JSONValue?, String?) {
            (.object(["error": .string(reason)]), "  seeding: " + reason)
        }
        guard let concentration = result.count.concentrationPerML else {
            return failed("no concentration (no grid, or no counted square fully in view)")
        }
        guard concentration > 0 else { return failed("no cells counted, so no volume of this suspension holds the target") }
        do {
            let plan = try Hemocytometer.seedingPlan(concentrationPerML: concentration, targetCells: target, finalVolumeML: volume)
            return (.object(["suspensionML": .double(plan.suspensionVolumeML), "mediumML": .double(plan.mediumVolumeML)]),
                    String(format: "  seeding: %.4f mL suspension + %.4f mL medium", plan.suspensionVolumeML, plan.mediumVolumeML))
        } catch let error as SeedingError {
            return failed(error.reason)
        } catch {
            return failed("\(error)")
        }
    }

    /// Writes `label` to `path`; a file already there is left as it is and reported (it may be
    /// a person's corrected label).
    private static func writeDraft(_ label: Label, to path: String) throws(CountWriteFailure) {
        do {
            try writeNewFile((label.jsonValue.serialized(pretty: true) + "\n").utf8, to: path)
        } catch {
            throw CountWriteFailure(message: error.message(exists: "exists; a draft never overwrites a label (move it away, "
                                                            + "or choose another --draft-labels directory)"))
        }
    }

    /// The error's message led by `path`, unless it names the file already (image errors do).
    private static func message(_ error: Error, file path: String) -> String {
        let text = "\(error)"
        return text.hasPrefix(path + ":") ? text : "\(path): \(text)"
    }

    /// The table's columns, each padded to its width (a longer value keeps one space after
    /// it); the last, the flags, as it is.
    private static func tableRow(_ fields: [String]) -> String {
        let widths = [28, 7, 7, 7, 8, 12, 8, 8]
        return zip(fields, widths).map { text, width in
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }.joined() + fields.dropFirst(widths.count).joined()
    }
}
