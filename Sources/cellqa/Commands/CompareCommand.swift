import ArgumentParser
import Foundation
import Harness
import JSON
import Vision

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare algorithm versions: stored report.json files and/or pipeline configs, each against the first.",
        discussion: """
            Each VERSION is a report.json written by cellqa run (it has "schemaVersion": nothing is \
            re-run) or a pipeline config JSON (run on --dataset; all configs run in this one \
            process, interleaved fixture by fixture, so machine noise hits every version alike).

            For each version against the first: micro precision, recall, F1, count error, \
            live/dead accuracy, blank detections and the share of grids placed more than 25 µm \
            off the label's placement (misplaced) with the difference, its 95% paired \
            bootstrap interval over fixtures and a verdict (tolerances from the acceptance file's \
            "baseline" section); per-stage timings with the median ratio, Mann-Whitney p and a \
            verdict (timings of reports from different machines are not compared unless \
            --compare-timings), and the same for the timed steps inside the grid and \
            candidates stages, to say where a stage's time moved (steps do not decide the exit \
            code; reports written before steps were recorded have none); per-tag rows; per-fixture wins/losses/ties on F1 and count error \
            with the most changed fixtures first (and those whose placement crossed 25 µm), and \
            an exact sign test.

            Writes compare.json and compare.md to --out.

            Config versions run under the same supervision as cellqa run: --fixture-timeout \
            (for all versions of a fixture together: the limit times the number of versions \
            and repeats); a first SIGINT/SIGTERM stops starting fixtures, gives running ones \
            1.5 s, then exits 130/143 without writing a comparison (a partial one would \
            compare different fixture sets); a second signal exits at once.

            Exit codes:
              0  no version regressed against the first
              2  usage or input error (unreadable file, reports of different datasets without \
            --allow-dataset-change, unreadable dataset)
              3  a version regressed against the first
              4  only improvements, with --fail-on-improvement
              130, 143  interrupted by SIGINT or SIGTERM (nothing written)
            """
    )

    @Argument(help: ArgumentHelp("Two or more report.json or pipeline config files; the first is the reference.", valueName: "VERSION"))
    var versions: [String]

    @Option(name: .long, help: ArgumentHelp("Dataset for config versions. Default: Goldens with labels in TestLabels.", valueName: "DIR"))
    var dataset: String?

    @OptionGroup var selection: DatasetOptions

    @Option(name: .long, help: ArgumentHelp("Acceptance file (its \"baseline\" section sets tolerances). Default: Goldens/acceptance.json when present.", valueName: "FILE"))
    var acceptance: String?

    @Option(name: .long, help: ArgumentHelp("Output directory for compare.json and compare.md.", valueName: "DIR"))
    var out: String = "cellqa-compare"

    @Option(name: .customLong("repeat"), help: ArgumentHelp("Runs per fixture and version (more timing samples).", valueName: "K"))
    var repeats: Int = 1

    @OptionGroup var timeout: FixtureTimeoutOption

    @Option(name: .long, help: ArgumentHelp("Clock for timing verdicts: cpu (default) or wall.", valueName: "CLOCK"))
    var timing: String?

    @Flag(inversion: .prefixedNo, help: "Compare timings across machines (default: only reports from the same CPU model and core count).")
    var compareTimings: Bool?

    @Flag(name: .long, help: "Compare reports whose dataset content hashes differ.")
    var allowDatasetChange = false

    @Flag(name: .long, help: "Exit 4 when a version shows only improvements.")
    var failOnImprovement = false

    @Flag(name: .long, help: "Allow --out inside the dataset or labels root that config versions run on.")
    var allowOutInDataset = false

    @Flag(name: .long, help: "No progress output.")
    var quiet = false

    func validate() throws {
        guard versions.count >= 2 else { throw ValidationError("give at least two versions (report.json or config files)") }
        guard repeats >= 1 else { throw ValidationError("--repeat must be 1 or more, got \(repeats)") }
        if let timing, TimingClock(rawValue: timing) == nil { throw ValidationError("--timing must be cpu or wall, got \(timing)") }
    }

    func run() throws {
        let cancellation = RunCancellation()
        let trap = InterruptTrap(cancellation: cancellation) { interruption in
            printError("\ncellqa compare: \(interruption.name): stopping; nothing will be written. "
                       + "Send \(interruption.name) again to exit at once.")
        }
        defer { trap.remove() }
        do {
            let report = try buildComparison(cancellation: cancellation)
            try report.write(to: out)
            print(report.comparisons.map { c in
                "\(c.candidate) vs \(c.reference): \(c.comparison.headline); F1 wins/losses/ties \(c.f1.wins)/\(c.f1.losses)/\(c.f1.ties)"
            }.joined(separator: "\n"))
            print("compare.json and compare.md in \(out)/")
            throw ExitCode(report.exitCode)
        } catch let error as CommandInputError {
            printError("cellqa compare: error: \(error.description)")
            throw ExitCode(RunInputError.exitCode)
        } catch let error as ReportWriteError {
            printError("cellqa compare: error: \(error.description)")
            throw ExitCode(RunInputError.exitCode)
        } catch let interrupted as CompareInterrupted {
            printError("cellqa compare: interrupted by \(interrupted.interruption.name); no comparison written")
            throw ExitCode(interrupted.interruption.exitCode)
        }
    }

    /// Refuses an `--out` where the comparison would get in the way, before any config runs:
    /// inside the dataset the configs run on (a file of the user's named compare.json or
    /// compare.md would be replaced), or inside a run's report directory (`outputRefusal`).
    private func checkOut(runsConfigs: Bool) throws(CommandInputError) {
        let location = DatasetLocation.resolve(dataset: dataset, labels: selection.labels)
        let roots = runsConfigs ? [location.root] + [location.labelsRoot].compactMap { $0 } : []
        if let refusal = outputRefusal(out, datasetRoots: roots, allowInDataset: allowOutInDataset) {
            throw CommandInputError(refusal)
        }
    }

    /// The config runs were interrupted before every fixture finished.
    private struct CompareInterrupted: Error {
        var interruption: RunInterruption
    }

    private func buildComparison(cancellation: RunCancellation) throws -> CompareReport {
        // Classify every input by content: a report has schemaVersion.
        enum Version { case report(RunSnapshot), config(PipelineConfig) }
        var parsed: [Version] = []
        for path in versions {
            do {
                let value = try JSONValue.load(path: path)
                parsed.append(RunSnapshot.isReport(value) ? .report(try RunSnapshot.parse(value, file: path))
                                                          : .config(try PipelineConfig(json: value, file: path)))
            } catch {
                throw CommandInputError(misfiledDocument(path, expected: [.runReport, .pipelineConfig]) ?? "\(path): \(error.description)")
            }
        }
        let (gates, gatesHash) = try loadAcceptance(acceptance)
        var policy = gates.baseline
        if let timing, let clock = TimingClock(rawValue: timing) { policy.timingClock = clock }
        var snapshots: [RunSnapshot?] = parsed.map { if case .report(let s) = $0 { s } else { nil } }
        let configIndices = parsed.indices.filter { if case .config = parsed[$0] { true } else { false } }
        try checkOut(runsConfigs: !configIndices.isEmpty)
        if !configIndices.isEmpty {
            let location = DatasetLocation.resolve(dataset: dataset, labels: selection.labels)
            let configs = configIndices.map { i -> PipelineConfig in if case .config(let c) = parsed[i] { c } else { PipelineConfig() } }
            let request = RunRequest(datasetRoot: location.root, labelsRoot: location.labelsRoot, filter: selection.filter,
                                     tag: selection.tag, acceptance: gates, acceptanceHash: gatesHash,
                                     settings: RunSettings(jobs: selection.workerCount, repeats: repeats,
                                                           fixtureTimeLimit: timeout.limit),
                                     toolVersion: CellQAVersion.string)
            let startTime = isoTimestamp(Date())
            let prepared: PreparedDataset
            do {
                prepared = try prepareDataset(request)
            } catch {
                throw CommandInputError(error.description)
            }
            let results = runInterleaved(prepared.fixtures, pipelines: configs.map { Pipeline(config: $0) },
                                         settings: request.settings,
                                         progress: quiet ? nil : ConsoleProgress.forStandardError(),
                                         cancellation: cancellation)
            if let interruption = results.first?.interruption { throw CompareInterrupted(interruption: interruption) }
            for (k, i) in configIndices.enumerated() {
                let report = makeReport(request, config: configs[k], prepared: prepared, result: results[k], startTime: startTime)
                snapshots[i] = RunSnapshot(report: report, source: versions[i])
            }
        }
        let all = snapshots.compactMap { $0 }
        do {
            let comparisons = try compareVersions(all, policy: policy, compareTimings: compareTimings,
                                                  allowDatasetChange: allowDatasetChange)
            let mode = configIndices.isEmpty ? "reports (nothing re-run)"
                : configIndices.count == versions.count ? "configs run interleaved fixture by fixture in one process"
                : "configs run interleaved in one process, compared with stored reports"
            return CompareReport(versions: all, comparisons: comparisons, mode: mode, failOnImprovement: failOnImprovement)
        } catch {
            throw CommandInputError(error.description)
        }
    }
}

/// A command's input could not be used (exit code 2).
struct CommandInputError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The acceptance file at `path`, else Goldens/acceptance.json when present, else defaults;
/// with its hash for provenance.
func loadAcceptance(_ path: String?) throws(CommandInputError) -> (Acceptance, String) {
    let chosen = path ?? (FileManager.default.fileExists(atPath: "Goldens/acceptance.json") ? "Goldens/acceptance.json" : nil)
    guard let chosen else { return (Acceptance(), "defaults") }
    do {
        return (try Acceptance.load(path: chosen), acceptanceFileHash(path: chosen))
    } catch {
        throw CommandInputError("invalid acceptance file: " + inputMessage(error, path: chosen, expected: .acceptance))
    }
}
