import Vision

/// Timing statistics of one stage over a run, in milliseconds.
public struct StageStatistics: Sendable, Equatable {
    public var name: String
    public var wallMs: SampleSummary
    public var cpuMs: SampleSummary
    /// This stage's share of the summed wall time of all stages (decode included); 1 for the
    /// "total" row.
    public var share: Double

    public func summary(_ clock: TimingClock) -> SampleSummary { clock == .wall ? wallMs : cpuMs }

    /// Name of the row that sums every stage of one fixture run.
    public static let totalName = "total"
}

/// Per-stage statistics over timing samples; each sample is one run of one fixture (decode
/// plus every pipeline stage). Stages appear in first-seen order, then a "total" row whose
/// samples are the per-run sums. Empty input gives no rows.
public func stageStatistics(samples: [[StageTiming]]) -> [StageStatistics] {
    var order: [String] = []
    var wall: [String: [Double]] = [:]
    var cpu: [String: [Double]] = [:]
    var totalWall: [Double] = []
    var totalCPU: [Double] = []
    for sample in samples where !sample.isEmpty {
        var w = 0.0, c = 0.0
        for timing in sample {
            if wall[timing.name] == nil { order.append(timing.name) }
            wall[timing.name, default: []].append(timing.wallSeconds * 1000)
            cpu[timing.name, default: []].append(timing.cpuSeconds * 1000)
            w += timing.wallSeconds
            c += timing.cpuSeconds
        }
        totalWall.append(w * 1000)
        totalCPU.append(c * 1000)
    }
    let grandWall = totalWall.reduce(0, +)
    var rows: [StageStatistics] = []
    for name in order {
        guard let w = SampleSummary(wall[name] ?? []), let c = SampleSummary(cpu[name] ?? []) else { continue }
        rows.append(StageStatistics(name: name, wallMs: w, cpuMs: c, share: grandWall > 0 ? w.sum / grandWall : 0))
    }
    if let w = SampleSummary(totalWall), let c = SampleSummary(totalCPU) {
        rows.append(StageStatistics(name: StageStatistics.totalName, wallMs: w, cpuMs: c, share: 1))
    }
    return rows
}

/// Timing statistics of one step inside a stage over a run (`PipelineResult.steps`),
/// milliseconds.
public struct StepStatistics: Sendable, Equatable {
    public var stage: String
    public var step: String
    /// Over the runs the step ran in (a grid fallback runs only where the search needs it).
    public var wallMs: SampleSummary
    public var cpuMs: SampleSummary
    /// This step's summed wall time over its stage's, over the whole run.
    public var shareOfStage: Double

    public func summary(_ clock: TimingClock) -> SampleSummary { clock == .wall ? wallMs : cpuMs }
}

/// The steps of each stage in pipeline order, from runs that each list the steps they timed
/// in the order they ran. Stages in first-seen order; within a stage a step first seen in a
/// later run goes before the first step already listed that ran after it there (else after the
/// last listed one that ran before it), so a step that runs only on some views keeps its place.
public func pipelineStepOrder(_ runs: [[(stage: String, step: String)]]) -> [(stage: String, steps: [String])] {
    var stageOrder: [String] = []
    var order: [String: [String]] = [:]
    for run in runs {
        for t in run {
            var listed = order[t.stage] ?? []
            if order[t.stage] == nil { stageOrder.append(t.stage) }
            if !listed.contains(t.step) {
                let sameStage = run.filter { $0.stage == t.stage }.map(\.step)
                let at = sameStage.firstIndex(of: t.step) ?? 0
                if let next = sameStage[(at + 1)...].lazy.compactMap({ listed.firstIndex(of: $0) }).first {
                    listed.insert(t.step, at: next)
                } else if let previous = sameStage[..<at].reversed().lazy.compactMap({ listed.firstIndex(of: $0) }).first {
                    listed.insert(t.step, at: previous + 1)
                } else {
                    listed.append(t.step)
                }
            }
            order[t.stage] = listed
        }
    }
    return stageOrder.map { ($0, order[$0] ?? []) }
}

/// Per-step statistics over the runs' timed steps, each sample one fixture run's steps;
/// `stages` are the same runs' stage statistics, for each step's share of its stage. Rows in
/// `pipelineStepOrder`.
public func stepStatistics(steps samples: [[StepTiming]], stages: [StageStatistics]) -> [StepStatistics] {
    var wall: [String: [Double]] = [:], cpu: [String: [Double]] = [:]
    func key(_ stage: String, _ step: String) -> String { stage + "\u{0}" + step }
    for sample in samples {
        for t in sample {
            wall[key(t.stage, t.step), default: []].append(t.wallSeconds * 1000)
            cpu[key(t.stage, t.step), default: []].append(t.cpuSeconds * 1000)
        }
    }
    var rows: [StepStatistics] = []
    for (stage, steps) in pipelineStepOrder(samples.map { $0.map { ($0.stage, $0.step) } }) {
        let stageSum = stages.first { $0.name == stage }?.wallMs.sum ?? 0
        for step in steps {
            guard let w = SampleSummary(wall[key(stage, step)] ?? []), let c = SampleSummary(cpu[key(stage, step)] ?? [])
            else { continue }
            rows.append(StepStatistics(stage: stage, step: step, wallMs: w, cpuMs: c,
                                       shareOfStage: stageSum > 0 ? w.sum / stageSum : 0))
        }
    }
    return rows
}
