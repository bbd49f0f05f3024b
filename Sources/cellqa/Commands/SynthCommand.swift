import ArgumentParser
import Fixtures
import Foundation
import Harness
import Imaging
import Synchronization
import Synth

struct SynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth",
        abstract: "Generate synthetic counting-chamber fixtures with exact labels-v1 labels.",
        discussion: """
            Writes DIR/<name>.png|jpg and DIR/<name>.json (or the labels under --labels). \
            Names are <preset>-s<seed>-<index>. The same options always give byte-identical files. \
            A file already there with other contents (a label corrected by hand, another \
            generator's image) is left as it is and the run stops, unless --overwrite is given; \
            one with the same contents is left as it is. \
            Presets: \(SynthPreset.allCases.map(\.rawValue).joined(separator: ", ")).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable, Sendable {
        case png
        case jpeg
    }

    @Option(name: .long, help: ArgumentHelp("Directory for the images (created if missing).", valueName: "DIR"))
    var out: String

    @Option(name: .long, help: ArgumentHelp("Directory for the label files; default: beside the images.", valueName: "DIR"))
    var labels: String?

    @Option(name: .long, help: "Number of fixtures to write.")
    var count: Int = 1

    @Option(name: .long, help: "Random seed (unsigned 64-bit); one seed gives one reproducible batch.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "Index of the first fixture in the batch (to regenerate one fixture of a batch).")
    var firstIndex: Int = 0

    @Option(name: .long, help: ArgumentHelp(
        "Conditions to draw from: \(SynthPreset.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "NAME"))
    var preset: String = SynthPreset.standard.rawValue

    @Option(name: .long, help: "Image file format: png or jpeg (jpeg adds the tag \"jpeg\").")
    var format: Format = .png

    @Option(name: .long, help: "JPEG quality 1...100 (ignored for PNG).")
    var quality: Int = 90

    @Option(name: .long, help: "Image width in pixels (cells keep their size; the field of view changes).")
    var width: Int = 1920

    @Option(name: .long, help: "Image height in pixels.")
    var height: Int = 1080

    @Flag(name: .long, help: ArgumentHelp(
        "Draw the same pictures without the chamber's ruling (views in which no line shows): named "
            + "<preset>-unruled-s<seed>-<index>, tagged \"no-ruling\", labelled without a calibration."))
    var noRuling = false

    @Flag(name: .long, help: "Replace files already there whose contents differ from what these options generate.")
    var overwrite = false

    @Option(name: .long, help: "Fixtures generated at once; the output is the same for any value. Default: the number of cores.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard count >= 0 else { throw ValidationError("--count must be 0 or more, got \(count)") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be 1 or more, got \(jobs)") }
        guard firstIndex <= Int.max - count else { throw ValidationError("--first-index + --count overflows") }
        guard firstIndex >= 0 else { throw ValidationError("--first-index must be 0 or more, got \(firstIndex)") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1...100, got \(quality)") }
        do {
            _ = try SynthPreset(name: preset)
            _ = try SynthGenerator(preset: .standard, seed: seed, width: width, height: height)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let generator = try SynthGenerator(preset: SynthPreset(name: preset), seed: seed, width: width, height: height,
                                           ruled: !noRuling)
        let labelDirectory = labels ?? out
        for directory in [out, labelDirectory] {
            if let problem = createDirectoryProblem(directory) { throw SynthWriteError(problem) }
        }
        let writer = FixtureWriter(generator: generator, imageDirectory: out, labelDirectory: labelDirectory,
                                   format: format, quality: quality, overwrite: overwrite)
        // Lines in index order whatever the scheduling. After a fixture fails (a full disk, an
        // unwritable directory) no further fixture starts; the ones before it are finished
        // and printed, then the first failure in index order is thrown.
        let stop = StopFlag()
        let first = firstIndex
        var failure: (any Error)?
        forEachInOrder(count: count, jobs: jobs, work: { offset -> Result<String, any Error>? in
            guard !stop.isSet else { return nil }
            let outcome = Result { try writer.write(index: first + offset) }
            if case .failure = outcome { stop.set() }
            return outcome
        }) { _, outcome in
            guard failure == nil, let outcome else { return }
            switch outcome {
            case .success(let line): print(line)
            case .failure(let error): failure = error
            }
        }
        if let failure { throw failure }
    }
}

/// Set once, read from any thread: tells workers to start nothing more.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}

/// Generates one fixture and writes its image and label; safe to call from several threads.
private struct FixtureWriter: Sendable {
    let generator: SynthGenerator
    let imageDirectory: String
    let labelDirectory: String
    let format: SynthCommand.Format
    let quality: Int
    let overwrite: Bool

    /// Returns the line to print for this fixture.
    func write(index: Int) throws -> String {
        var fixture = generator.make(index: index)
        let imageName = "\(fixture.name).\(format == .png ? "png" : "jpg")"
        fixture.label.image = imageName
        if format == .jpeg { fixture.label.tags.append("jpeg") }
        let imagePath = (imageDirectory as NSString).appendingPathComponent(imageName)
        let image = switch format {
        case .png: try fixture.image.pngData()
        case .jpeg: try fixture.image.jpegData(quality: quality)
        }
        let labelPath = (labelDirectory as NSString).appendingPathComponent("\(fixture.name).json")
        let label = Array((fixture.label.jsonValue.serialized(pretty: true) + "\n").utf8)
        // Both files are checked before either is written: a hand-corrected label stops the
        // fixture before its image is replaced.
        let files = [(image, imagePath), (label, labelPath)]
        let placements = try files.map { try placement(of: $0.0, at: $0.1) }
        for ((bytes, path), placement) in zip(files, placements) {
            switch placement {
            case .unchanged: continue
            case .replace:
                do throws(ReportWriteError) { try writeAtomically(bytes, to: path) } catch {
                    throw SynthWriteError("\(path): cannot be written (\(error.reason))")
                }
            case .new:
                do throws(NewFileError) { try writeNewFile(bytes, to: path) } catch {
                    throw SynthWriteError(error.message(exists: "appeared while it was written; left as it is"))
                }
            }
        }
        return "\(imagePath): \(fixture.label.cells.count) cells (\(fixture.label.liveCount) live, \(fixture.label.deadCount) dead), "
            + "tags \(fixture.label.tags.joined(separator: ","))"
    }

    /// How a fixture file goes to its path.
    private enum Placement { case new, unchanged, replace }

    /// How `bytes` go to `path`: a new file, none when the file there already holds them, or
    /// a replacement (`--overwrite`). Throws for a file with other contents without
    /// `--overwrite`, and for something there that is not a file.
    private func placement(of bytes: [UInt8], at path: String) throws(SynthWriteError) -> Placement {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .new }
        guard status.st_mode & S_IFMT == S_IFREG else { throw SynthWriteError("\(path): exists and is not a file; left as it is") }
        if let existing = FileManager.default.contents(atPath: path), existing.elementsEqual(bytes) { return .unchanged }
        guard overwrite else {
            throw SynthWriteError("\(path): exists with other contents (a label corrected by hand, or another generator's "
                                  + "file?); left as it is: pass --overwrite to replace it")
        }
        return .replace
    }
}

/// A fixture file `synth` did not write: the message, led by its path.
struct SynthWriteError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
