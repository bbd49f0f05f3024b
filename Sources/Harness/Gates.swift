import Foundation

/// The verdict of one acceptance gate.
public struct GateResult: Sendable, Equatable {
    /// The acceptance key, with the stage for budgets: "minPrecision", "stageBudgets.nms.p90Ms".
    public var name: String
    /// "all" or "tag:<tag>".
    public var scope: String
    public var passed: Bool
    /// nil when the metric is undefined on this data (the gate then passes: nothing to judge).
    public var actual: Double?
    public var limit: Double
    /// ">=" or "<=": how actual must compare with limit.
    public var comparison: String
    /// One line for people: what was measured, or why the gate did not apply.
    public var detail: String

    /// "minPrecision [tag:dense]" style label for tables and test names.
    public var label: String { scope == "all" ? name : "\(name) [\(scope)]" }
}

/// What the gates of one scope look at.
public struct GateInputs: Sendable {
    public var metrics: AggregateMetrics
    public var errored: Int
    public var stages: [StageStatistics]
    /// The timed steps inside stages, for budgets named "stage/step".
    public var steps: [StepStatistics]
    /// "fixture: total 12 not in [20, 30]" lines for each failed expect range.
    public var expectFailures: [String]
    public init(metrics: AggregateMetrics, errored: Int, stages: [StageStatistics], steps: [StepStatistics] = [],
                expectFailures: [String]) {
        self.metrics = metrics
        self.errored = errored
        self.stages = stages
        self.steps = steps
        self.expectFailures = expectFailures
    }

    /// The timing summary a budget names: a stage ("decode", "total"), or a step inside one as
    /// "stage/step" ("candidates/centre vote").
    func timing(_ name: String, _ clock: TimingClock) -> SampleSummary? {
        if let stage = stages.first(where: { $0.name == name }) { return stage.summary(clock) }
        guard let slash = name.firstIndex(of: "/") else { return nil }
        let stage = name[..<slash], step = name[name.index(after: slash)...]
        return steps.first { $0.stage == stage && $0.step == step }?.summary(clock)
    }
}

/// Evaluates every gate of `acceptance`: the global limits on `overall`, then each tag's
/// limits on `byTag(tag)` (nil when no fixture carries the tag: its gates do not apply).
/// Order: global gates in a fixed order, then tags sorted by name.
public func evaluateGates(acceptance: Acceptance, overall: GateInputs,
                          byTag: (String) -> GateInputs?) -> [GateResult] {
    var results = evaluateGates(limits: acceptance.limits, scope: "all", inputs: overall)
    for (tag, limits) in acceptance.tagLimits {
        let scope = "tag:\(tag)"
        if let inputs = byTag(tag) {
            results += evaluateGates(limits: limits, scope: scope, inputs: inputs)
        } else {
            results += evaluateGates(limits: limits, scope: scope, inputs: nil)
        }
    }
    return results
}

/// Evaluates one scope's limits. With nil inputs (no fixture in scope) every gate reports
/// "not applicable" and passes.
public func evaluateGates(limits: GateLimits, scope: String, inputs: GateInputs?) -> [GateResult] {
    var results: [GateResult] = []
    func gate(_ name: String, _ actual: Double?, _ limit: Double?, atLeast: Bool, what: String) {
        guard let limit else { return }
        let comparison = atLeast ? ">=" : "<="
        if inputs == nil {
            results.append(GateResult(name: name, scope: scope, passed: true, actual: nil, limit: limit,
                                      comparison: comparison, detail: "not applicable: no fixture in \(scope)"))
            return
        }
        guard let actual else {
            results.append(GateResult(name: name, scope: scope, passed: true, actual: nil, limit: limit,
                                      comparison: comparison, detail: "not applicable: \(what) is undefined on this data"))
            return
        }
        let passed = atLeast ? actual >= limit : actual <= limit
        results.append(GateResult(name: name, scope: scope, passed: passed, actual: actual, limit: limit,
                                  comparison: comparison,
                                  detail: "\(what) \(formatGateNumber(actual)) \(passed ? "meets" : "violates") \(comparison) \(formatLimit(limit))"))
    }
    let m = inputs?.metrics
    gate("minPrecision", m?.precision, limits.minPrecision, atLeast: true, what: "precision")
    gate("minRecall", m?.recall, limits.minRecall, atLeast: true, what: "recall")
    gate("minF1", m?.f1, limits.minF1, atLeast: true, what: "F1")
    gate("minMacroF1", m?.macroF1, limits.minMacroF1, atLeast: true, what: "macro F1")
    gate("maxBlankDetections", m?.blankDetectionsMax.map(Double.init), limits.maxBlankDetections.map(Double.init),
         atLeast: false, what: "most detections on a blank control")
    gate("maxMeanAbsRelCountError", m?.meanAbsRelCountError, limits.maxMeanAbsRelCountError,
         atLeast: false, what: "mean |relative count error|")
    gate("maxMeanAbsRelCalibrationError", m?.meanAbsRelCalibrationError, limits.maxMeanAbsRelCalibrationError,
         atLeast: false, what: "mean |relative calibration error|")
    // Undefined where no fixture's placement was compared (no labelled grid of the whole ruled
    // area, or no grid found on any).
    gate("maxMisplacedFixtures", m.flatMap { $0.registeredFixtures > 0 ? Double($0.misplacedFixtures) : nil },
         limits.maxMisplacedFixtures.map(Double.init), atLeast: false,
         what: "fixtures placed more than \(formatGateNumber(RegistrationComparison.toleranceUm)) µm off in the chamber")
    gate("minLiveDeadAccuracy", m?.liveDeadAccuracy, limits.minLiveDeadAccuracy,
         atLeast: true, what: "live/dead accuracy")
    gate("maxErrored", inputs.map { Double($0.errored) }, limits.maxErrored.map(Double.init),
         atLeast: false, what: "errored fixtures")
    if limits.gateExpect == true {
        let failures = inputs?.expectFailures ?? []
        gate("gateExpect", inputs.map { _ in Double(failures.count) }, 0, atLeast: false, what: "failed expect ranges")
        if !failures.isEmpty, let last = results.indices.last {
            let shown = failures.prefix(5).joined(separator: "; ")
            results[last].detail += ": " + shown + (failures.count > 5 ? "; and \(failures.count - 5) more" : "")
        }
    }
    for budget in limits.stageBudgets {
        let summary = inputs?.timing(budget.stage, budget.clock)
        let what = "\(budget.stage) \(budget.clock.rawValue)"
        if inputs != nil && summary == nil {
            let kind = budget.stage.contains("/") ? "step (stage/step)" : "stage"
            for (key, limit) in [("medianMs", budget.medianMs), ("p90Ms", budget.p90Ms)] {
                guard let limit else { continue }
                results.append(GateResult(name: "stageBudgets.\(budget.stage).\(key)", scope: scope, passed: false,
                                          actual: nil, limit: limit, comparison: "<=",
                                          detail: "no \(kind) named \"\(budget.stage)\" was timed"))
            }
            continue
        }
        gate("stageBudgets.\(budget.stage).medianMs", summary?.median, budget.medianMs, atLeast: false,
             what: "\(what) median ms")
        gate("stageBudgets.\(budget.stage).p90Ms", summary?.p90, budget.p90Ms, atLeast: false, what: "\(what) p90 ms")
    }
    return results
}

/// The gates `limits` sets, as a person reads them ("minPrecision >= 0.9"), in the order a
/// run's gate table lists them: what `cellqa inspect` shows of an acceptance file.
public func describedGates(_ limits: GateLimits) -> [String] {
    evaluateGates(limits: limits, scope: "all", inputs: nil).map {
        $0.name == "gateExpect" ? "gateExpect" : "\($0.name) \($0.comparison) \(formatLimit($0.limit))"
    }
}

/// A limit exactly as written in the acceptance file: 0.9, 0.999999, 3.
func formatLimit(_ x: Double) -> String {
    guard x.isFinite else { return "n/a" }
    if x == x.rounded() && x.magnitude < 1e15 { return String(Int64(x)) }
    return x.description
}

/// A measured value: up to 4 decimals, no trailing zeros: 0.9, 0.8571, 12.5, 3. Beyond that
/// range six significant digits with an exponent (1e-06, 1e+308): four decimals would show a
/// swept 0.00005 as 0, and a huge value as a 300-digit number.
func formatGateNumber(_ x: Double) -> String {
    guard x.isFinite else { return "n/a" }
    if x == x.rounded() && x.magnitude < 1e15 { return String(Int64(x)) }
    if x.magnitude < 0.0001 || x.magnitude >= 1e15 { return String(format: "%.6g", x) }
    var text = String(format: "%.4f", x)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text == "-0" ? "0" : text
}
