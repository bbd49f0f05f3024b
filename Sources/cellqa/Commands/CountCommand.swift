import ArgumentParser
import Fixtures
import Foundation
import Harness
import Hemocytometer
import Imaging
import JSON
import Vision

/// `cellqa count`: run the counting pipeline on images and print what it found.
struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count live and dead cells in hemocytometer images (table, or JSON with --json).",
        discussion: """
            Concentration needs a visible grid (cells/mL = mean per large square x 10^4 x dilution). \
            --dilution sets the sample's dilution without a configuration file. --seed-target with \
            --seed-volume prints how much suspension to seed for a target cell number, from the \
            image's concentration. --draft-labels writes what was found as labels-v1 files, tagged \
            "draft", for a person to correct: a new dataset's labels start from the detections.
            """
    )

    @Argument(help: ArgumentHelp("Images (PNG or JPEG).", valueName: "IMAGE"))
    var images: [String]

    @Option(name: .long, help: ArgumentHelp("Pipeline configuration JSON (default: built-in defaults).", valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Write a PNG with detections and grid drawn; with several images, '-<stem>' is added before the extension.", valueName: "OUT.png"))
    var overlay: String?

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Dilution factor of the counted sample (concentration is multiplied by it); overrides the configuration's `dilution` (default 1).", valueName: "FACTOR"))
    var dilution: Double?

    @Option(name: .long, help: ArgumentHelp("Seeding: number of cells wanted in the final volume.", valueName: "CELLS"))
    var seedTarget: Double?

    @Option(name: .long, help: ArgumentHelp("Seeding: final volume in mL.", valueName: "ML"))
    var seedVolume: Double?

    @Option(name: .long, help: ArgumentHelp("Write each image's detections as a labels-v1 label, DIR/<stem>.json, tagged \"draft\" (created if missing; an existing file is never overwritten: that image fails).", valueName: "DIR"))
    var draftLabels: String?

    // Unconditional: a centre may lie just outside the image ("-1.5,40").
    @Option(name: .long, parsing: .unconditionalSingleValue, help: ArgumentHelp("Trace the candidates near this point (image pixels) through every step: where a missed cell was lost, where a false detection came from. Repeatable.", valueName: "X,Y"))
    var explain: [ProbePoint] = []

    @Option(name: .long, help: ArgumentHelp("With --explain: how far from the point a candidate counts as near it, image pixels.", valueName: "PX"))
    var reach: Double = 6

    func validate() throws {
        guard !images.isEmpty else { throw ValidationError("give at least one image") }
        guard (seedTarget == nil) == (seedVolume == nil) else {
            throw ValidationError("--seed-target and --seed-volume go together")
        }
        guard reach > 0, reach.isFinite else { throw ValidationError("--reach must be a positive number of pixels, got \(reach)") }
        let range = PipelineConfig.dilutionRange
        if let dilution, !range.contains(dilution) {
            throw ValidationError("--dilution must be a factor from \(String(format: "%g", range.lowerBound)) to \(String(format: "%g", range.upperBound)) "
                                  + "(2 for a 1:1 mix with trypan blue), got \(dilution)")
        }
    }

    func run() throws {
        var pipelineConfig = PipelineConfig()
        if let config {
            do { pipelineConfig = try PipelineConfig.load(path: config) } catch {
                printError("cellqa count: error: \(error)")
                throw ExitCode(2)
            }
        }
        if let dilution { pipelineConfig.dilution = dilution }
        let pipeline = Pipeline(config: pipelineConfig)
        var failures = 0
        var jsonResults: [JSONValue] = []
        if !json {
            print(pad("image", 28) + pad("total", 7) + pad("live", 7) + pad("dead", 7) + pad("viab%", 8)
                  + pad("cells/mL", 12) + pad("um/px", 8) + pad("ms", 8) + "flags")
        }
        let probes = explain.map { CandidateTrace.Probe(x: $0.x, y: $0.y) }
        for path in images {
            // An image that cannot be read, or a stage that throws, fails this image only; the
            // others are still counted.
            let image: Image, result: PipelineResult, trace: CandidateTrace?
            do {
                image = try Image.decode(file: path)
                (result, trace) = probes.isEmpty ? (try pipeline.run(image), nil)
                    : try pipeline.explain(image, probes: probes, reach: reach)
            } catch {
                printError("cellqa count: \(message(error, file: path))")
                failures += 1
                continue
            }
            // A viewer shows such an image turned, the overlay and coordinates as stored: say so
            // before a person compares the two.
            if let turn = viewerTurn(ofExifOrientation: image.exifOrientation) {
                printError("cellqa count: note: \(path): \(turn); coordinates, overlays and draft labels are of the pixels as stored")
            }
            let totalMs = result.timings.reduce(0) { $0 + $1.wallSeconds } * 1000
            var seeding: JSONValue = .null
            var seedingText: String?
            if let target = seedTarget, let volume = seedVolume {
                if let concentration = result.count.concentrationPerML {
                    do {
                        let plan = try seedingPlan(concentrationPerML: concentration, targetCells: target, finalVolumeML: volume)
                        seeding = .object(["suspensionML": .double(plan.suspensionVolumeML), "mediumML": .double(plan.mediumVolumeML)])
                        seedingText = String(format: "  seeding: %.4f mL suspension + %.4f mL medium", plan.suspensionVolumeML, plan.mediumVolumeML)
                    } catch {
                        seedingText = "  seeding: \(error)"
                        seeding = .object(["error": .string("\(error)")])
                    }
                } else {
                    seedingText = "  seeding: no concentration (no grid, or no counted square fully in view)"
                    seeding = .object(["error": .string("no concentration (no grid, or no counted square fully in view)")])
                }
            }
            if let overlay {
                let out = images.count > 1 ? overlayPath(overlay, for: path) : overlay
                do { try drawOverlay(image, result: result).writePNG(to: out) } catch {
                    printError("cellqa count: \(message(error, file: out))")
                    failures += 1
                }
            }
            if let draftLabels {
                let label = draftLabel(for: result, imageName: (path as NSString).lastPathComponent,
                                       configHash: pipelineConfig.configHash, dilution: pipelineConfig.dilution)
                do { try writeDraft(label, for: path, into: draftLabels) } catch {
                    printError("cellqa count: \(error)")
                    failures += 1
                }
            }
            if json {
                var object = JSONObject()
                object.set("image", .string(path))
                object.set("configHash", .string(pipelineConfig.configHash))
                if case .object(let body) = result.jsonValue { for (k, v) in body { object.set(k, v) } }
                if seedTarget != nil { object.set("seeding", seeding) }
                if let trace { object.set("explain", trace.jsonValue) }
                jsonResults.append(.object(object))
            } else {
                let c = result.count
                print(pad((path as NSString).lastPathComponent, 28) + pad("\(c.total)", 7) + pad("\(c.live)", 7)
                      + pad("\(c.dead)", 7) + pad(c.viabilityPercent.map { String(format: "%.1f", $0) } ?? "-", 8)
                      + pad(c.concentrationPerML.map { String(format: "%.3g", $0) } ?? "-", 12)
                      + pad(result.umPerPixel.map { String(format: "%.3f", $0) } ?? "-", 8)
                      + pad(String(format: "%.1f", totalMs), 8) + result.flags.joined(separator: ","))
                if let seedingText { print(seedingText) }
                if let trace { print(trace.text, terminator: "") }
            }
        }
        if json {
            let value: JSONValue = .object(["configHash": .string(pipelineConfig.configHash), "images": .array(jsonResults)])
            print(value.serialized(pretty: true))
        }
        if failures > 0 { throw ExitCode(2) }
    }

    /// Writes `label` as `directory/<stem of image>.json`, creating the directory; a file
    /// already there is left as it is and reported (it may be a person's corrected label).
    private func writeDraft(_ label: Label, for image: String, into directory: String) throws(DraftLabelError) {
        let stem = ((image as NSString).lastPathComponent as NSString).deletingPathExtension
        let out = (directory as NSString).appendingPathComponent(stem + ".json")
        do {
            try writeNewFile((label.jsonValue.serialized(pretty: true) + "\n").utf8, to: out)
        } catch {
            switch error {
            case .exists(let path):
                throw DraftLabelError(path: path, reason: "exists; a draft never overwrites a label (move it away, or choose "
                                      + "another --draft-labels directory)")
            case let .directory(path, reason):
                throw DraftLabelError(path: path, reason: "cannot create the directory (\(reason))")
            case let .unwritable(path, reason):
                throw DraftLabelError(path: path, reason: "cannot be written (\(reason))")
            }
        }
    }

    /// The error's message led by `path`, unless it names the file already (image errors do).
    private func message(_ error: Error, file path: String) -> String {
        let text = "\(error)"
        return text.hasPrefix(path + ":") ? text : "\(path): \(text)"
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// OUT.png + image "dir/a.jpg" -> OUT-a.png
    private func overlayPath(_ base: String, for image: String) -> String {
        let stem = ((image as NSString).lastPathComponent as NSString).deletingPathExtension
        let ext = (base as NSString).pathExtension
        let root = (base as NSString).deletingPathExtension
        return root + "-" + stem + "." + (ext.isEmpty ? "png" : ext)
    }
}

/// `--explain X,Y`: a point in image pixels.
struct ProbePoint: ExpressibleByArgument {
    let x: Double
    let y: Double

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(parts[0].trimmingCharacters(in: .whitespaces)),
              let y = Double(parts[1].trimmingCharacters(in: .whitespaces)), x.isFinite, y.isFinite else { return nil }
        self.x = x
        self.y = y
    }

    static var defaultValueDescription: String { "X,Y" }
}

/// A draft label that could not be written: the file and why.
struct DraftLabelError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "\(path): \(reason)" }
}
