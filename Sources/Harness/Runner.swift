import CMalloc
import Dispatch
import Foundation
import Fixtures
import Hemocytometer
import Imaging
import Synchronization
import Vision

/// One fixture to run: an image, its label, or both (paths as the dataset found them).
public struct RunFixture: Sendable, Equatable {
    /// Relative path without extension ("sub/golden01"); reports are ordered by input order,
    /// which callers make the sorted order of ids.
    public var id: String
    /// Path of the image inside the dataset (of the label when there is no image), as reports
    /// show it.
    public var path: String
    public var imagePath: String?
    public var labelPath: String?
    /// Dataset sub-folder of the fixture ("" at the root): the JUnit classname.
    public var group: String
    /// A problem the dataset scan already found (e.g. a label without an image).
    public var problem: String?
    /// The file a message about the fixture names: its image, else its label.
    var messageFile: String { imagePath ?? labelPath ?? path }
    public init(id: String, path: String, imagePath: String?, labelPath: String?, group: String, problem: String? = nil) {
        self.id = id
        self.path = path
        self.imagePath = imagePath
        self.labelPath = labelPath
        self.group = group
        self.problem = problem
    }
}

public enum FixtureStatus: String, Sendable, Equatable {
    /// Labelled and scored.
    case scored
    /// Image without label: run and timed, no accuracy.
    case unlabelled
    /// Could not be run or scored; `error` says why.
    case errored
}

/// Start of one repeat of one fixture, for the trace: seconds since the run started, and the
/// worker that ran it.
public struct RepeatSpan: Sendable, Equatable {
    public var start: Double
    public var worker: Int
    public init(start: Double, worker: Int) {
        self.start = start
        self.worker = worker
    }
}

/// Everything the run learned about one fixture.
public struct FixtureOutcome: Sendable {
    public var fixture: RunFixture
    public var status: FixtureStatus
    public var error: String?
    /// From the label (empty when unlabelled or errored before the label was read).
    public var tags: [String]
    /// The pipeline's output of the first repeat (later repeats only add timings).
    public var result: PipelineResult?
    public var score: FixtureScore?
    /// The label as scored (nil when unlabelled).
    public var truth: GroundTruth?
    /// One entry per repeat: "decode" followed by every pipeline stage.
    public var samples: [[StageTiming]]
    /// One entry per repeat, beside `samples`: the timed steps inside its stages
    /// (`PipelineResult.steps`).
    public var stepSamples: [[StepTiming]]
    public var spans: [RepeatSpan]
    /// Thread CPU time the harness itself spent on this fixture (label reading, checks,
    /// matching, scoring), seconds. CPU rather than wall time, so that the overhead figure does
    /// not depend on how busy the machine is.
    public var harnessCPUSeconds: Double

    public var truthCells: [GroundTruth.Cell] { truth?.cells ?? [] }

    public init(fixture: RunFixture, status: FixtureStatus, error: String? = nil, tags: [String] = [],
                result: PipelineResult? = nil, score: FixtureScore? = nil, truth: GroundTruth? = nil,
                samples: [[StageTiming]] = [], stepSamples: [[StepTiming]] = [], spans: [RepeatSpan] = [],
                harnessCPUSeconds: Double = 0) {
        self.fixture = fixture
        self.status = status
        self.error = error
        self.tags = tags
        self.result = result
        self.score = score
        self.truth = truth
        self.samples = samples
        self.stepSamples = stepSamples
        self.spans = spans
        self.harnessCPUSeconds = harnessCPUSeconds
    }
}

/// How a run executes.
public struct RunSettings: Sendable {
    /// Workers (>= 1), each running one fixture at a time on its own serial Dispatch queue
    /// (`RunResult.workersUsed` says how many ran a fixture). Memory grows with this number,
    /// not with the number of fixtures.
    public var jobs: Int
    /// Pipeline runs per fixture (>= 1); every timing sample is kept.
    public var repeats: Int
    public var matchRule: MatchRule
    public var decodeOptions: DecodeOptions
    /// Wall-time limit of one fixture (label reading, decode, pipeline, scoring), seconds;
    /// with `repeats` K the fixture gets K times the limit. nil: no limit. A fixture over its
    /// limit is recorded as errored ("time limit of N s exceeded") and the run goes on.
    public var fixtureTimeLimit: Double?
    public init(jobs: Int = RunSettings.defaultJobs, repeats: Int = 1, matchRule: MatchRule = .standard,
                decodeOptions: DecodeOptions = DecodeOptions(),
                fixtureTimeLimit: Double? = RunSettings.defaultFixtureTimeLimit) {
        self.jobs = max(1, jobs)
        self.repeats = max(1, repeats)
        self.matchRule = matchRule
        self.decodeOptions = decodeOptions
        self.fixtureTimeLimit = fixtureTimeLimit.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
    }
    /// The number of cores the process may use.
    public static var defaultJobs: Int { max(1, availableCores()) }
    /// Generous: a 12-megapixel fixture takes a few seconds; only a runaway one gets near.
    public static let defaultFixtureTimeLimit: Double? = 300
}

/// Run-level facts.
public struct RunResult: Sendable {
    /// In input order, whatever the completion order.
    public var outcomes: [FixtureOutcome]
    public var wallSeconds: Double
    public var jobs: Int
    public var repeats: Int
    /// Fixtures selected for the run; `outcomes` holds fewer when the run was interrupted.
    public var selectedCount: Int
    /// Why the run stopped early; nil when every selected fixture finished.
    public var interruption: RunInterruption?
    /// Every selected fixture finished (not interrupted).
    public var complete: Bool { interruption == nil }
    /// Distinct workers that ran at least one fixture.
    public var workersUsed: Int { Set(outcomes.flatMap { $0.spans.map(\.worker) }).count }
    /// Peak resident memory of the process at the end of the run, bytes.
    public var peakRSSBytes: Int
    public var fixturesPerSecond: Double { wallSeconds > 0 ? Double(outcomes.count) / wallSeconds : 0 }

    public init(outcomes: [FixtureOutcome], wallSeconds: Double, jobs: Int, repeats: Int, peakRSSBytes: Int,
                selectedCount: Int? = nil, interruption: RunInterruption? = nil) {
        self.outcomes = outcomes
        self.selectedCount = selectedCount ?? outcomes.count
        self.interruption = interruption
        self.wallSeconds = wallSeconds
        self.jobs = jobs
        self.repeats = repeats
        self.peakRSSBytes = peakRSSBytes
    }
}

/// Receives progress from the workers (called concurrently; implementations synchronise).
public protocol ProgressSink: Sendable {
    func fixtureFinished(done: Int, total: Int)
    func runFinished(total: Int)
}

/// Runs `pipeline` over `fixtures` on `settings.jobs` Dispatch workers.
///
/// Memory stays bounded: a worker decodes, runs, scores and drops one image before taking
/// the next fixture, so about `jobs` images are alive (plus any abandoned at a time limit
/// until they stop; see `superviseItems`). Results go to slots by fixture index, so the
/// output order never depends on completion order. A fixture that fails (label error,
/// decode error, size mismatch, pipeline error, time limit) is recorded as errored with its
/// message; the run goes on.
///
/// With `cancellation`, a cancelled run starts no more fixtures; the result then holds the
/// fixtures that finished (in input order) and the interruption.
public func runFixtures(_ fixtures: [RunFixture], pipeline: Pipeline, settings: RunSettings,
                        progress: (any ProgressSink)? = nil, cancellation: RunCancellation? = nil) -> RunResult {
    let runStart = StageClock.wall()
    let workers = min(settings.jobs, max(1, fixtures.count))
    let slots = superviseItems(
        count: fixtures.count, workers: workers, timeLimit: settings.fixtureTimeLimit.map { $0 * Double(settings.repeats) },
        cancellation: cancellation,
        work: { index, worker, check in
            guard let outcome = runFixture(fixtures[index], pipeline: pipeline, settings: settings, worker: worker,
                                           runStart: runStart, check: check) else { return .interrupted }
            return .finished(outcome)
        },
        timedOut: { index, check in timedOutOutcome(fixtures[index], check: check) },
        finished: { done in progress?.fixtureFinished(done: done, total: fixtures.count) })
    let wall = StageClock.wall() - runStart
    progress?.runFinished(total: fixtures.count)
    let interruption = slots.contains { $0 == nil } ? cancellation?.interruption : nil
    let peak = peakResidentBytes()
    releaseWorkersMemory()
    return RunResult(outcomes: slots.compactMap { $0 }, wallSeconds: wall, jobs: workers, repeats: settings.repeats,
                     peakRSSBytes: peak, selectedCount: fixtures.count, interruption: interruption)
}

/// Gives the workers' free heap memory back once they are done: each worker's malloc arena
/// keeps its last image's planes (the `cellqa` command has each heap keep 64 MiB free, and the
/// main heap up to 1 GiB), which the report, built on another thread, cannot reuse.
func releaseWorkersMemory() {
    _ = cq_release_free_memory()
}

/// The record of a fixture whose work was still running at its time limit.
func timedOutOutcome(_ fixture: RunFixture, check: FixtureStopCheck) -> FixtureOutcome {
    FixtureOutcome(fixture: fixture, status: .errored, error: abandonedMessage(fixture, check: check))
}

/// Why a fixture whose work was still running at its time limit was given up (a run's or a
/// sweep's).
func abandonedMessage(_ fixture: RunFixture, check: FixtureStopCheck) -> String {
    "\(fixture.messageFile): \(FixtureStopCheck.Reason.timeLimit(seconds: check.limitSeconds).message) "
        + "(a stage did not return; abandoned, its result discarded)"
}

/// Runs and scores one fixture on the calling thread.
/// - Parameter check: consulted before each decode and pipeline stage.
/// - Returns: nil when `check` reported the run interrupted (the fixture did not finish).
func runFixture(_ fixture: RunFixture, pipeline: Pipeline, settings: RunSettings, worker: Int,
                runStart: Double, check: FixtureStopCheck = FixtureStopCheck()) -> FixtureOutcome? {
    var outcome = FixtureOutcome(fixture: fixture, status: .errored, error: nil, tags: [], result: nil, score: nil,
                                 truth: nil, samples: [], spans: [], harnessCPUSeconds: 0)
    var harnessStart = StageClock.threadCPU()
    if let problem = fixture.problem {
        outcome.error = problem
        return outcome
    }
    var label: Label?
    if let labelPath = fixture.labelPath {
        do {
            let loaded = try Label.load(path: labelPath)
            label = loaded
            outcome.tags = loaded.tags
        } catch {
            outcome.error = error.description
            outcome.harnessCPUSeconds = StageClock.threadCPU() - harnessStart
            return outcome
        }
    }
    outcome.harnessCPUSeconds += StageClock.threadCPU() - harnessStart
    guard let imagePath = fixture.imagePath else {
        outcome.error = "\(fixture.labelPath ?? fixture.id): label without an image"
        return outcome
    }

    for repeatIndex in 0..<settings.repeats {
        if let reason = check.reason() {
            if reason == .interrupted { return nil }
            outcome.error = "\(imagePath): \(reason.message)"
            return outcome
        }
        let start = StageClock.wall()
        outcome.spans.append(RepeatSpan(start: start - runStart, worker: worker))
        let cpu0 = StageClock.threadCPU()
        let image: Image
        do {
            image = try Image.decode(file: imagePath, options: settings.decodeOptions)
        } catch {
            outcome.error = error.description
            return outcome
        }
        let decode = StageTiming(name: "decode", wallSeconds: StageClock.wall() - start,
                                 cpuSeconds: StageClock.threadCPU() - cpu0)
        if repeatIndex == 0, let label, let labelPath = fixture.labelPath {
            harnessStart = StageClock.threadCPU()
            let problems = label.check(imageWidth: image.width, imageHeight: image.height, file: labelPath,
                                       viewerTurn: swappingViewerTurn(ofExifOrientation: image.exifOrientation))
            outcome.harnessCPUSeconds += StageClock.threadCPU() - harnessStart
            if !problems.isEmpty {
                outcome.error = problems.map(\.description).joined(separator: "\n")
                return outcome
            }
        }
        do {
            let result = try pipeline.run(image, shouldStop: { check.reason()?.message })
            outcome.samples.append([decode] + result.timings)
            outcome.stepSamples.append(result.steps)
            if repeatIndex == 0 { outcome.result = result }
        } catch let stop as PipelineStopped {
            if check.reason() == .interrupted { return nil }
            outcome.error = "\(imagePath): \(stop.description)"
            return outcome
        } catch {
            outcome.error = "\(imagePath): pipeline failed: \(error)"
            return outcome
        }
    }

    guard let label, let result = outcome.result else {
        outcome.status = .unlabelled
        return outcome
    }
    harnessStart = StageClock.threadCPU()
    let config = pipeline.config
    let countSettings = CountSettings(squares: config.countedSquares, madCut: config.madCut, dilution: label.dilution,
                                      overcrowdedPerSquare: config.overcrowdedPerSquare,
                                      sparsePerSquare: config.sparsePerSquare)
    let truth = GroundTruth(label: label)
    outcome.truth = truth
    outcome.score = scoreFixture(result: result, truth: truth, rule: settings.matchRule, countSettings: countSettings,
                                 pipelineDilution: config.dilution)
    outcome.status = .scored
    outcome.harnessCPUSeconds += StageClock.threadCPU() - harnessStart
    return outcome
}

/// Cores this process may use (Foundation reads the scheduler affinity on Linux).
public func availableCores() -> Int {
    max(1, ProcessInfo.processInfo.activeProcessorCount)
}
