import JSON
import Vision

/// One stage's timing samples of one fixture (one per repeat), milliseconds.
public struct TimingRecord: Sendable, Equatable {
    public var name: String
    public var wallMs: [Double]
    public var cpuMs: [Double]
    public init(name: String, wallMs: [Double], cpuMs: [Double]) {
        self.name = name
        self.wallMs = wallMs
        self.cpuMs = cpuMs
    }
    public func samples(_ clock: TimingClock) -> [Double] { clock == .wall ? wallMs : cpuMs }
}

/// One step's timing samples inside a stage of one fixture (`PipelineResult.steps`), one per
/// repeat the step ran in; `timing.name` is the step's name.
public struct StepRecord: Sendable, Equatable {
    public var stage: String
    public var timing: TimingRecord
    public init(stage: String, timing: TimingRecord) {
        self.stage = stage
        self.timing = timing
    }
    public var step: String { timing.name }
}

/// What a comparison needs of one fixture: the per-fixture counts every accuracy metric is
/// computed from (so that resampling fixtures recomputes micro metrics exactly), and its timings.
public struct FixtureRecord: Sendable, Equatable {
    public var path: String
    public var status: FixtureStatus
    public var tags: [String]
    public var detection: DetectionCounts
    /// Predicted and labelled total counts (0 when not scored).
    public var predicted: Int
    public var labelled: Int
    /// Matched pairs with a known live/dead label, and how many of them were called right.
    public var classKnown: Int
    public var classCorrect: Int
    /// Detections on a blank control; nil when the fixture is not one.
    public var blankDetections: Int?
    /// Where the pipeline placed the view in the chamber against the label; nil where no
    /// placement was compared (and in reports written before the field existed).
    public var registration: RegistrationComparison?
    public var timings: [TimingRecord]
    /// The timed steps inside stages, in the order they ran; empty in reports written before
    /// steps were recorded.
    public var steps: [StepRecord]

    public init(path: String, status: FixtureStatus, tags: [String] = [], detection: DetectionCounts = DetectionCounts(tp: 0, fp: 0, fn: 0),
                predicted: Int = 0, labelled: Int = 0, classKnown: Int = 0, classCorrect: Int = 0,
                blankDetections: Int? = nil, registration: RegistrationComparison? = nil, timings: [TimingRecord] = [],
                steps: [StepRecord] = []) {
        self.path = path
        self.status = status
        self.tags = tags
        self.detection = detection
        self.predicted = predicted
        self.labelled = labelled
        self.classKnown = classKnown
        self.classCorrect = classCorrect
        self.blankDetections = blankDetections
        self.registration = registration
        self.timings = timings
        self.steps = steps
    }

    public var isScored: Bool { status == .scored }

    /// This fixture's samples of `stage` (one per repeat), milliseconds; "total" sums each
    /// repeat's stages.
    public func samples(stage: String, clock: TimingClock) -> [Double] {
        if stage == StageStatistics.totalName {
            let repeats = timings.map { $0.samples(clock).count }.max() ?? 0
            return (0..<repeats).map { k in
                timings.reduce(0) { sum, t in
                    let s = t.samples(clock)
                    return sum + (k < s.count ? s[k] : 0)
                }
            }
        }
        return timings.first { $0.name == stage }?.samples(clock) ?? []
    }
    /// This fixture's samples of `step` inside `stage`, milliseconds; empty where it did not run.
    public func samples(stage: String, step: String, clock: TimingClock) -> [Double] {
        steps.first { $0.stage == stage && $0.step == step }?.timing.samples(clock) ?? []
    }
    /// Per-fixture F1 (1 when the fixture has neither labels nor detections).
    public var f1: Double { detection.f1 }
    /// |predicted - labelled| / labelled; nil without labelled cells.
    public var absRelCountError: Double? {
        labelled == 0 ? nil : Double(abs(predicted - labelled)) / Double(labelled)
    }
}

/// A run reduced to what baselines, `compare` and `sweep` compare: identities of its inputs
/// and one `FixtureRecord` per fixture, ordered by path. Built from a live `RunReport` or read
/// back from a `report.json` (`RunSnapshot.load`), so both sides of a comparison are the same type.
public struct RunSnapshot: Sendable, Equatable {
    /// Where it came from: a file path, or a label such as "current run".
    public var source: String
    public var toolVersion: String
    public var configHash: String
    public var datasetHash: String
    public var machine: MachineFacts
    public var repeats: Int
    public var fixtures: [FixtureRecord]
    /// False for an interrupted run's report (it holds only the fixtures that finished);
    /// reports written before the field existed count as complete.
    public var complete: Bool

    public init(source: String, toolVersion: String, configHash: String, datasetHash: String, machine: MachineFacts,
                repeats: Int, fixtures: [FixtureRecord], complete: Bool = true) {
        self.complete = complete
        self.source = source
        self.toolVersion = toolVersion
        self.configHash = configHash
        self.datasetHash = datasetHash
        self.machine = machine
        self.repeats = repeats
        self.fixtures = fixtures
    }

    /// Stage names in first-seen order over every fixture, then "total" (the per-sample sum).
    public var stageNames: [String] {
        var names: [String] = []
        for f in fixtures {
            for t in f.timings where !names.contains(t.name) { names.append(t.name) }
        }
        return names.isEmpty ? [] : names + [StageStatistics.totalName]
    }

    /// Every step timed inside a stage by any fixture, in `pipelineStepOrder`.
    public var stepNames: [(stage: String, step: String)] {
        pipelineStepOrder(fixtures.map { $0.steps.map { ($0.stage, $0.step) } }).flatMap { entry in
            entry.steps.map { (entry.stage, $0) }
        }
    }

    /// Every sample of `stage` over the fixtures at `paths` (all when nil), milliseconds.
    /// "total" sums each repeat's stages.
    public func timingSamples(stage: String, clock: TimingClock, paths: Set<String>? = nil) -> [Double] {
        fixtures.filter { paths?.contains($0.path) ?? true }.flatMap { $0.samples(stage: stage, clock: clock) }
    }
}

extension RunSnapshot {
    /// The snapshot of a run that just happened.
    public init(report: RunReport, source: String = "current run") {
        let p = report.provenance
        self.init(source: source, toolVersion: p.toolVersion, configHash: p.configHash, datasetHash: p.datasetHash,
                  machine: p.machine, repeats: report.run.repeats, fixtures: report.outcomes.map(FixtureRecord.init(outcome:)),
                  complete: report.complete)
    }
}

extension FixtureRecord {
    init(outcome o: FixtureOutcome) {
        let s = o.score
        self.init(path: o.fixture.path, status: o.status, tags: o.tags,
                  detection: s?.detection ?? DetectionCounts(tp: 0, fp: 0, fn: 0),
                  predicted: s?.total.predicted ?? 0, labelled: s?.total.labelled ?? 0,
                  classKnown: s?.classes.known ?? 0, classCorrect: s?.classes.correct ?? 0,
                  blankDetections: s?.blankDetections, registration: s?.registration,
                  timings: timingSeries(o.samples).map(\.record), steps: stepSeries(o.stepSamples))
    }
}
