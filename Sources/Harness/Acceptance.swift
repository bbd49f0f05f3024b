import JSON

/// A time budget for one pipeline stage (or "decode", or "total", or a timed step inside a
/// stage as "stage/step": "candidates/centre vote"), milliseconds.
public struct StageBudget: Sendable, Equatable {
    public var stage: String
    public var medianMs: Double?
    public var p90Ms: Double?
    /// Which clock the budget applies to.
    public var clock: TimingClock
    public init(stage: String, medianMs: Double? = nil, p90Ms: Double? = nil, clock: TimingClock = .wall) {
        self.stage = stage
        self.medianMs = medianMs
        self.p90Ms = p90Ms
        self.clock = clock
    }
}

/// Wall clock (monotonic) or CPU time of the running thread.
public enum TimingClock: String, Sendable, Equatable, CaseIterable {
    case wall
    case cpu
}

/// Limits that apply to a set of fixtures (the whole run, or one tag). nil = not gated.
public struct GateLimits: Sendable, Equatable {
    public var minPrecision: Double?
    public var minRecall: Double?
    public var minF1: Double?
    public var minMacroF1: Double?
    /// Largest number of detections allowed on any one blank control.
    public var maxBlankDetections: Int?
    public var maxMeanAbsRelCountError: Double?
    /// Largest mean |relative error| of the grid stage's µm per pixel against the labels'.
    public var maxMeanAbsRelCalibrationError: Double?
    /// Largest number of fixtures whose grid the pipeline placed more than
    /// `RegistrationComparison.toleranceUm` off in the chamber.
    public var maxMisplacedFixtures: Int?
    public var minLiveDeadAccuracy: Double?
    public var maxErrored: Int?
    /// Whether failed per-fixture `expect` ranges fail the run.
    public var gateExpect: Bool?
    public var stageBudgets: [StageBudget]

    public init(minPrecision: Double? = nil, minRecall: Double? = nil, minF1: Double? = nil, minMacroF1: Double? = nil,
                maxBlankDetections: Int? = nil, maxMeanAbsRelCountError: Double? = nil,
                maxMeanAbsRelCalibrationError: Double? = nil, maxMisplacedFixtures: Int? = nil,
                minLiveDeadAccuracy: Double? = nil, maxErrored: Int? = nil, gateExpect: Bool? = nil,
                stageBudgets: [StageBudget] = []) {
        self.minPrecision = minPrecision
        self.minRecall = minRecall
        self.minF1 = minF1
        self.minMacroF1 = minMacroF1
        self.maxBlankDetections = maxBlankDetections
        self.maxMeanAbsRelCountError = maxMeanAbsRelCountError
        self.maxMeanAbsRelCalibrationError = maxMeanAbsRelCalibrationError
        self.maxMisplacedFixtures = maxMisplacedFixtures
        self.minLiveDeadAccuracy = minLiveDeadAccuracy
        self.maxErrored = maxErrored
        self.gateExpect = gateExpect
        self.stageBudgets = stageBudgets
    }
}

/// The acceptance file: global limits plus per-tag limits.
///
/// Format (JSON object; every key optional; unknown keys are an error naming the key):
/// ```json
/// {
///   "description": "free text",
///   "minPrecision": 0.9, "minRecall": 0.85, "minF1": 0.87, "minMacroF1": 0.8,
///   "maxBlankDetections": 0, "maxMeanAbsRelCountError": 0.1, "maxMeanAbsRelCalibrationError": 0.03,
///   "minLiveDeadAccuracy": 0.95,
///   "maxErrored": 0, "gateExpect": true,
///   "stageBudgets": { "candidates": { "medianMs": 20, "p90Ms": 40, "clock": "wall" },
///                     "candidates/centre vote": { "p90Ms": 12 }, "total": { "medianMs": 60 } },
///   "tags": { "dense": { "minRecall": 0.8 }, "blank-control": { "maxBlankDetections": 0 } }
/// }
/// ```
/// Keys absent from the file take the defaults below (precision >= 0.9, recall >= 0.85, no
/// detection on a blank control, no errored fixture, expect ranges gate); write `null` to turn
/// a default gate off. A tag object accepts the same limit keys and has no defaults. Stage
/// budgets name a pipeline stage, `decode`, `total` (decode + every stage), or a timed step inside
/// a stage as `stage/step` (over the runs it ran in).
public struct Acceptance: Sendable, Equatable {
    public var description: String?
    public var limits: GateLimits
    /// Sorted by tag.
    public var tagLimits: [(tag: String, limits: GateLimits)]
    /// How a run is judged against a baseline (the file's `baseline` object; see `BaselinePolicy`).
    public var baseline: BaselinePolicy

    public static let defaultLimits = GateLimits(minPrecision: 0.9, minRecall: 0.85, maxBlankDetections: 0,
                                                 maxErrored: 0, gateExpect: true)

    public init(description: String? = nil, limits: GateLimits = Acceptance.defaultLimits,
                tagLimits: [(tag: String, limits: GateLimits)] = [], baseline: BaselinePolicy = BaselinePolicy()) {
        self.description = description
        self.baseline = baseline
        self.limits = limits
        self.tagLimits = tagLimits.sorted { $0.tag < $1.tag }
    }

    public static func == (a: Acceptance, b: Acceptance) -> Bool {
        a.description == b.description && a.limits == b.limits
            && a.tagLimits.map(\.tag) == b.tagLimits.map(\.tag) && a.tagLimits.map(\.limits) == b.tagLimits.map(\.limits)
            && a.baseline == b.baseline
    }

    /// Reads an acceptance file; errors name the file and JSON path.
    public static func load(path: String) throws(JSONError) -> Acceptance {
        try parse(JSONValue.load(path: path), file: path)
    }

    /// Reads an acceptance document already parsed.
    public static func parse(_ value: JSONValue, file: String?) throws(JSONError) -> Acceptance {
        let root = JSONCursor(value, file: file)
        var description: String?
        var baseline = BaselinePolicy()
        var tagLimits: [(tag: String, limits: GateLimits)] = []
        var limitMembers: [(key: String, cursor: JSONCursor)] = []
        for (key, cursor) in try root.members() {
            switch key {
            case "description": description = try cursor.string()
            case "tags":
                for (tag, tagCursor) in try cursor.members() {
                    tagLimits.append((tag, try parseLimits(try tagCursor.members(), base: GateLimits(), allowTags: false)))
                }
            case "$schema": _ = try cursor.string()
            case "baseline": baseline = try BaselinePolicy.parse(cursor)
            default: limitMembers.append((key, cursor))
            }
        }
        let limits = try parseLimits(limitMembers, base: defaultLimits, allowTags: true)
        return Acceptance(description: description, limits: limits, tagLimits: tagLimits, baseline: baseline)
    }

    static let limitKeys = ["minPrecision", "minRecall", "minF1", "minMacroF1", "maxBlankDetections",
                            "maxMeanAbsRelCountError", "maxMeanAbsRelCalibrationError", "maxMisplacedFixtures", "minLiveDeadAccuracy", "maxErrored", "gateExpect", "stageBudgets"]

    private static func parseLimits(_ members: [(key: String, cursor: JSONCursor)], base: GateLimits,
                                    allowTags: Bool) throws(JSONError) -> GateLimits {
        var limits = base
        for (key, cursor) in members {
            let isNull = cursor.isNull
            switch key {
            case "minPrecision": limits.minPrecision = isNull ? nil : try fraction(cursor)
            case "minRecall": limits.minRecall = isNull ? nil : try fraction(cursor)
            case "minF1": limits.minF1 = isNull ? nil : try fraction(cursor)
            case "minMacroF1": limits.minMacroF1 = isNull ? nil : try fraction(cursor)
            case "minLiveDeadAccuracy": limits.minLiveDeadAccuracy = isNull ? nil : try fraction(cursor)
            case "maxMeanAbsRelCountError": limits.maxMeanAbsRelCountError = isNull ? nil : try nonNegative(cursor)
            case "maxMeanAbsRelCalibrationError":
                limits.maxMeanAbsRelCalibrationError = isNull ? nil : try nonNegative(cursor)
            case "maxBlankDetections": limits.maxBlankDetections = isNull ? nil : try count(cursor)
            case "maxMisplacedFixtures": limits.maxMisplacedFixtures = isNull ? nil : try count(cursor)
            case "maxErrored": limits.maxErrored = isNull ? nil : try count(cursor)
            case "gateExpect": limits.gateExpect = isNull ? nil : try cursor.bool()
            case "stageBudgets": limits.stageBudgets = isNull ? [] : try budgets(cursor)
            default:
                let known = (allowTags ? ["description", "tags", "baseline"] : []) + limitKeys
                throw cursor.error(message: "unknown key \"\(key)\"" + unknownNameHint(key, among: known))
            }
        }
        return limits
    }

    private static func fraction(_ c: JSONCursor) throws(JSONError) -> Double {
        let v = try c.double()
        guard v >= 0 && v <= 1 else { throw c.error(expected: "a number from 0 to 1") }
        return v
    }

    private static func nonNegative(_ c: JSONCursor) throws(JSONError) -> Double {
        let v = try c.double()
        guard v >= 0 else { throw c.error(expected: "a non-negative number") }
        return v
    }

    private static func count(_ c: JSONCursor) throws(JSONError) -> Int {
        let v = try c.int()
        guard v >= 0 else { throw c.error(expected: "a non-negative integer") }
        return v
    }

    private static func budgets(_ c: JSONCursor) throws(JSONError) -> [StageBudget] {
        var result: [StageBudget] = []
        for (stage, budgetCursor) in try c.members() {
            var budget = StageBudget(stage: stage)
            for (key, field) in try budgetCursor.members() {
                switch key {
                case "medianMs": budget.medianMs = try positive(field)
                case "p90Ms": budget.p90Ms = try positive(field)
                case "clock":
                    let name = try field.string()
                    guard let clock = TimingClock(rawValue: name) else { throw field.error(expected: "\"wall\" or \"cpu\"") }
                    budget.clock = clock
                default:
                    throw field.error(message: "unknown key \"\(key)\"" + unknownNameHint(key, among: ["medianMs", "p90Ms", "clock"]))
                }
            }
            if budget.medianMs == nil && budget.p90Ms == nil {
                throw budgetCursor.error(expected: "an object with \"medianMs\" and/or \"p90Ms\"")
            }
            result.append(budget)
        }
        return result
    }

    private static func positive(_ c: JSONCursor) throws(JSONError) -> Double {
        let v = try c.double()
        guard v > 0 else { throw c.error(expected: "a positive number of milliseconds") }
        return v
    }
}
