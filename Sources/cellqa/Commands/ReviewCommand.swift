import ArgumentParser
import Fixtures
import Foundation
import Harness
import Imaging

/// `cellqa review`: a finished run's verdicts drawn on its images, worst fixtures first.
struct ReviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Draw a run's matched, false and missed cells on its images (from the run's reports).",
        discussion: """
            Reads REPORT (a `cellqa run --out` directory): report.json for the images (a \
            relative path from the directory the run was in; under --dataset DIR instead, when \
            the dataset has moved) and \
            detections.csv for the verdicts. Writes one PNG per fixture into --out, at the \
            fixture's relative path: matched detections thin green, false detections thick red, \
            missed cells thick yellow just outside the label's radius. Fixtures with the most \
            false plus missed cells come first; --worst limits how many are drawn. Nothing is \
            run again: the overlays show exactly what the report scored.
            """
    )

    @Argument(help: ArgumentHelp("A `cellqa run --out` directory.", valueName: "REPORT"))
    var report: String

    @Option(name: .long, help: ArgumentHelp("Directory for the overlays (created if missing; not inside the run's dataset or labels root; an existing file is never overwritten).", valueName: "DIR"))
    var out: String

    @Option(name: .long, help: ArgumentHelp("Draw at most this many fixtures, those with the most false and missed cells (0: every fixture with one).", valueName: "N"))
    var worst: Int = 20

    @Option(name: .long, help: ArgumentHelp("Only fixtures whose relative path matches this glob (*, **, ?, [...]).", valueName: "GLOB"))
    var filter: String?

    @Flag(name: .long, help: "Also draw fixtures without a false or missed cell.")
    var all = false

    @Option(name: .long, help: ArgumentHelp("The run's dataset root, when it is elsewhere than the report says (a report made on another machine, or a run given a relative root from another directory): each image is read at its path relative to the root, under DIR.", valueName: "DIR"))
    var dataset: String?

    @Option(name: .long, help: ArgumentHelp("Overlays drawn at once (each holds its image); the output is the same, in the same order, for any value. Default: the number of cores.", valueName: "N"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard worst >= 0 else { throw ValidationError("--worst must be 0 or more, got \(worst)") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be 1 or more, got \(jobs)") }
        if let filter {
            do { _ = try GlobPattern(filter) } catch { throw ValidationError("--filter: \(error)") }
        }
    }

    func run() throws {
        let reportJSON = (report as NSString).appendingPathComponent(ReportFile.json)
        let detectionsCSV = (report as NSString).appendingPathComponent(ReportFile.detections)
        var run: ReviewedRun, marks: [ReviewMark]
        do {
            run = try ReviewedRun.load(reportJSON: reportJSON)
            marks = try reviewMarks(file: detectionsCSV)
        } catch {
            printError("cellqa review: \(error)")
            throw ExitCode(2)
        }
        if let dataset {
            run.datasetRoot = dataset
            for i in run.fixtures.indices {
                run.fixtures[i].image = (dataset as NSString).appendingPathComponent(run.fixtures[i].path)
            }
        } else {
            run.resolveAgainstRunDirectory()
        }
        if let conflict = ReportDirectory.conflict(out: out, inputs: [run.datasetRoot] + [run.labelsRoot].compactMap { $0 }) {
            printError("cellqa review: \(conflict); overlays there would be read as images by the next run. Choose another --out")
            throw ExitCode(2)
        }
        // The next run into that report directory would refuse to replace it: it would hold
        // files cellqa's reports do not.
        if ReportDirectory.isWithin(out, report) {
            printError("cellqa review: --out \(out) is inside the run's report directory \(report); the next `cellqa run --out` "
                       + "there would refuse to replace it, as it would hold files the reports do not. Choose another --out")
            throw ExitCode(2)
        }
        // Nor another run's report directory, for the same reason.
        if let refusal = outputRefusal(out, datasetRoots: [], allowInDataset: true) {
            printError("cellqa review: " + refusal)
            throw ExitCode(2)
        }
        let pattern = try filter.map { try GlobPattern($0) }
        var chosen = run.fixtures.filter { f in (all || f.fp + f.fn > 0) && (pattern?.matches(f.path) ?? true) }
        // Worst first; equal ones in path order, so the choice does not depend on the run's order.
        chosen.sort { ($0.fp + $0.fn, $1.path) > ($1.fp + $1.fn, $0.path) }
        if worst > 0 { chosen = Array(chosen.prefix(worst)) }
        let byFixture = Dictionary(grouping: marks, by: \.fixture)
        // "a.jpg" and "a.png" would both draw "a.png": the first in the order above keeps it.
        var drawnBy: [String: String] = [:]
        let targets: [(path: String, claimedBy: String?)] = chosen.map { f in
            let target = (out as NSString).appendingPathComponent((f.path as NSString).deletingPathExtension + ".png")
            defer { drawnBy[target] = drawnBy[target] ?? f.path }
            return (target, drawnBy[target])
        }
        let fixtures = chosen
        var failures = 0
        forEachInOrder(count: fixtures.count, jobs: jobs, work: { i in
            ReviewCommand.draw(fixtures[i], marks: byFixture[fixtures[i].path] ?? [], to: targets[i].path, claimedBy: targets[i].claimedBy)
        }) { _, drawn in
            switch drawn {
            case .success(let line): print(line)
            case .failure(let failure):
                printError("cellqa review: " + failure.message)
                failures += 1
            }
        }
        if chosen.isEmpty { print("no fixture to draw" + (all ? "" : " (none has a false or missed cell; --all draws them anyway)")) }
        if failures > 0 { throw ExitCode(2) }
    }

    /// Draws one fixture's overlay to `target`: the line to print, or why it was not written.
    /// `claimedBy` is the fixture given earlier that draws the same file.
    private static func draw(_ f: ReviewedRun.Fixture, marks: [ReviewMark], to target: String,
                             claimedBy: String?) -> Result<String, ReviewFailure> {
        if let first = claimedBy {
            return .failure(ReviewFailure("\(target): is also the overlay of \(first), drawn first (images of the same name "
                                          + "with different extensions; review them with --filter, into separate --out directories)"))
        }
        // Anything already there (a previous review's overlay, or someone's file) stays: known
        // before the image is decoded and drawn. (`writeNewFile` checks again as it creates.)
        if FileManager.default.fileExists(atPath: target) { return .failure(failure(.exists(path: target))) }
        let png: [UInt8]
        do {
            png = try drawReview(try Image.decode(file: f.image), marks: marks).pngData()
        } catch {
            let text = "\(error)"
            return .failure(ReviewFailure(text.hasPrefix(f.image + ":") ? text : "\(f.path): \(text)"))
        }
        do {
            try writeNewFile(png, to: target)
            return .success("\(f.path): TP \(f.tp), FP \(f.fp), FN \(f.fn) -> \(target)")
        } catch {
            return .failure(failure(error))
        }
    }

    /// Why an overlay was not written, naming its path.
    private static func failure(_ error: NewFileError) -> ReviewFailure {
        ReviewFailure(error.message(exists: "exists; a review never overwrites a file (choose a new or empty --out)"))
    }
}

/// A review overlay not written: the message, led by the file it names.
struct ReviewFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
