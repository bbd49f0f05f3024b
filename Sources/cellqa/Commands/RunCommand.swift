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

            Baselines: --baseline OLD/report.json compares this run with a stored report of the \
            same dataset (refused when the dataset content hash differs, unless \
            --allow-dataset-change). Accuracy metrics (precision, recall, F1, count error, \
            live/dead accuracy, blank detections) regress only when the drop exceeds the \
            tolerance of the acceptance file's "baseline" section AND the 95% paired bootstrap \
            interval over fixtures (2000 resamples, fixed seed) lies entirely on the worse side. \
            Stage timings (thread CPU by default, --timing wall; every sample taken relative to \
            its fixture's baseline median) regress only when the median relative time rises \
            more than 10% AND a Mann-Whitney test is significant (alpha 0.01); changes under 3% \
            are noise. Timings are compared only when the baseline was recorded on the same \
            CPU model and core count (--compare-timings forces, --no-compare-timings skips).

            --record writes this run's report.json as the baseline (--baseline-path, default \
            Goldens/baseline.json) and prints what changed against the previous one. With the CI \
            environment variable set, --record refuses unless --force; a --baseline file that \
            does not exist is an input error (2), never a silent re-record.

            Exit codes:
              0  every acceptance gate passed, no regression against the baseline
              1  at least one gate failed (see summary.md / junit.xml)
              2  usage or input error: unreadable dataset root, invalid acceptance or config \
            file, bad option value, reports not writable, missing or unreadable baseline, \
            baseline of another dataset, --record under CI without --force
              3  regression against the baseline (gates passed)
              4  only improvements against the baseline, with --fail-on-improvement (without \
            it they are reported and the exit code is 0)
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

    @Option(name: .long, help: ArgumentHelp("A stored report.json to compare this run with (exit 3 on a regression).", valueName: "REPORT"))
    var baseline: String?

    @Flag(name: .long, help: "Compare with a baseline recorded on a different dataset content hash.")
    var allowDatasetChange = false

    @Flag(name: .long, help: "Write this run's report as the baseline (see --baseline-path).")
    var record = false

    @Option(name: .long, help: ArgumentHelp("Where --record writes the baseline.", valueName: "FILE"))
    var baselinePath: String = "Goldens/baseline.json"

    @Flag(name: .long, help: "Allow --record when the CI environment variable is set.")
    var force = false

    @Flag(name: .long, help: "Exit 4 when the baseline comparison finds only improvements (a stale baseline).")
    var failOnImprovement = false

    @Option(name: .long, help: ArgumentHelp("Clock for baseline timing verdicts: cpu (thread CPU, default) or wall.", valueName: "CLOCK"))
    var timing: String?

    @Flag(inversion: .prefixedNo, help: "Compare timings with the baseline even across machines (default: only on the same CPU model and core count).")
    var compareTimings: Bool?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be 1 or more, got \(jobs)") }
        guard repeats >= 1 else { throw ValidationError("--repeat must be 1 or more, got \(repeats)") }
        guard matchFactor.isFinite, matchFactor >= 0 else { throw ValidationError("--match-factor must be a non-negative number") }
        guard matchPixels.isFinite, matchPixels >= 0 else { throw ValidationError("--match-pixels must be a non-negative number") }
        guard outlierCut.isFinite, outlierCut > 0 else { throw ValidationError("--outlier-cut must be a positive number") }
        if let timing, TimingClock(rawValue: timing) == nil { throw ValidationError("--timing must be cpu or wall, got \(timing)") }
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
        let stored: RunSnapshot?
        do {
            try checkRecordAllowed(environment: ProcessInfo.processInfo.environment)
            stored = try baseline.map(loadBaseline)
        } catch {
            printError(error.description)
            throw ExitCode(RunInputError.exitCode)
        }
        let progress: (any ProgressSink)? = quiet ? nil : ConsoleProgress.forStandardError()
        var report: RunReport
        do {
            report = try performRun(request, progress: progress)
        } catch {
            printError(error.description)
            throw ExitCode(RunInputError.exitCode)
        }
        var policy = request.acceptance.baseline
        if let timing, let clock = TimingClock(rawValue: timing) { policy.timingClock = clock }
        if let stored {
            do {
                report.baseline = try compareWithBaseline(stored, RunSnapshot(report: report), policy: policy,
                                                          compareTimings: compareTimings, allowDatasetChange: allowDatasetChange)
            } catch {
                printError(error.description)
                throw ExitCode(RunInputError.exitCode)
            }
            report.failOnImprovement = failOnImprovement
        }
        do {
            try report.writeReports(to: out)
            if record { try recordBaseline(report, policy: policy) }
        } catch {
            printError(error.description)
            throw ExitCode(RunInputError.exitCode)
        }
        print(consoleSummary(report))
        // Recording is a deliberate refresh: only the gates decide its exit code.
        throw ExitCode(record ? (report.passed ? 0 : 1) : report.exitCode)
    }

    /// `--record` under CI needs `--force` (`recordRefusal`).
    func checkRecordAllowed(environment: [String: String]) throws(RunInputError) {
        guard record else { return }
        if let refusal = recordRefusal(force: force, environment: environment, baselinePath: baselinePath) { throw refusal }
    }

    private func loadBaseline(_ path: String) throws(RunInputError) -> RunSnapshot {
        guard FileManager.default.fileExists(atPath: path) else {
            throw RunInputError("baseline \(path) does not exist; record one with cellqa run --record --baseline-path \(path) "
                                + "(never done automatically, and refused under CI without --force)")
        }
        do {
            return try RunSnapshot.load(path: path)
        } catch {
            throw RunInputError("invalid baseline: \(error.description)")
        }
    }

    /// Writes the report as the baseline and prints what changed against the previous one.
    private func recordBaseline(_ report: RunReport, policy: BaselinePolicy) throws(ReportWriteError) {
        var lines: [String] = []
        if FileManager.default.fileExists(atPath: baselinePath) {
            do {
                let previous = try RunSnapshot.load(path: baselinePath)
                if previous.datasetHash != report.provenance.datasetHash {
                    lines.append("dataset content changed: \(previous.datasetHash) -> \(report.provenance.datasetHash)")
                }
                if previous.configHash != report.provenance.configHash {
                    lines.append("pipeline config changed: \(previous.configHash) -> \(report.provenance.configHash)")
                }
                let change = try compareWithBaseline(previous, RunSnapshot(report: report), policy: policy,
                                                     compareTimings: compareTimings, allowDatasetChange: true)
                for m in change.metrics where m.difference != nil {
                    lines.append("  \(m.label): \(fmt(m.baseline)) -> \(fmt(m.current)) (\(m.verdict.rawValue))")
                }
                for s in change.stages where s.verdict != .unchanged && s.verdict != .notCompared {
                    lines.append("  time \(s.stage): \(s.detail) (\(s.verdict.rawValue))")
                }
                lines.insert("changes against the previous baseline: \(change.headline)", at: 0)
            } catch {
                lines.append("previous baseline \(baselinePath) unreadable, replaced: \(error)")
            }
        } else {
            lines.append("no previous baseline at \(baselinePath)")
        }
        let directory = (baselinePath as NSString).deletingLastPathComponent
        if !directory.isEmpty { try createReportDirectory(directory) }
        try writeAtomically(Array((report.jsonValue.serialized(pretty: true) + "\n").utf8), to: baselinePath)
        lines.append("recorded baseline \(baselinePath) (config \(report.provenance.configHash), dataset \(report.provenance.datasetHash))")
        print(lines.joined(separator: "\n"))
    }

    private func fmt(_ x: Double?) -> String { x.map { String(format: "%.4f", $0) } ?? "n/a" }

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
        if let b = report.baseline {
            lines.append("vs baseline \(b.baselineSource): \(b.headline)")
            for m in b.metrics where m.verdict == .regressed || m.verdict == .improved {
                lines.append("  \(m.verdict.rawValue) \(m.label): \(m.detail)")
            }
            for st in b.stages where st.verdict == .regressed || st.verdict == .improved {
                lines.append("  \(st.verdict.rawValue) time \(st.stage): \(st.detail)")
            }
        }
        lines.append(report.passed ? "all \(report.gates.count) gates passed; reports in \(out)/"
                                   : "\(report.failedGates.count) of \(report.gates.count) gates failed; reports in \(out)/")
        return lines.joined(separator: "\n")
    }
}
