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
            live/dead accuracy, blank detections, misplaced grids) regress only when the drop exceeds the \
            tolerance of the acceptance file's "baseline" section AND the 95% paired bootstrap \
            interval over fixtures (2000 resamples, fixed seed) lies entirely on the worse side. \
            Stage timings (thread CPU by default, --timing wall; every sample taken relative to \
            its fixture's baseline median) regress only when the median relative time rises \
            more than 10% AND a Mann-Whitney test is significant (alpha 0.01); changes under 3% \
            are noise. The timed steps inside the grid and candidates stages are judged the same \
            way (alpha divided over the steps) to say where a stage's time moved; they never \
            gate. Timings are compared only when the baseline was recorded on the same \
            CPU model and core count (--compare-timings forces, --no-compare-timings skips).

            --record writes this run's report.json as the baseline (--baseline-path, default \
            Goldens/baseline.json) and prints what changed against the previous one. With the CI \
            environment variable set, --record refuses unless --force; a --baseline file that \
            does not exist is an input error (2), never a silent re-record.

            Interruption: the first SIGINT (Ctrl-C) or SIGTERM stops starting fixtures, lets \
            running ones finish for up to 1.5 s (then abandons them), writes the reports of \
            the fixtures that finished with "complete": false (the gate "complete" fails, so \
            the run never counts as a pass) and exits 130 (SIGINT) or 143 (SIGTERM). A second \
            signal exits at once with the same code, writing nothing more; the previous \
            report directory is then still intact (reports replace --out as a whole, see \
            README "Interruption and limits").

            Exit codes:
              0  every acceptance gate passed, no regression against the baseline
              1  at least one gate failed (see summary.md / junit.xml)
              2  usage or input error: unreadable dataset root, invalid acceptance or config \
            file, bad option value, reports not writable, missing or unreadable baseline, \
            baseline of another dataset, --record under CI without --force
              3  regression against the baseline (gates passed)
              4  only improvements against the baseline, with --fail-on-improvement (without \
            it they are reported and the exit code is 0)
              130, 143  interrupted by SIGINT or SIGTERM (partial report written)
            """
    )

    @Argument(help: ArgumentHelp("Dataset directory (images, and labels beside them unless --labels is given). Default: Goldens with labels in TestLabels.", valueName: "DATASET"))
    var dataset: String?

    @OptionGroup var selection: DatasetOptions

    @Option(name: .long, help: ArgumentHelp("Pipeline configuration JSON (default: built-in defaults).", valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Acceptance gates JSON. Default: Goldens/acceptance.json when present, else built-in defaults.", valueName: "FILE"))
    var acceptance: String?

    @Option(name: .long, help: ArgumentHelp("Report directory (created if missing; replaced as a whole, so it may hold only report files). Refused inside the dataset or labels root.", valueName: "DIR"))
    var out: String = "cellqa-report"

    @Flag(name: .long, help: "Allow --out inside the dataset or labels root (the reports may then be read as inputs by a later run).")
    var allowOutInDataset = false

    @Option(name: .customLong("repeat"), help: ArgumentHelp("Run each fixture K times and keep every timing sample.", valueName: "K"))
    var repeats: Int = 1

    @OptionGroup var timeout: FixtureTimeoutOption

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
        guard repeats >= 1 else { throw ValidationError("--repeat must be 1 or more, got \(repeats)") }
        guard matchFactor.isFinite, matchFactor >= 0 else { throw ValidationError("--match-factor must be a non-negative number") }
        guard matchPixels.isFinite, matchPixels >= 0 else { throw ValidationError("--match-pixels must be a non-negative number") }
        guard outlierCut.isFinite, outlierCut > 0 else { throw ValidationError("--outlier-cut must be a positive number") }
        if let timing, TimingClock(rawValue: timing) == nil { throw ValidationError("--timing must be cpu or wall, got \(timing)") }
    }

    func run() throws {
        let location = DatasetLocation.resolve(dataset: dataset, labels: selection.labels)
        let request: RunRequest
        do {
            request = try makeRequest(root: location.root, labelsRoot: location.labelsRoot)
        } catch {
            printError(error.description)
            throw ExitCode(RunInputError.exitCode)
        }
        if !allowOutInDataset,
           let conflict = ReportDirectory.conflict(out: out, inputs: [location.root] + [location.labelsRoot].compactMap { $0 }) {
            printError(conflict + "; reports there would be read as inputs by the next run. "
                       + "Choose another --out, or pass --allow-out-in-dataset")
            throw ExitCode(RunInputError.exitCode)
        }
        // Another run's report directory may be replaced (--out the same), not nested into.
        if let refusal = outputRefusal(out, datasetRoots: [], allowInDataset: true, replacesReports: true) {
            printError(refusal)
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
        // Trapped until the reports are written: a first signal then yields a partial report,
        // a second one exits at once.
        let cancellation = RunCancellation()
        let trap = partialReportTrap(command: "run", cancellation: cancellation, reports: "a partial report is")
        defer { trap.remove() }
        var report: RunReport
        do {
            report = try performRun(request, progress: progress, cancellation: cancellation)
        } catch {
            printError(error.description)
            throw ExitCode(RunInputError.exitCode)
        }
        // Drafts are the pipeline's own output: scored against them, it agrees with itself.
        let drafts = report.outcomes.filter { $0.tags.contains(draftTag) }.count
        if drafts > 0 {
            FileHandle.standardError.write(Data(("cellqa run: warning: \(drafts) of \(report.outcomes.count) fixtures' labels "
                + "carry the tag \"\(draftTag)\" (written by cellqa count --draft-labels and not yet checked): their scores "
                + "measure the pipeline against its own output; check them and drop the tag before gating on them\n").utf8))
        }
        var policy = request.acceptance.baseline
        if let timing, let clock = TimingClock(rawValue: timing) { policy.timingClock = clock }
        if !report.complete {
            // A partial run is neither compared with nor recorded as a baseline.
            do {
                try report.writeReports(to: out)
            } catch {
                printError(error.description)
                throw ExitCode(RunInputError.exitCode)
            }
            print(consoleSummary(report))
            throw ExitCode(report.exitCode)
        }
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
        let snapshot: RunSnapshot
        do {
            snapshot = try RunSnapshot.load(path: path)
        } catch {
            throw RunInputError("invalid baseline: " + inputMessage(error, path: path, expected: .runReport))
        }
        guard snapshot.complete else {
            throw RunInputError("baseline \(path) is the report of an interrupted run (\"complete\": false); "
                                + "record a complete run as the baseline")
        }
        return snapshot
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
                for s in change.steps where s.verdict != .unchanged && s.verdict != .notCompared {
                    lines.append("    step \(s.stage): \(s.step ?? ""): \(s.detail) (\(s.verdict.rawValue), not gating)")
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
        try writeAtomically(to: baselinePath) { out in
            report.jsonValue.serialize(pretty: true) { out.write($0) }
            out.write("\n")
        }
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
                throw RunInputError("invalid config: " + inputMessage(error, path: config, expected: .pipelineConfig))
            }
        }
        var gates = Acceptance()
        var gatesHash = "defaults"
        let acceptancePath = acceptance ?? (FileManager.default.fileExists(atPath: "Goldens/acceptance.json") ? "Goldens/acceptance.json" : nil)
        if let acceptancePath {
            do {
                gates = try Acceptance.load(path: acceptancePath)
            } catch {
                throw RunInputError("invalid acceptance file: " + inputMessage(error, path: acceptancePath, expected: .acceptance))
            }
            gatesHash = acceptanceFileHash(path: acceptancePath)
        }
        let rule: MatchRule = matchFixed ? .fixedPixels(matchPixels) : .radiusFactor(factor: matchFactor, fallbackPixels: matchPixels)
        return RunRequest(datasetRoot: root, labelsRoot: labelsRoot, filter: selection.filter, tag: selection.tag,
                          config: pipelineConfig, acceptance: gates, acceptanceHash: gatesHash,
                          settings: RunSettings(jobs: selection.workerCount, repeats: repeats, matchRule: rule,
                                                fixtureTimeLimit: timeout.limit),
                          outlierCut: outlierCut, toolVersion: CellQAVersion.string)
    }

    private func printError(_ message: String) {
        FileHandle.standardError.write(Data("cellqa run: error: \(message)\n".utf8))
    }

    /// A few lines for the console; the full story is in --out.
    private func consoleSummary(_ report: RunReport) -> String {
        let m = report.overall
        func f(_ x: Double?) -> String { x.map { String(format: "%.4f", $0) } ?? "n/a" }
        var lines: [String] = []
        if let interruption = report.run.interruption {
            lines.append("INCOMPLETE: interrupted by \(interruption.name) after \(report.outcomes.count) of "
                         + "\(report.run.selectedCount) fixtures; gates not evaluated as a pass")
        }
        lines += [
            "\(report.outcomes.count) fixtures: \(report.scoredCount) scored, \(report.unlabelledCount) unlabelled, \(report.erroredCount) errored"
                + " in \(String(format: "%.2f", report.run.wallSeconds)) s (\(report.run.jobs) jobs)",
            "precision \(f(m.precision))  recall \(f(m.recall))  F1 \(f(m.f1))  macro F1 \(f(m.macroF1))  live/dead \(f(m.liveDeadAccuracy))",
        ]
        lines += erroredFixtureLines(report.outcomes.filter { $0.status == .errored }.map { $0.error ?? $0.fixture.path },
                                     reports: "summary.md")
        for gate in report.failedGates { lines.append("FAILED gate \(gate.label): \(gate.detail)") }
        if let b = report.baseline {
            lines.append("vs baseline \(b.baselineSource): \(b.headline)")
            for m in b.metrics where m.verdict == .regressed || m.verdict == .improved {
                lines.append("  \(m.verdict.rawValue) \(m.label): \(m.detail)")
            }
            for st in b.stages where st.verdict == .regressed || st.verdict == .improved {
                lines.append("  \(st.verdict.rawValue) time \(st.stage): \(st.detail)")
            }
            for st in b.steps where st.verdict == .regressed || st.verdict == .improved {
                lines.append("    step \(st.verdict.rawValue), not gating: \(st.stage): \(st.step ?? ""): \(st.detail)")
            }
        }
        if !report.complete {
            lines.append("partial reports in \(out)/; exit \(report.exitCode)")
            return lines.joined(separator: "\n")
        }
        lines.append(report.passed ? "all \(report.gates.count) gates passed; reports in \(out)/"
                                   : "\(report.failedGates.count) of \(report.gates.count) gates failed; reports in \(out)/")
        return lines.joined(separator: "\n")
    }
}

/// Traps SIGINT/SIGTERM for a command that writes partial reports when interrupted, telling
/// the user so on the first signal (a second one exits at once).
/// - Parameter reports: what gets written, as the message's subject ("a partial report is").
func partialReportTrap(command: String, cancellation: RunCancellation, reports: String) -> InterruptTrap {
    InterruptTrap(cancellation: cancellation) { interruption in
        FileHandle.standardError.write(Data(("\ncellqa \(command): \(interruption.name): starting no more fixtures; running ones get "
            + "\(formatGrace(cancellation.grace)) s to finish, then \(reports) written. "
            + "Send \(interruption.name) again to exit at once.\n").utf8))
    }
}

/// "1.5": the grace period as the user reads it.
private func formatGrace(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
}
