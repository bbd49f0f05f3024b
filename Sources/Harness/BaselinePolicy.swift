import JSON

/// Accuracy metrics judged against a baseline. Each is computed from per-fixture counts, so
/// a bootstrap resample of fixtures recomputes it exactly (see `value(_:indices:)`).
public enum ComparedMetric: String, Sendable, Equatable, CaseIterable {
    /// Micro precision: sum TP / sum (TP + FP).
    case precision
    /// Micro recall: sum TP / sum (TP + FN).
    case recall
    /// Micro F1: 2 sum TP / (2 sum TP + sum FP + sum FN).
    case f1
    /// Mean |predicted - labelled| / labelled over fixtures with labelled cells.
    case countError
    /// Correct live/dead calls / matched pairs with a known label.
    case liveDeadAccuracy
    /// Mean number of detections per blank control.
    case blankDetections
    /// Share of the fixtures whose placement in the chamber was compared that the grid
    /// placed more than 25 µm off (`RegistrationComparison.isMisplaced`).
    case misplaced

    public var higherIsBetter: Bool {
        switch self {
        case .precision, .recall, .f1, .liveDeadAccuracy: return true
        case .countError, .blankDetections, .misplaced: return false
        }
    }

    /// The metric over `records[indices]` (indices may repeat: a repeated fixture counts
    /// twice); nil when undefined on those fixtures.
    public func value(_ records: [FixtureRecord], indices: [Int]) -> Double? {
        var a = 0, b = 0, c = 0, n = 0
        var sum = 0.0
        for i in indices {
            let r = records[i]
            switch self {
            case .precision: a += r.detection.tp; b += r.detection.tp + r.detection.fp
            case .recall: a += r.detection.tp; b += r.detection.tp + r.detection.fn
            case .f1: a += 2 * r.detection.tp; b += 2 * r.detection.tp + r.detection.fp + r.detection.fn; c += 1
            case .liveDeadAccuracy: a += r.classCorrect; b += r.classKnown
            case .countError:
                if let e = r.absRelCountError { sum += e; n += 1 }
            case .blankDetections:
                if let d = r.blankDetections { sum += Double(d); n += 1 }
            case .misplaced:
                if let g = r.registration { sum += g.isMisplaced ? 1 : 0; n += 1 }
            }
        }
        switch self {
        case .precision, .recall, .liveDeadAccuracy: return b == 0 ? nil : Double(a) / Double(b)
        case .f1: return c == 0 ? nil : (b == 0 ? 1 : Double(a) / Double(b))
        case .countError, .blankDetections, .misplaced: return n == 0 ? nil : sum / Double(n)
        }
    }
}

/// How much a metric may get worse before it can count as a regression.
public enum Tolerance: Sendable, Equatable {
    /// In the metric's units (0.01 = one point of precision).
    case absolute(Double)
    /// A fraction of the baseline's value (0.02 = 2% of it).
    case relative(Double)

    /// The allowed change for a metric whose baseline value is `base`.
    public func allowance(base: Double) -> Double {
        switch self {
        case .absolute(let t): return t
        case .relative(let r): return r * base.magnitude
        }
    }

    public var description: String {
        switch self {
        case .absolute(let t): return "±\(formatGateNumber(t))"
        case .relative(let r): return "±\(formatGateNumber(r * 100))%"
        }
    }
}

/// The `baseline` section of the acceptance file: how `cellqa run --baseline` and
/// `cellqa compare` judge a change.
///
/// ```json
/// "baseline": {
///   "tolerances": { "f1": { "absolute": 0.01 }, "countError": { "relative": 0.1 } },
///   "tags": { "dense": { "recall": { "absolute": 0.03 } } },
///   "resamples": 2000, "confidence": 0.95, "seed": 24301,
///   "timing": { "tolerance": 0.10, "noiseFloor": 0.03, "noiseFloorMs": 0.5, "alpha": 0.01, "clock": "cpu" }
/// }
/// ```
/// Metric names: precision, recall, f1, countError, liveDeadAccuracy, blankDetections, misplaced.
/// Metrics not named keep `defaultTolerances`. A tag listed under `tags` gets its own verdicts
/// (the named metrics only), and a regression there fails the run like a global one.
public struct BaselinePolicy: Sendable, Equatable {
    public var tolerances: [ComparedMetric: Tolerance]
    /// Sorted by tag.
    public var tagTolerances: [(tag: String, tolerances: [ComparedMetric: Tolerance])]
    /// Bootstrap resamples (>= 2000 asked by issue 5; fewer are refused in the file).
    public var resamples: Int
    public var confidence: Double
    public var seed: UInt64
    /// Median-ratio change (0.10 = 10% slower) above which a significant timing change is a regression.
    public var timingTolerance: Double
    /// Median-ratio changes smaller than this are "unchanged" whatever the test says.
    public var timingNoiseFloor: Double
    /// Median changes smaller than this many milliseconds are "unchanged" too: sub-millisecond
    /// stages jitter by tens of percent with caches and scheduling, not with the code.
    public var timingNoiseFloorMs: Double
    /// Significance level of the Mann-Whitney test on timings.
    public var timingAlpha: Double
    /// The clock timings are gated on (thread CPU by default: steadier on shared machines).
    public var timingClock: TimingClock

    public static let defaultTolerances: [ComparedMetric: Tolerance] = [
        .precision: .absolute(0.01), .recall: .absolute(0.01), .f1: .absolute(0.01),
        .countError: .absolute(0.01), .liveDeadAccuracy: .absolute(0.01), .blankDetections: .absolute(0),
        .misplaced: .absolute(0),
    ]

    public init(tolerances: [ComparedMetric: Tolerance] = BaselinePolicy.defaultTolerances,
                tagTolerances: [(tag: String, tolerances: [ComparedMetric: Tolerance])] = [],
                resamples: Int = 2000, confidence: Double = 0.95, seed: UInt64 = 0x5EED,
                timingTolerance: Double = 0.10, timingNoiseFloor: Double = 0.03, timingNoiseFloorMs: Double = 0.5,
                timingAlpha: Double = 0.01, timingClock: TimingClock = .cpu) {
        self.tolerances = tolerances
        self.tagTolerances = tagTolerances.sorted { $0.tag < $1.tag }
        self.resamples = resamples
        self.confidence = confidence
        self.seed = seed
        self.timingTolerance = timingTolerance
        self.timingNoiseFloor = timingNoiseFloor
        self.timingNoiseFloorMs = timingNoiseFloorMs
        self.timingAlpha = timingAlpha
        self.timingClock = timingClock
    }

    public func tolerance(_ metric: ComparedMetric) -> Tolerance {
        tolerances[metric] ?? BaselinePolicy.defaultTolerances[metric] ?? .absolute(0)
    }

    public static func == (a: BaselinePolicy, b: BaselinePolicy) -> Bool {
        a.tolerances == b.tolerances && a.tagTolerances.map(\.tag) == b.tagTolerances.map(\.tag)
            && a.tagTolerances.map(\.tolerances) == b.tagTolerances.map(\.tolerances)
            && a.resamples == b.resamples && a.confidence == b.confidence && a.seed == b.seed
            && a.timingTolerance == b.timingTolerance && a.timingNoiseFloor == b.timingNoiseFloor && a.timingNoiseFloorMs == b.timingNoiseFloorMs
            && a.timingAlpha == b.timingAlpha && a.timingClock == b.timingClock
    }

    /// Reads the `baseline` object of an acceptance file; errors name the JSON path.
    public static func parse(_ c: JSONCursor) throws(JSONError) -> BaselinePolicy {
        var policy = BaselinePolicy()
        for (key, field) in try c.members() {
            switch key {
            case "tolerances":
                for (metric, tolerance) in try parseTolerances(field) { policy.tolerances[metric] = tolerance }
            case "tags":
                var tags: [(tag: String, tolerances: [ComparedMetric: Tolerance])] = []
                for (tag, tagField) in try field.members() { tags.append((tag, try parseTolerances(tagField))) }
                policy.tagTolerances = tags.sorted { $0.tag < $1.tag }
            case "resamples":
                let n = try field.int()
                guard n >= 2000 && n <= 1_000_000 else { throw field.error(expected: "an integer from 2000 to 1000000") }
                policy.resamples = n
            case "confidence":
                let v = try field.double()
                guard v > 0.5 && v < 1 else { throw field.error(expected: "a number between 0.5 and 1") }
                policy.confidence = v
            case "seed":
                let v = try field.int()
                guard v >= 0 else { throw field.error(expected: "a non-negative integer") }
                policy.seed = UInt64(v)
            case "timing":
                for (tkey, t) in try field.members() {
                    switch tkey {
                    case "tolerance": policy.timingTolerance = try fractionOpen(t)
                    case "noiseFloor": policy.timingNoiseFloor = try fractionOpen(t)
                    case "noiseFloorMs":
                        let v = try t.double()
                        guard v >= 0 else { throw t.error(expected: "a non-negative number of milliseconds") }
                        policy.timingNoiseFloorMs = v
                    case "alpha":
                        let v = try t.double()
                        guard v > 0 && v < 1 else { throw t.error(expected: "a number between 0 and 1") }
                        policy.timingAlpha = v
                    case "clock":
                        let name = try t.string()
                        guard let clock = TimingClock(rawValue: name) else { throw t.error(expected: "\"wall\" or \"cpu\"") }
                        policy.timingClock = clock
                    default:
                        throw t.error(message: "unknown key \"\(tkey)\"" + unknownNameHint(tkey, among: ["tolerance", "noiseFloor", "noiseFloorMs", "alpha", "clock"]))
                    }
                }
            default:
                throw field.error(message: "unknown key \"\(key)\"" + unknownNameHint(key, among: ["tolerances", "tags", "resamples", "confidence", "seed", "timing"]))
            }
        }
        return policy
    }

    private static func parseTolerances(_ c: JSONCursor) throws(JSONError) -> [ComparedMetric: Tolerance] {
        var out: [ComparedMetric: Tolerance] = [:]
        for (name, field) in try c.members() {
            guard let metric = ComparedMetric(rawValue: name) else {
                throw field.error(message: "unknown metric \"\(name)\" (known: \(ComparedMetric.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            let members = try field.members()
            guard members.count == 1, let (kind, value) = members.first else {
                throw field.error(expected: "an object with exactly one of \"absolute\" or \"relative\"")
            }
            let v = try value.double()
            guard v >= 0 else { throw value.error(expected: "a non-negative number") }
            switch kind {
            case "absolute": out[metric] = .absolute(v)
            case "relative": out[metric] = .relative(v)
            default: throw value.error(message: "unknown key \"\(kind)\"" + unknownNameHint(kind, among: ["absolute", "relative"]))
            }
        }
        return out
    }

    private static func fractionOpen(_ c: JSONCursor) throws(JSONError) -> Double {
        let v = try c.double()
        guard v >= 0 && v < 10 else { throw c.error(expected: "a non-negative fraction (0.1 = 10%)") }
        return v
    }
}
