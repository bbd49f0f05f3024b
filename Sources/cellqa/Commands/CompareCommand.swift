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
            Each VERSION is a report.json written by cellqa run (it has "schemaVersion": nothing is \\
            re-run) or a pipeline config JSON (run on --dataset; all configs run in this one \\
            process, interleaved fixture by fixture, so machine noise hits every version alike).

            For each version against the first: micro precision, recall, F1, count error, \\
            live/dead accuracy and blank detections with the difference, its 95% paired \\
            bootstrap interval over fixtures and a verdict (tolerances from the acceptance file's \\
            "baseline" section); per-stage timings with the median ratio, Mann-Whitney p and a \\
            verdict (timings of reports from different machines are not compared unless \\
            --compare-timings); per-tag rows; per-fixture wins/losses/ties on F1 and count error \\
            with the most changed fixtures first, and an exact sign test.

            Writes compare.json and compare.md to --out.

            Exit codes:
              0  no version regressed against the first
              2  usage or input error (unreadable file, reports of different datasets without \\
            --allow-dataset-change, unreadable dataset)
              3  a version regressed against the first
              4  only improvements, with --fail-on-improvement
            """
    )

    @Argument(help: ArgumentHelp("Two or more report.json or pipeline config files; the first is the reference.", valueName: "VERSION"))
    var versions: [String]

    @Option(name: .long, help: ArgumentHelp("Dataset for config versions. Default: Goldens with labels in TestLabels.", valueName: "DIR"))
    var dataset: String?

    @Option(name: .long, help: ArgumentHelp("Separate labels root.", valueName: "DIR"))
    var labels: String?

    @Option(name: .long, help: ArgumentHelp("Acceptance file (its \"baseline\" section sets tolerances). Default: Goldens/acceptance.json when present.", valueName: "FILE"))
    var acceptance: String?

    @Option(name: .long, help: ArgumentHelp("Output directory for compare.json and compare.md.", valueName: "DIR"))
    var out: String = "cellqa-compare"

    @Option(name: .long, help: "Worker threads for config versions (default: the number of cores).")
    var jobs: Int?

    @Option(name: .customLong("repeat"), help: ArgumentHelp("Runs per fixture and version (more timing samples).", valueName: "K"))
    var repeats: Int = 1

    @Option(name: .long, help: ArgumentHelp("Only fixtures whose relative path matches this glob.", valueName: "GLOB"))
    var filter: String?

    @Option(name: .long, help: ArgumentHelp("Only fixtures whose label carries this tag.", valueName: "TAG"))
    var tag: String?

    @Option(name: .long, help: ArgumentHelp("Clock for timing verdicts: cpu (default) or wall.", valueName: "CLOCK"))
    var timing: String?

    @Flag(inversion: .prefixedNo, help: "Compare timings across machines (default: only reports from the same CPU model and core count).")
    var compareTimings: Bool?

    @Flag(name: .long, help: "Compare reports whose dataset content hashes differ.")
    var allowDatasetChange = false

    @Flag(name: .long, help: "Exit 4 when a version shows only improvements.")
    var failOnImprovement = false

    @Flag(name: .long, help: "No progress output.")
    var quiet = false

    func validate() throws {
        guard versions.count >= 2 else { throw ValidationError("give at least two versions (report.json or config files)") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be 1 or more, got \(jobs)") }
        guard repeats >= 1 else { throw ValidationError("--repeat must be 1 or more, got \(repeats)") }
        if let timing, TimingClock(rawValue: timing) == nil { throw ValidationError("--timing must be cpu or wall, got \(timing)") }
    }

    func run() throws {
        do {
            let report = try buildComparison()
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
        }
    }

    private func buildComparison() throws(CommandInputError) -> CompareReport {
        // Classify every input by content: a report has schemaVersion.
        enum Version { case report(RunSnapshot), config(PipelineConfig) }
        var parsed: [Version] = []
        for path in versions {
            do {
                let value = try JSONValue.load(path: path)
                parsed.append(RunSnapshot.isReport(value) ? .report(try RunSnapshot.parse(value, file: path))
                                                          : .config(try PipelineConfig(json: value, file: path)))
            } catch {
                throw CommandInputError("\(path): \(error.description)")
            }
        }
        let (gates, gatesHash) = try loadAcceptance(acceptance)
        var policy = gates.baseline
        if let timing, let clock = TimingClock(rawValue: timing) { policy.timingClock = clock }
        var snapshots: [RunSnapshot?] = parsed.map { if case .report(let s) = $0 { s } else { nil } }
        let configIndices = parsed.indices.filter { if case .config = parsed[$0] { true } else { false } }
        if !configIndices.isEmpty {
            let location = DatasetLocation.resolve(dataset: dataset, labels: labels)
            let configs = configIndices.map { i -> PipelineConfig in if case .config(let c) = parsed[i] { c } else { PipelineConfig() } }
            let request = RunRequest(datasetRoot: location.root, labelsRoot: location.labelsRoot, filter: filter, tag: tag,
                                     acceptance: gates, acceptanceHash: gatesHash,
                                     settings: RunSettings(jobs: jobs ?? RunSettings.defaultJobs, repeats: repeats),
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
                                         progress: quiet ? nil : ConsoleProgress.forStandardError())
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
        throw CommandInputError("invalid acceptance file: \(error.description)")
    }
}
