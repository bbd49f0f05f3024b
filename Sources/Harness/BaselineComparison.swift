/// The outcome of comparing one metric or stage with the baseline.
public enum Verdict: String, Sendable, Equatable {
    case improved
    case unchanged
    case regressed
    /// Not judged: undefined on one side, or timings from different machines.
    case notCompared = "not-compared"

    /// ▲ better, ▼ worse, = unchanged, · not compared.
    public var arrow: String {
        switch self {
        case .improved: return "▲"
        case .regressed: return "▼"
        case .unchanged: return "="
        case .notCompared: return "·"
        }
    }
}

/// One accuracy metric, baseline against current, over the fixtures scored in both.
public struct MetricComparison: Sendable, Equatable {
    public var metric: ComparedMetric
    /// "all" or "tag:<tag>".
    public var scope: String
    public var baseline: Double?
    public var current: Double?
    /// current - baseline.
    public var difference: Double?
    /// Paired bootstrap interval of the difference (resampling fixtures).
    public var interval: BootstrapInterval?
    public var tolerance: Tolerance
    public var verdict: Verdict
    /// Why, in one line.
    public var detail: String
    public var label: String { scope == "all" ? metric.rawValue : "\(metric.rawValue) [\(scope)]" }
}

/// One stage's (or the total's, or one step's inside a stage) timings, baseline against current.
public struct StageComparison: Sendable, Equatable {
    public var stage: String
    /// The step inside `stage` (`PipelineResult.steps`); nil for a stage's own row.
    public var step: String? = nil
    public var clock: TimingClock
    public var baselineMedianMs: Double?
    public var currentMedianMs: Double?
    /// current median / baseline median.
    public var ratio: Double?
    public var mannWhitney: MannWhitneyResult?
    public var baselineSamples: Int
    public var currentSamples: Int
    public var verdict: Verdict
    public var detail: String
}

/// Everything a run learned from its baseline.
public struct BaselineComparison: Sendable, Equatable {
    public var baselineSource: String
    public var baselineConfigHash: String
    public var currentConfigHash: String
    /// Fixtures scored in both runs (the paired sample of the bootstrap).
    public var pairedFixtures: Int
    /// Fixtures present in only one of the runs, or scored in only one.
    public var unpairedFixtures: [String]
    public var metrics: [MetricComparison]
    public var stages: [StageComparison]
    /// The steps inside stages, judged by the same rule (with alpha divided over the steps) to
    /// say where a stage's change lies. They do not gate: a step can move while its stage,
    /// the time a user waits for, does not. Empty when either run has no step timings.
    public var steps: [StageComparison] = []
    /// Whether timings were judged (same machine, or forced); `timingNote` says why not.
    public var timingsCompared: Bool
    public var timingNote: String
    public var policy: BaselinePolicy

    public var regressions: [String] {
        metrics.filter { $0.verdict == .regressed }.map(\.label)
            + stages.filter { $0.verdict == .regressed }.map { "time:\($0.stage)" }
    }
    public var improvements: [String] {
        metrics.filter { $0.verdict == .improved }.map(\.label)
            + stages.filter { $0.verdict == .improved }.map { "time:\($0.stage)" }
    }
    public var hasRegression: Bool { !regressions.isEmpty }
    public var onlyImprovements: Bool { regressions.isEmpty && !improvements.isEmpty }
}

/// Exit codes of `cellqa run --baseline` and `cellqa compare`.
public enum ComparisonExitCode {
    public static let success: Int32 = 0
    public static let gateFailed: Int32 = 1
    public static let inputError: Int32 = 2
    public static let regression: Int32 = 3
    public static let onlyImprovements: Int32 = 4

    /// Precedence: a failed acceptance gate (1) over a regression (3) over improvements
    /// reported with `failOnImprovement` (4); otherwise 0. (2 is decided before any run.)
    public static func code(gatesPassed: Bool, comparison: BaselineComparison?, failOnImprovement: Bool) -> Int32 {
        if !gatesPassed { return gateFailed }
        guard let comparison else { return success }
        if comparison.hasRegression { return regression }
        if failOnImprovement && comparison.onlyImprovements { return onlyImprovements }
        return success
    }
}

/// Refusal to compare runs of different inputs.
public struct BaselineMismatchError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Compares `current` with `baseline` under `policy`.
///
/// Accuracy: fixtures are paired by path (scored in both); each metric's difference gets a
/// paired percentile bootstrap interval (`policy.resamples` resamples of the fixtures, fixed
/// seed). Regressed = the worsening exceeds the tolerance AND the whole interval lies on the
/// worse side of 0; improved symmetrically; otherwise unchanged.
///
/// Timings (judged when both runs come from the same CPU model and core count, or when
/// `compareTimings` is true): per stage and total, every sample of the paired fixtures on
/// `policy.timingClock`, relative to its fixture's baseline median (`compareStageTimings`).
/// A change of the median ratio below the noise floor (or of the median below the noise floor
/// in milliseconds) is unchanged; regressed = ratio > 1 +
/// tolerance AND Mann-Whitney p < alpha / (number of stages); improved symmetrically. The
/// division (Bonferroni) makes alpha the chance of any false verdict in a whole comparison,
/// not per stage: with nine stages at 0.01 each, one identical re-run in eleven would
/// otherwise show a "regression".
/// - Throws: `BaselineMismatchError` when the dataset content hashes differ and
///   `allowDatasetChange` is false.
public func compareWithBaseline(_ baseline: RunSnapshot, _ current: RunSnapshot, policy: BaselinePolicy,
                                compareTimings: Bool? = nil,
                                allowDatasetChange: Bool = false) throws(BaselineMismatchError) -> BaselineComparison {
    if baseline.datasetHash != current.datasetHash && !allowDatasetChange {
        throw BaselineMismatchError("the dataset changed since the baseline \(baseline.source) was recorded "
                                    + "(content hash \(baseline.datasetHash) there, \(current.datasetHash) now); "
                                    + "re-record it (cellqa run --record) or pass --allow-dataset-change")
    }
    let currentByPath = Dictionary(current.fixtures.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
    var a: [FixtureRecord] = [], b: [FixtureRecord] = []
    var unpaired: [String] = []
    for f in baseline.fixtures {
        if let g = currentByPath[f.path], f.isScored && g.isScored {
            a.append(f)
            b.append(g)
        } else {
            unpaired.append(f.path)
        }
    }
    let baselinePaths = Set(baseline.fixtures.map(\.path))
    for g in current.fixtures where !baselinePaths.contains(g.path) { unpaired.append(g.path) }
    unpaired.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }

    var metrics: [MetricComparison] = []
    let all = Array(a.indices)
    for metric in ComparedMetric.allCases {
        metrics.append(compareMetric(metric, scope: "all", a, b, subset: all, tolerance: policy.tolerance(metric), policy: policy))
    }
    for (tag, tolerances) in policy.tagTolerances {
        let subset = a.indices.filter { a[$0].tags.contains(tag) }
        for metric in ComparedMetric.allCases {
            guard let tolerance = tolerances[metric] else { continue }
            metrics.append(compareMetric(metric, scope: "tag:\(tag)", a, b, subset: subset, tolerance: tolerance, policy: policy))
        }
    }

    let sameMachine = baseline.machine.cpuModel == current.machine.cpuModel && baseline.machine.cores == current.machine.cores
    let timed = compareTimings ?? sameMachine
    let note: String
    if timed {
        note = sameMachine ? "same machine type (\(current.machine.cpuModel), \(current.machine.cores) cores)"
                           : "forced with --compare-timings across different machines"
    } else {
        note = compareTimings == false ? "timings not compared (--no-compare-timings)"
            : "timings not compared: baseline from \(baseline.machine.cpuModel) (\(baseline.machine.cores) cores), "
              + "this run on \(current.machine.cpuModel) (\(current.machine.cores) cores); --compare-timings forces it"
    }
    var stages: [StageComparison] = []
    var names = baseline.stageNames
    for n in current.stageNames where !names.contains(n) { names.append(n) }
    // One test per stage: Bonferroni keeps the run's family-wise false-alarm rate at alpha.
    let alpha = policy.timingAlpha / Double(max(1, names.count))
    for stage in names {
        stages.append(compareStageTimings(stage: stage, baseline: a, current: b, policy: policy, alpha: alpha,
                                          judged: timed, note: note) { $0.samples(stage: stage, clock: $1) })
    }
    var steps: [StageComparison] = []
    let baselineSteps = baseline.stepNames, currentSteps = current.stepNames
    if !baselineSteps.isEmpty && !currentSteps.isEmpty {
        var stepNames = baselineSteps
        for n in currentSteps where !stepNames.contains(where: { $0 == n }) { stepNames.append(n) }
        let stepAlpha = policy.timingAlpha / Double(stepNames.count)
        for (stage, step) in stepNames {
            var row = compareStageTimings(stage: stage, baseline: a, current: b, policy: policy, alpha: stepAlpha,
                                          judged: timed, note: note) { $0.samples(stage: stage, step: step, clock: $1) }
            row.step = step
            steps.append(row)
        }
    }
    return BaselineComparison(baselineSource: baseline.source, baselineConfigHash: baseline.configHash,
                              currentConfigHash: current.configHash, pairedFixtures: a.count, unpairedFixtures: unpaired,
                              metrics: metrics, stages: stages, steps: steps, timingsCompared: timed, timingNote: note,
                              policy: policy)
}

/// Fewest paired fixtures (with the metric defined) a metric verdict is given on.
public let minimumFixturesForVerdict = 2

/// One metric's verdict over the paired fixtures `subset` (indices into `a` and `b`).
func compareMetric(_ metric: ComparedMetric, scope: String, _ a: [FixtureRecord], _ b: [FixtureRecord],
                   subset: [Int], tolerance: Tolerance, policy: BaselinePolicy) -> MetricComparison {
    let base = metric.value(a, indices: subset)
    let cur = metric.value(b, indices: subset)
    var result = MetricComparison(metric: metric, scope: scope, baseline: base, current: cur, difference: nil,
                                  interval: nil, tolerance: tolerance, verdict: .notCompared, detail: "")
    guard let base, let cur else {
        result.detail = subset.isEmpty ? "no paired fixture in \(scope)" : "undefined on \(base == nil ? "the baseline" : "this run")"
        return result
    }
    let difference = cur - base
    result.difference = difference
    // A bootstrap over one fixture only repeats it: no interval, no verdict. (Over two, an
    // interval entirely on one side needs both fixtures to have moved that way.)
    let defined = subset.filter { metric.value(a, indices: [$0]) != nil }.count
    guard defined >= minimumFixturesForVerdict else {
        result.detail = "change \(Show.signed(difference)); \(defined) fixture\(defined == 1 ? "" : "s") with this metric, "
            + "a verdict needs \(minimumFixturesForVerdict)"
        return result
    }
    let ci = Bootstrap.intervalSkippingUndefined(sampleCount: subset.count, resamples: policy.resamples,
                                                 confidence: policy.confidence, seed: policy.seed) { idx in
        let chosen = idx.map { subset[$0] }
        guard let x = metric.value(a, indices: chosen), let y = metric.value(b, indices: chosen) else { return nil }
        return y - x
    }?.interval
    result.interval = ci
    let allowance = tolerance.allowance(base: base)
    // Positive = better, whatever the metric's direction.
    let gain = metric.higherIsBetter ? difference : -difference
    let (lo, hi) = ci.map { metric.higherIsBetter ? ($0.lower, $0.upper) : (-$0.upper, -$0.lower) } ?? (0, 0)
    let ciText = ci.map { "\(Int(($0.confidence * 100).rounded()))% CI [\(Show.signed($0.lower)), \(Show.signed($0.upper))]" } ?? "no CI"
    if -gain > allowance && hi < 0 {
        result.verdict = .regressed
        result.detail = "worse by \(Show.fixed(-gain)) (tolerance \(tolerance.description)), \(ciText) entirely worse"
    } else if gain > allowance && lo > 0 {
        result.verdict = .improved
        result.detail = "better by \(Show.fixed(gain)) (tolerance \(tolerance.description)), \(ciText) entirely better"
    } else {
        result.verdict = .unchanged
        let why = gain.magnitude <= allowance ? "within tolerance \(tolerance.description)" : "\(ciText) includes 0"
        result.detail = "change \(Show.signed(difference)), \(why)"
    }
    return result
}

/// One stage's (or step's) timing verdict over the paired fixtures `a[i]` / `b[i]`, whose
/// samples `samples` gives in milliseconds on a clock.
///
/// Fixtures differ in size by an order of magnitude, which would drown a 15% change in a test
/// over pooled milliseconds. So every sample of fixture i, on both sides, is divided by the
/// median of fixture i's baseline samples (fixtures whose baseline median is under 1 µs —
/// clock resolution — are left out): the baseline's relative times centre on 1, the current
/// run's on its slowdown. The ratio is median(current relative) / median(baseline relative),
/// and the Mann-Whitney test compares the two relative samples. The raw medians (ms) are
/// reported beside them.
///
/// - Parameter alpha: significance level of this one test; `compareWithBaseline` passes the
///   policy's alpha divided by the number of stages tested (Bonferroni), so that the chance of
///   any false "regressed" over a whole run stays at the policy's alpha.
func compareStageTimings(stage: String, baseline a: [FixtureRecord], current b: [FixtureRecord], policy: BaselinePolicy,
                         alpha: Double, judged: Bool, note: String,
                         samples: (FixtureRecord, TimingClock) -> [Double]) -> StageComparison {
    let clock = policy.timingClock
    var rawX: [Double] = [], rawY: [Double] = []
    var relX: [Double] = [], relY: [Double] = []
    for (fa, fb) in zip(a, b) {
        let x = samples(fa, clock), y = samples(fb, clock)
        rawX += x
        rawY += y
        guard let scale = Statistics.median(x), scale >= 0.001, !y.isEmpty else { continue }
        relX += x.map { $0 / scale }
        relY += y.map { $0 / scale }
    }
    let mx = Statistics.median(rawX), my = Statistics.median(rawY)
    var result = StageComparison(stage: stage, clock: clock, baselineMedianMs: mx, currentMedianMs: my,
                                 ratio: nil, mannWhitney: MannWhitney.test(relY, relX), baselineSamples: rawX.count,
                                 currentSamples: rawY.count, verdict: .notCompared, detail: note)
    guard let mx, let my else {
        result.detail = "no samples on \(mx == nil ? "the baseline" : "this run")"
        return result
    }
    guard let rx = Statistics.median(relX), let ry = Statistics.median(relY), rx > 0 else {
        // Only sub-microsecond samples: the clock's resolution, not the code, would decide.
        result.ratio = 1
        if judged {
            result.verdict = .unchanged
            result.detail = "median \(Show.ms(mx)) -> \(Show.ms(my)) ms, below the clock's resolution"
        }
        return result
    }
    let ratio = ry / rx
    result.ratio = ratio
    guard judged else { return result }
    let p = result.mannWhitney?.pValue ?? 1
    let change = ratio - 1
    let text = "median \(Show.ms(mx)) -> \(Show.ms(my)) ms, per-fixture relative time \(Show.signedPercent(change)), Mann-Whitney p \(Show.pValue(p))"
    if change.magnitude < policy.timingNoiseFloor {
        result.verdict = .unchanged
        result.detail = text + ", under the \(Show.percent(policy.timingNoiseFloor)) noise floor"
    } else if (my - mx).magnitude < policy.timingNoiseFloorMs {
        result.verdict = .unchanged
        result.detail = text + ", median moved less than the \(formatGateNumber(policy.timingNoiseFloorMs)) ms noise floor"
    } else if change > policy.timingTolerance && p < alpha {
        result.verdict = .regressed
        result.detail = text + ", slower than the \(Show.percent(policy.timingTolerance)) tolerance and significant at \(formatGateNumber(alpha))"
    } else if change < -policy.timingTolerance && p < alpha {
        result.verdict = .improved
        result.detail = text + ", faster beyond the \(Show.percent(policy.timingTolerance)) tolerance and significant"
    } else {
        result.verdict = .unchanged
        result.detail = text + (change.magnitude <= policy.timingTolerance ? ", within the \(Show.percent(policy.timingTolerance)) tolerance" : ", not significant at \(formatGateNumber(alpha))")
    }
    return result
}
