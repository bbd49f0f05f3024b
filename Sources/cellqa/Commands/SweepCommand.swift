import ArgumentParser
import Foundation
import Harness
import Vision

struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Run the pipeline across parameter values and report precision/recall/F1/count error/live-dead accuracy per setting.",
        discussion: """
            Each PARAM is a pipeline config key (see cellqa config --print-defaults; the config \
            is flat, so keys have no dots) with START:STOP:STEP or an explicit list V1,V2,...; \
            a switch sweeps as KEY=false,true, and a key whose value is a word as its words \
            (detector=dog,threshold: the two detectors). Several PARAMs sweep every combination (at most \
            --max-settings). Values are checked by the config's own ranges.

            Work is reused: each image is decoded once per fixture for all settings; when every \
            swept key is read only by the classify, nms or count stages \
            (\(sweepResumeStage.keys.sorted().joined(separator: ", "))), the earlier stages run \
            once per fixture and each setting resumes from the saved frame (exact). Other keys, minScore among them, \
            re-run the pipeline per setting: the detector's duplicate removal orders peaks by \
            response, not score, so a score threshold is not a pure post-filter.

            Writes sweep.csv, sweep.json and sweep.md (per-setting table with live/dead \
            accuracy and viability error, which the classify keys move where F1 hardly does, \
            and the views the grid placed more than 25 µm off the label's placement; \
            precision-recall curve; best-F1 setting, and the best live/dead setting where \
            the settings' calls differ) to --out. A fixture that cannot be scored is named \
            with the reason on stderr and in sweep.md and sweep.json ("errors").

            SIGINT or SIGTERM: no more fixtures start; the reports cover the fixtures finished \
            (sweep.json "complete": false). A second signal exits at once.

            Exit codes: 0 done, 2 usage or input error, 130 (SIGINT) or 143 (SIGTERM) interrupted.
            """
    )

    @Argument(help: ArgumentHelp("KEY=START:STOP:STEP or KEY=V1,V2,...", valueName: "PARAM"))
    var parameters: [String]

    @Option(name: .long, help: ArgumentHelp("Dataset directory. Default: Goldens with labels in TestLabels.", valueName: "DIR"))
    var dataset: String?

    @OptionGroup var selection: DatasetOptions

    @Option(name: .long, help: ArgumentHelp("Base pipeline config (default: built-in defaults).", valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Output directory.", valueName: "DIR"))
    var out: String = "cellqa-sweep"

    @Option(name: .long, help: "Largest number of settings (parameter combinations) accepted.")
    var maxSettings: Int = 1000

    @OptionGroup var timeout: FixtureTimeoutOption

    @Flag(name: .long, help: "Allow --out inside the dataset or labels root.")
    var allowOutInDataset = false

    @Flag(name: .long, help: "No progress output.")
    var quiet = false

    func validate() throws {
        guard !parameters.isEmpty else { throw ValidationError("give at least one KEY=START:STOP:STEP") }
        guard maxSettings >= 1 else { throw ValidationError("--max-settings must be 1 or more") }
    }

    func run() throws {
        do {
            var base = PipelineConfig()
            if let config {
                do {
                    base = try PipelineConfig.load(path: config)
                } catch {
                    throw CommandInputError("invalid config: " + inputMessage(error, path: config, expected: .pipelineConfig))
                }
            }
            let axes: [SweepAxis]
            let grid: [SweepSetting]
            do {
                axes = try parameters.map { (text: String) throws(SweepInputError) -> SweepAxis in try SweepAxis.parse(text) }
                grid = try sweepSettings(base: base, axes: axes, maxSettings: maxSettings)
            } catch {
                throw CommandInputError(error.description)
            }
            let location = DatasetLocation.resolve(dataset: dataset, labels: selection.labels)
            if let refusal = outputRefusal(out, datasetRoots: [location.root] + [location.labelsRoot].compactMap { $0 },
                                           allowInDataset: allowOutInDataset) {
                throw CommandInputError(refusal)
            }
            let request = RunRequest(datasetRoot: location.root, labelsRoot: location.labelsRoot, filter: selection.filter,
                                     tag: selection.tag,
                                     config: base, toolVersion: CellQAVersion.string)
            let prepared: PreparedDataset
            do {
                prepared = try prepareDataset(request)
            } catch {
                throw CommandInputError(error.description)
            }
            // Trapped until the reports are written: a first signal stops the sweep after the
            // fixtures in flight (partial reports), a second one exits at once.
            let cancellation = RunCancellation()
            let trap = partialReportTrap(command: "sweep", cancellation: cancellation, reports: "partial reports are")
            defer { trap.remove() }
            let result = runSweep(prepared.fixtures, axes: axes, sweep: grid,
                                  settings: RunSettings(jobs: selection.workerCount, fixtureTimeLimit: timeout.limit),
                                  datasetHash: prepared.contentHash, progress: quiet ? nil : ConsoleProgress.forStandardError(),
                                  cancellation: cancellation)
            try result.write(to: out)
            for line in erroredFixtureLines(result.errors.map(\.message), reports: "sweep.md") { printError("cellqa sweep: " + line) }
            if let interruption = result.interruption {
                printError("cellqa sweep: interrupted by \(interruption.name) after \(result.fixturesRun) of \(result.fixtures) "
                           + "fixtures; partial sweep.csv, sweep.json, sweep.md in \(out)/")
                throw ExitCode(interruption.exitCode)
            }
            if let best = result.bestF1 {
                print("best F1 \(String(format: "%.4f", best.f1 ?? 0)) at \(best.label) "
                      + "(precision \(String(format: "%.4f", best.precision ?? 0)), recall \(String(format: "%.4f", best.recall ?? 0)))")
            }
            if let best = result.bestLiveDead {
                print("best live/dead accuracy \(String(format: "%.4f", best.liveDeadAccuracy ?? 0)) at \(best.label) "
                      + "(viability error \(String(format: "%.2f", best.meanAbsViabilityErrorPoints ?? 0)) points)")
            }
            print("\(result.points.count) settings in \(String(format: "%.1f", result.wallSeconds)) s (resumed at \(result.resumeStage)); "
                  + "sweep.csv, sweep.json, sweep.md in \(out)/")
        } catch let error as CommandInputError {
            printError("cellqa sweep: error: \(error.description)")
            throw ExitCode(RunInputError.exitCode)
        } catch let error as ReportWriteError {
            printError("cellqa sweep: error: \(error.description)")
            throw ExitCode(RunInputError.exitCode)
        }
    }
}
