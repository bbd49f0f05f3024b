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
            Reads REPORT (a `cellqa run --out` directory): report.json for the images and \
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

    func validate() throws {
        guard worst >= 0 else { throw ValidationError("--worst must be 0 or more, got \(worst)") }
        if let filter {
            do { _ = try GlobPattern(filter) } catch { throw ValidationError("--filter: \(error)") }
        }
    }

    func run() throws {
        let reportJSON = (report as NSString).appendingPathComponent(ReportFile.json)
        let detectionsCSV = (report as NSString).appendingPathComponent(ReportFile.detections)
        let run: ReviewedRun, marks: [ReviewMark]
        do {
            run = try ReviewedRun.load(reportJSON: reportJSON)
            marks = try reviewMarks(file: detectionsCSV)
        } catch {
            printError("cellqa review: \(error)")
            throw ExitCode(2)
        }
        if let conflict = ReportDirectory.conflict(out: out, inputs: [run.datasetRoot] + [run.labelsRoot].compactMap { $0 }) {
            printError("cellqa review: \(conflict); overlays there would be read as images by the next run. Choose another --out")
            throw ExitCode(2)
        }
        let pattern = try filter.map { try GlobPattern($0) }
        var chosen = run.fixtures.filter { f in (all || f.fp + f.fn > 0) && (pattern?.matches(f.path) ?? true) }
        // Worst first; equal ones in path order, so the choice does not depend on the run's order.
        chosen.sort { ($0.fp + $0.fn, $1.path) > ($1.fp + $1.fn, $0.path) }
        if worst > 0 { chosen = Array(chosen.prefix(worst)) }
        let byFixture = Dictionary(grouping: marks, by: \.fixture)
        var failures = 0
        for f in chosen {
            let target = (out as NSString).appendingPathComponent((f.path as NSString).deletingPathExtension + ".png")
            // Anything already there (a previous review's overlay, or someone's file) stays: known
            // before the image is decoded and drawn. (`writeNewFile` checks again as it creates.)
            if FileManager.default.fileExists(atPath: target) {
                printFailure(.exists(path: target))
                failures += 1
                continue
            }
            let png: [UInt8]
            do {
                png = try drawReview(try Image.decode(file: f.image), marks: byFixture[f.path] ?? []).pngData()
            } catch {
                let text = "\(error)"
                printError("cellqa review: " + (text.hasPrefix(f.image + ":") ? text : "\(f.path): \(text)"))
                failures += 1
                continue
            }
            do {
                try writeNewFile(png, to: target)
                print("\(f.path): TP \(f.tp), FP \(f.fp), FN \(f.fn) -> \(target)")
            } catch {
                printFailure(error)
                failures += 1
            }
        }
        if chosen.isEmpty { print("no fixture to draw" + (all ? "" : " (none has a false or missed cell; --all draws them anyway)")) }
        if failures > 0 { throw ExitCode(2) }
    }

    /// Why an overlay was not written, naming its path.
    private func printFailure(_ error: NewFileError) {
        switch error {
        case .exists(let path):
            printError("cellqa review: \(path): exists; a review never overwrites a file (choose a new or empty --out)")
        case let .directory(path, reason): printError("cellqa review: \(path): cannot create the directory (\(reason))")
        case let .unwritable(path, reason): printError("cellqa review: \(path): cannot be written (\(reason))")
        }
    }
}
