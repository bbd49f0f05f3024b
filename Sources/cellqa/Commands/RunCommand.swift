import ArgumentParser
import Foundation
import Harness
import JSON
import Vision

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the pipeline over a labelled dataset, measure it, write reports and gate on acceptance limits.",
        discussion: """
            Runs every fixture of DATASET concurrently (Dispatch, --jobs workers), times decode and \
            every pipeline stage (wall and thread CPU), matches detections to labels one-to-one \
            (labels-v1 rule: centres within 0.5 r of the labelled cell, 5 px without r), computes \
            precision/recall/F1, count, viability, concentration and live/dead errors, robust-z \
            outliers, and evaluates the acceptance gates.

            Reports in --out: report.json (schema: scripts/report.schema.json), summary.md, \
            junit.xml, fixtures.csv, detections.csv, trace.json (open in Perfetto).

            Exit codes:
              0  every acceptance gate passed
              1  at least one gate failed (see summary.md / junit.xml)
              2  usage or input error: unreadable dataset root, invalid acceptance or config \
            file, bad option value, reports not writable
            """
    )

    @Argument(help: ArgumentHelp("Dataset directory (images, and labels beside them unless --labels is given). Default: Goldens with labels in TestLabels.", valueName: "DATASET"))
    var dataset: String?

    @Option(name: .long, help: ArgumentHelp("Separate labels root mirroring the dataset's sub-paths.", valueName: "DIR"))
    var labels: String?

    @Option(name: .long, help: ArgumentHelp("Pipeline configuration JSON (default: built-in defaults).", valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Acceptance gates JSON. Default: Goldens/acceptance.json when present, else built-in defaults.", valueName: "FILE"))
    var acceptance: String?

    @Option(name: .long, help: ArgumentHelp("Report directory (created if missing).", valueName: "DIR"))
    var out: String = "cellqa-report"

    @Option(name: .long, help: "Worker threads (default: the number of cores available; Dispatch runs at most one per core).")
    var jobs: Int?

    @Option(name: .customLong("repeat"), help: ArgumentHelp("Run each fixture K times and keep every timing sample.", valueName: "K"))
    var repeats: Int = 1

    @Option(name: .long, help: ArgumentHelp("Only fixtures whose relative path matches this glob (*, **, ?, [...]).", valueName: "GLOB"))
    var filter: String?

    @Option(name: .long, help: ArgumentHelp("Only fixtures whose label carries this tag.", valueName: "TAG"))
    var tag: String?

    @Option(name: .long, help: ArgumentHelp("Match radius as a factor of the labelled radius (labels-v1: 0.5).", valueName: "F"))
    var matchFactor: Double = 0.5

    @Option(name: .long, help: ArgumentHelp("Match radius in pixels for labelled cells without r; with --match-fixed, for every cell.", valueName: "PX"))
    var matchPixels: Double = 5

    @Flag(name: .long, help: "Use --match-pixels for every cell, ignoring labelled radii.")
    var matchFixed = false

    @Option(name: .long, help: ArgumentHelp("Robust z cut for the outlier list.", valueName: "Z"))
    var outlierCut: Double = 3.5

    @Flag(name: .long, help: "No progress output.")
    var quiet = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be 1 or more, got \(jobs)") }
        guard repeats >= 1 else { throw ValidationError("--repeat must be 1 or more, got \(repeats)") }
        guard matchFactor.isFinite, matchFactor >= 0 else { throw ValidationError("--match-factor must be a non-negative number") }
        guard matchPixels.isFinite, matchPixels >= 0 else { throw ValidationError("--match-pixels must be a non-negative number") }
        guard outlierCut.isFinite, outlierCut > 0 else { throw ValidationError("--outlier-cut must be a positive number") }
    }

    func run() throws {
        let root = dataset ?? "Goldens"
        let labelsRoot = labels ?? (dataset == nil ? "TestLabels" : nil)
        let request: RunRequest
        do {
            request = try makeRequest(root: root, labelsRoot: labelsRoot)
        } catch {
            printError(error.description)
            throw ExitCode(RunInputError.exitCode)
        }
        let progress: (any ProgressSink)? = quiet ? nil : ConsoleProgress.forStandardError()
        let report: RunReport
        do {
            report = try performRun(request, progress: progress)
        } catch {
            printError(error.description)
            throw ExitCode(RunInputError.exitCode)
        }
        do {
            try report.writeReports(to: out)
        } catch {
            printError(error.description)
            throw ExitCode(RunInputError.exitCode)
        }
        print(consoleSummary(report))
        throw ExitCode(report.exitCode)
    }

    private func makeRequest(root: String, labelsRoot: String?) throws(RunInputError) -> RunRequest {
        var pipelineConfig = PipelineConfig()
        if let config {
            do {
                pipelineConfig = try PipelineConfig.load(path: config)
            } catch {
                throw RunInputError("invalid config: \(error.description)")
            }
        }
        var gates = Acceptance()
        var gatesHash = "defaults"
        let acceptancePath = acceptance ?? (FileManager.default.fileExists(atPath: "Goldens/acceptance.json") ? "Goldens/acceptance.json" : nil)
        if let acceptancePath {
            do {
                gates = try Acceptance.load(path: acceptancePath)
            } catch {
                throw RunInputError("invalid acceptance file: \(error.description)")
            }
            gatesHash = acceptanceFileHash(path: acceptancePath)
        }
        let rule: MatchRule = matchFixed ? .fixedPixels(matchPixels) : .radiusFactor(factor: matchFactor, fallbackPixels: matchPixels)
        return RunRequest(datasetRoot: root, labelsRoot: labelsRoot, filter: filter, tag: tag, config: pipelineConfig,
                          acceptance: gates, acceptanceHash: gatesHash,
                          settings: RunSettings(jobs: jobs ?? RunSettings.defaultJobs, repeats: repeats, matchRule: rule),
                          outlierCut: outlierCut, toolVersion: CellQAVersion.string)
    }

    private func printError(_ message: String) {
        FileHandle.standardError.write(Data("cellqa run: error: \(message)\n".utf8))
    }

    /// A few lines for the console; the full story is in --out.
    private func consoleSummary(_ report: RunReport) -> String {
        let m = report.overall
        func f(_ x: Double?) -> String { x.map { String(format: "%.4f", $0) } ?? "n/a" }
        var lines = [
            "\(report.outcomes.count) fixtures: \(report.scoredCount) scored, \(report.unlabelledCount) unlabelled, \(report.erroredCount) errored"
                + " in \(String(format: "%.2f", report.run.wallSeconds)) s (\(report.run.jobs) jobs)",
            "precision \(f(m.precision))  recall \(f(m.recall))  F1 \(f(m.f1))  macro F1 \(f(m.macroF1))  live/dead \(f(m.liveDeadAccuracy))",
        ]
        for gate in report.failedGates { lines.append("FAILED gate \(gate.label): \(gate.detail)") }
        lines.append(report.passed ? "all \(report.gates.count) gates passed; reports in \(out)/"
                                   : "\(report.failedGates.count) of \(report.gates.count) gates failed; reports in \(out)/")
        return lines.joined(separator: "\n")
    }
}
