import Dispatch
import Fixtures
import Hemocytometer
import Imaging
import JSON
import Synchronization
import Vision

/// One setting's accuracy over the sweep's fixtures.
public struct SweepPoint: Sendable {
    public var label: String
    public var values: [(key: String, value: Double)]
    public var configHash: String
    public var detection: DetectionCounts
    public var precision: Double? { detection.precision }
    public var recall: Double? { detection.recall }
    /// Micro F1.
    public var f1: Double? { detection.f1 }
    /// Mean |predicted - labelled| / labelled over fixtures with labelled cells.
    public var meanAbsRelCountError: Double?
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

    /// The point with the highest F1 (ties: the lower count error, then the earlier setting).
    public var bestF1: SweepPoint? {
        points.enumerated().max { x, y in
            let (a, b) = (x.element, y.element)
            if (a.f1 ?? -1) != (b.f1 ?? -1) { return (a.f1 ?? -1) < (b.f1 ?? -1) }
            if (a.meanAbsRelCountError ?? .infinity) != (b.meanAbsRelCountError ?? .infinity) {
                return (a.meanAbsRelCountError ?? .infinity) > (b.meanAbsRelCountError ?? .infinity)
            }
            return x.offset > y.offset
        }?.element
    }

    /// The precision-recall curve: points with both defined, by increasing recall (then precision).
    public var precisionRecallCurve: [(recall: Double, precision: Double, label: String)] {
        points.compactMap { p in p.recall.flatMap { r in p.precision.map { (r, $0, p.label) } } }
            .sorted { ($0.recall, $0.precision) < ($1.recall, $1.precision) }
    }
}

/// Per-fixture tallies of one setting.
private struct SweepCell: Sendable {
    var detection = DetectionCounts(tp: 0, fp: 0, fn: 0)
    var absRelCountError: Double?
    var scored = false
}

/// Runs every setting over `fixtures` (labelled fixtures only count; unlabelled ones are
/// skipped). Each image is decoded once per fixture. When every swept key is in
/// `sweepResumeStage`, the stages before the earliest of them run once per fixture and each
/// setting resumes from a copy of that frame; otherwise each setting runs the whole pipeline.
/// Workers: `settings.jobs`, one fixture at a time each (memory: one image and one saved frame per worker).
public func runSweep(_ fixtures: [RunFixture], axes: [SweepAxis], sweep: [SweepSetting], settings: RunSettings,
                     datasetHash: String, progress: (any ProgressSink)? = nil) -> SweepResult {
    let start = StageClock.wall()
    let stages = Pipeline(config: sweep.first?.config ?? PipelineConfig()).stages
    let keyStages = axes.map { sweepResumeStage[$0.key] }
    let resume = !keyStages.isEmpty && keyStages.allSatisfy({ $0 != nil })
        ? keyStages.compactMap { name in stages.firstIndex { $0.name == name } }.min() ?? 0 : 0
    let slots = Mutex([[SweepCell]](repeating: [SweepCell](repeating: SweepCell(), count: fixtures.count), count: sweep.count))
    let errors = Mutex([Int](repeating: 0, count: sweep.count))
    let next = Atomic<Int>(0), done = Atomic<Int>(0)
    let workers = min(settings.jobs, max(1, fixtures.count))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            if index >= fixtures.count { break }
            let cells = sweepFixture(fixtures[index], sweep: sweep, stages: stages, resume: resume, settings: settings)
            slots.withLock { all in
                for (s, cell) in cells.enumerated() { all[s][index] = cell ?? SweepCell() }
            }
            errors.withLock { e in
                for (s, cell) in cells.enumerated() where cell == nil { e[s] += 1 }
            }
            progress?.fixtureFinished(done: done.wrappingAdd(1, ordering: .relaxed).newValue, total: fixtures.count)
        }
    }
    progress?.runFinished(total: fixtures.count)
    let table = slots.withLock { $0 }
    let errored = errors.withLock { $0 }
    var points: [SweepPoint] = []
    for (s, setting) in sweep.enumerated() {
        let cells = table[s].filter(\.scored)
        points.append(SweepPoint(label: setting.label, values: setting.values, configHash: setting.config.configHash,
                                 detection: cells.reduce(DetectionCounts(tp: 0, fp: 0, fn: 0)) { $0 + $1.detection },
                                 meanAbsRelCountError: Statistics.mean(cells.compactMap(\.absRelCountError)),
                                 scored: cells.count, errored: errored[s]))
    }
    return SweepResult(axes: axes, points: points, resumeStage: stages[resume].name, fixtures: fixtures.count,
                       datasetHash: datasetHash, wallSeconds: StageClock.wall() - start)
}

/// One fixture under every setting: nil entries = errored; unlabelled fixtures give unscored cells.
private func sweepFixture(_ fixture: RunFixture, sweep: [SweepSetting], stages: [any Stage], resume: Int,
                          settings: RunSettings) -> [SweepCell?] {
    let failed = [SweepCell?](repeating: nil, count: sweep.count)
    guard fixture.problem == nil, let imagePath = fixture.imagePath else { return failed }
    guard let labelPath = fixture.labelPath else { return [SweepCell?](repeating: SweepCell(), count: sweep.count) }
    guard let label = try? Label.load(path: labelPath),
          let image = try? Image.decode(file: imagePath, options: settings.decodeOptions),
          label.check(imageWidth: image.width, imageHeight: image.height, file: labelPath).isEmpty,
          let first = sweep.first else { return failed }
    let truth = GroundTruth(label: label)
    var prefix = Frame(image: image, config: first.config)
    do {
        for stage in stages[..<resume] { try stage.run(&prefix) }
    } catch {
        return failed
    }
    var out: [SweepCell?] = []
    out.reserveCapacity(sweep.count)
    for setting in sweep {
        var frame = Frame(image: image, config: setting.config)
        copyStageOutputs(from: prefix, to: &frame)
        do {
            for stage in stages[resume...] { try stage.run(&frame) }
        } catch {
            out.append(nil)
            continue
        }
        let result = pipelineResult(frame)
        let config = setting.config
        let countSettings = CountSettings(squares: config.countedSquares, madCut: config.madCut, dilution: label.dilution,
                                          overcrowdedPerSquare: config.overcrowdedPerSquare, sparsePerSquare: config.sparsePerSquare)
        let score = scoreFixture(result: result, truth: truth, rule: settings.matchRule, countSettings: countSettings,
                                 pipelineDilution: config.dilution)
        out.append(SweepCell(detection: score.detection, absRelCountError: score.total.absRelativeError, scored: true))
    }
    return out
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
