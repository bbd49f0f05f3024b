import Fixtures
import Hemocytometer
import Imaging
import JSON
import Vision

/// One setting's accuracy over the sweep's fixtures.
public struct SweepPoint: Sendable {
    public var label: String
    public var values: [(key: String, value: SweepValue)]
    public var configHash: String
    public var detection: DetectionCounts
    public var precision: Double? { detection.precision }
    public var recall: Double? { detection.recall }
    /// Micro F1.
    public var f1: Double? { detection.f1 }
    /// Mean |predicted - labelled| / labelled over fixtures with labelled cells.
    public var meanAbsRelCountError: Double?
    /// Live/dead calls of the matched cells, summed over the fixtures: what the classify keys
    /// (`refractileContrast`, `deadDarkContrast`, the hue band ...) move, where F1 hardly does.
    public var classes = ClassConfusion()
    public var liveDeadAccuracy: Double? { classes.accuracy }
    /// Mean |viability error| over fixtures with labelled cells, percentage points.
    public var meanAbsViabilityErrorPoints: Double?
    /// Fixtures whose placement in the chamber was compared with the label's, and of them those
    /// placed more than `RegistrationComparison.toleranceUm` off, as in a run's summary.
    public var registeredFixtures: Int = 0
    public var misplacedFixtures: Int = 0
    public var scored: Int
    public var errored: Int
}

/// A whole sweep: one point per setting, in grid order.
public struct SweepResult: Sendable {
    public var axes: [SweepAxis]
    public var points: [SweepPoint]
    /// The stage every setting resumed from ("normalize" = nothing reused but the decode).
    public var resumeStage: String
    public var fixtures: Int
    public var datasetHash: String
    public var wallSeconds: Double
    /// Why the sweep stopped early (a signal); nil when every fixture was run.
    public var interruption: RunInterruption? = nil
    /// Fixtures run to the end, errored ones included (fewer than `fixtures` when interrupted).
    public var fixturesRun: Int = 0
    /// Why each errored fixture failed, in input order: one entry per fixture, naming the file
    /// (a fixture that failed under only some settings names them).
    public var errors: [SweepError] = []
    public var complete: Bool { interruption == nil }

    /// The point with the highest F1 (ties: the lower count error, then the earlier setting).
    public var bestF1: SweepPoint? { best(by: \.f1, thenLowest: \.meanAbsRelCountError) }

    /// The point with the highest live/dead accuracy (ties: the lower viability error, then the
    /// earlier setting), when the settings' accuracies differ: the sweep of a classify key, whose
    /// best F1 says little. Nil when every setting calls the cells alike or none has matched cells.
    public var bestLiveDead: SweepPoint? {
        guard Set(points.compactMap(\.liveDeadAccuracy)).count > 1 else { return nil }
        return best(by: \.liveDeadAccuracy, thenLowest: \.meanAbsViabilityErrorPoints)
    }

    /// The point with the highest `figure` (undefined lowest), ties broken by the lowest
    /// `tieBreak` (undefined highest), then by the earlier setting.
    private func best(by figure: (SweepPoint) -> Double?, thenLowest tieBreak: (SweepPoint) -> Double?) -> SweepPoint? {
        points.enumerated().max { x, y in
            let (a, b) = (figure(x.element) ?? -1, figure(y.element) ?? -1)
            if a != b { return a < b }
            let (c, d) = (tieBreak(x.element) ?? .infinity, tieBreak(y.element) ?? .infinity)
            if c != d { return c > d }
            return x.offset > y.offset
        }?.element
    }

    /// The precision-recall curve: points with both defined, by increasing recall (then precision).
    public var precisionRecallCurve: [(recall: Double, precision: Double, label: String)] {
        points.compactMap { p in p.recall.flatMap { r in p.precision.map { (r, $0, p.label) } } }
            .sorted { ($0.recall, $0.precision) < ($1.recall, $1.precision) }
    }
}

/// A fixture the sweep could not score: its dataset path and the message that names the file.
public struct SweepError: Sendable, Equatable {
    public var path: String
    public var message: String
}

/// One fixture under every setting (nil cells: errored) and, when any failed, why.
private struct SweepFixtureRun: Sendable {
    var cells: [SweepCell?]
    var error: String?
}

/// Per-fixture tallies of one setting.
private struct SweepCell: Sendable {
    var detection = DetectionCounts(tp: 0, fp: 0, fn: 0)
    var absRelCountError: Double?
    var classes = ClassConfusion()
    var viabilityErrorPoints: Double?
    var registration: RegistrationComparison?
    var scored = false
}

/// Runs every setting over `fixtures` (labelled fixtures only count; unlabelled ones are
/// skipped). Each image is decoded once per fixture. When every swept key is in
/// `sweepResumeStage`, the stages before the earliest of them run once per fixture and each
/// setting resumes from a copy of that frame; otherwise each setting runs the whole pipeline.
/// Workers: `settings.jobs`, one fixture at a time each (memory: one image and one saved frame
/// per worker), supervised as `runDataset` supervises a run's: a fixture over its time limit
/// (`settings.fixtureTimeLimit` for each setting) counts as errored under every setting, and
/// after `cancellation` no fixture starts and the result covers the fixtures run so far.
public func runSweep(_ fixtures: [RunFixture], axes: [SweepAxis], sweep: [SweepSetting], settings: RunSettings,
                     datasetHash: String, progress: (any ProgressSink)? = nil,
                     cancellation: RunCancellation? = nil) -> SweepResult {
    let start = StageClock.wall()
    let stages = Pipeline(config: sweep.first?.config ?? PipelineConfig()).stages
    let keyStages = axes.map { sweepResumeStage[$0.key] }
    let resume = !keyStages.isEmpty && keyStages.allSatisfy({ $0 != nil })
        ? keyStages.compactMap { name in stages.firstIndex { $0.name == name } }.min() ?? 0 : 0
    let runs = superviseItems(
        count: fixtures.count, workers: min(settings.jobs, max(1, fixtures.count)),
        timeLimit: settings.fixtureTimeLimit.map { $0 * Double(max(1, sweep.count)) }, cancellation: cancellation,
        work: { index, _, check in
            sweepFixture(fixtures[index], sweep: sweep, stages: stages, resume: resume, settings: settings, check: check)
        },
        timedOut: { index, check in
            SweepFixtureRun(cells: [SweepCell?](repeating: nil, count: sweep.count), error: abandonedMessage(fixtures[index], check: check))
        },
        finished: { done in progress?.fixtureFinished(done: done, total: fixtures.count) })
    progress?.runFinished(total: fixtures.count)
    let outcomes = runs.compactMap { $0 }
    var points: [SweepPoint] = []
    for (s, setting) in sweep.enumerated() {
        let cells = outcomes.compactMap { $0.cells[s] }.filter(\.scored)
        let placements = RegistrationComparison.tally(cells.compactMap(\.registration))
        points.append(SweepPoint(label: setting.label, values: setting.values, configHash: setting.config.configHash,
                                 detection: cells.reduce(DetectionCounts(tp: 0, fp: 0, fn: 0)) { $0 + $1.detection },
                                 meanAbsRelCountError: Statistics.mean(cells.compactMap(\.absRelCountError)),
                                 classes: cells.reduce(ClassConfusion()) { $0 + $1.classes },
                                 meanAbsViabilityErrorPoints: Statistics.mean(cells.compactMap { $0.viabilityErrorPoints?.magnitude }),
                                 registeredFixtures: placements.registered, misplacedFixtures: placements.misplaced,
                                 scored: cells.count, errored: outcomes.filter { $0.cells[s] == nil }.count))
    }
    let run = outcomes.count
    let errors = zip(fixtures, runs).compactMap { fixture, outcome in
        outcome?.error.map { SweepError(path: fixture.path, message: $0) }
    }
    return SweepResult(axes: axes, points: points, resumeStage: stages[resume].name, fixtures: fixtures.count,
                       datasetHash: datasetHash, wallSeconds: StageClock.wall() - start,
                       interruption: run < fixtures.count ? cancellation?.interruption : nil, fixturesRun: run,
                       errors: errors)
}

/// One fixture under every setting: nil cells = errored, with the reason; unlabelled fixtures
/// give unscored cells. `check` is consulted before the decode and at every stage boundary:
/// past the time limit the fixture is errored under every setting; when the sweep is
/// interrupted it is not a result.
private func sweepFixture(_ fixture: RunFixture, sweep: [SweepSetting], stages: [any Stage], resume: Int,
                          settings: RunSettings, check: FixtureStopCheck) -> WorkEnd<SweepFixtureRun> {
    func failed(_ message: String) -> WorkEnd<SweepFixtureRun> {
        .finished(SweepFixtureRun(cells: [SweepCell?](repeating: nil, count: sweep.count), error: message))
    }
    func stopped() -> WorkEnd<SweepFixtureRun>? {
        switch check.reason() {
        case .interrupted: return .interrupted
        case let reason?: return failed("\(fixture.messageFile): \(reason.message)")
        case nil: return nil
        }
    }
    if let stop = stopped() { return stop }
    if let problem = fixture.problem { return failed(problem) }
    guard let imagePath = fixture.imagePath else { return failed("\(fixture.messageFile): label without an image") }
    guard let labelPath = fixture.labelPath else {
        return .finished(SweepFixtureRun(cells: [SweepCell?](repeating: SweepCell(), count: sweep.count), error: nil))
    }
    guard let first = sweep.first else { return .finished(SweepFixtureRun(cells: [], error: nil)) }
    let label: Label, image: Image
    do { label = try Label.load(path: labelPath) } catch { return failed(error.description) }
    do { image = try Image.decode(file: imagePath, options: settings.decodeOptions) } catch { return failed(error.description) }
    let problems = label.check(imageWidth: image.width, imageHeight: image.height, file: labelPath,
                               viewerTurn: swappingViewerTurn(ofExifOrientation: image.exifOrientation))
    if !problems.isEmpty { return failed(problems.map(\.description).joined(separator: "\n")) }
    let truth = GroundTruth(label: label)
    var prefix = Frame(image: image, config: first.config)
    do {
        for stage in stages[..<resume] {
            if let stop = stopped() { return stop }
            try stage.run(&prefix)
        }
    } catch {
        return failed("\(imagePath): pipeline failed: \(error)")
    }
    var out: [SweepCell?] = []
    out.reserveCapacity(sweep.count)
    var failures: [String] = []
    for setting in sweep {
        var frame = Frame(image: image, config: setting.config)
        copyStageOutputs(from: prefix, to: &frame)
        do {
            for stage in stages[resume...] {
                if let stop = stopped() { return stop }
                try stage.run(&frame)
            }
        } catch {
            out.append(nil)
            failures.append("\(imagePath): pipeline failed at \(setting.label): \(error)")
            continue
        }
        let result = pipelineResult(frame)
        let config = setting.config
        let countSettings = CountSettings(squares: config.countedSquares, madCut: config.madCut, dilution: label.dilution,
                                          overcrowdedPerSquare: config.overcrowdedPerSquare, sparsePerSquare: config.sparsePerSquare)
        let score = scoreFixture(result: result, truth: truth, rule: settings.matchRule, countSettings: countSettings,
                                 pipelineDilution: config.dilution)
        out.append(SweepCell(detection: score.detection, absRelCountError: score.total.absRelativeError,
                             classes: score.classes, viabilityErrorPoints: score.viabilityErrorPoints,
                             registration: score.registration, scored: true))
    }
    return .finished(SweepFixtureRun(cells: out, error: failures.isEmpty ? nil : failures.joined(separator: "\n")))
}

/// Everything the stages have written so far (the frame's `image` and `config` stay the target's).
private func copyStageOutputs(from source: Frame, to frame: inout Frame) {
    frame.scale = source.scale
    frame.luminance = source.luminance
    frame.flat = source.flat
    frame.minRadius = source.minRadius
    frame.maxRadius = source.maxRadius
    frame.grid = source.grid
    frame.candidates = source.candidates
    frame.detections = source.detections
    frame.count = source.count
    frame.focusScore = source.focusScore
    frame.glareRatio = source.glareRatio
    frame.isGreyscale = source.isGreyscale
    frame.flags = source.flags
}

/// The pipeline's result from a finished frame (as `Pipeline.run` builds it; timings are not swept).
private func pipelineResult(_ frame: Frame) -> PipelineResult {
    let count = frame.count ?? ChamberCount(total: frame.detections.count, live: 0, dead: 0, squares: [], meanPerSquare: nil,
                                            concentrationPerML: nil, viabilityPercent: nil, flags: [])
    var flags = frame.flags
    for f in count.flags where !flags.contains(f) { flags.append(f) }
    return PipelineResult(width: frame.image.width, height: frame.image.height, detections: frame.detections,
                          grid: frame.grid?.result, count: count, focusScore: frame.focusScore, glareRatio: frame.glareRatio,
                          flags: flags, timings: [])
}
