import JSON
import Vision

/// A problem with a sweep's parameters (exit code 2).
public struct SweepInputError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One swept parameter: a `PipelineConfig` JSON key and its values START, START+STEP, ... <= STOP,
/// or those listed.
public struct SweepAxis: Sendable, Equatable {
    public var key: String
    public var values: [SweepValue]

    /// Most values one axis may have.
    public static let maxValues = 10_000

    public init(key: String, values: [SweepValue]) {
        self.key = key
        self.values = values
    }

    /// Parses "KEY=START:STOP:STEP" (STEP > 0, START <= STOP; values are START + i*STEP,
    /// computed by multiplication so no rounding error accumulates, with STOP included when
    /// it lies within 1e-9 STEP of the grid) or "KEY=V1,V2,..." (explicit values; `false` and
    /// `true` stand for 0 and 1, the values of a switch; a value that is no number is a word,
    /// for a key whose value is text). Whether the key takes them is `sweepSettings`' check.
    public static func parse(_ text: String) throws(SweepInputError) -> SweepAxis {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw SweepInputError("\"\(text)\": expected KEY=START:STOP:STEP or KEY=V1,V2,...")
        }
        let key = String(text[..<eq])
        let spec = String(text[text.index(after: eq)...])
        func number(_ s: Substring, _ what: String) throws(SweepInputError) -> Double {
            let token = s.trimmingCharacters(in: .whitespaces)
            // A switch (a flag key) is swept as false,true: 0 and 1 on the axis.
            if token == "false" { return 0 }
            if token == "true" { return 1 }
            guard let v = Double(token), v.isFinite else {
                throw SweepInputError("\"\(text)\": \(what) \"\(s)\" is not a finite number")
            }
            return v
        }
        if spec.contains(":") {
            let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3 else { throw SweepInputError("\"\(text)\": expected START:STOP:STEP") }
            let start = try number(parts[0], "START"), stop = try number(parts[1], "STOP"), step = try number(parts[2], "STEP")
            guard step > 0 else { throw SweepInputError("\"\(text)\": STEP must be positive") }
            guard start <= stop else { throw SweepInputError("\"\(text)\": START must not exceed STOP") }
            let steps = ((stop - start) / step + 1e-9).rounded(.down)
            guard steps < Double(maxValues) else {
                throw SweepInputError("\"\(text)\": \(Int(min(steps, 1e15)) + 1) values, at most \(maxValues) per parameter")
            }
            return SweepAxis(key: key, values: (0...Int(steps)).map { .number(start + Double($0) * step) })
        }
        var values: [SweepValue] = []
        for part in spec.split(separator: ",", omittingEmptySubsequences: false) {
            let token = part.trimmingCharacters(in: .whitespaces)
            let isWord = !token.isEmpty && Double(token) == nil && token != "false" && token != "true"
            values.append(isWord ? .text(token) : .number(try number(part, "value")))
        }
        guard !values.isEmpty, values.count <= maxValues else { throw SweepInputError("\"\(text)\": 1 to \(maxValues) values") }
        // The same setting twice would be run twice and listed twice, under one label.
        var seen = Set<SweepValue>()
        for v in values where !seen.insert(v).inserted {
            throw SweepInputError("\"\(text)\": value \(v) is given twice")
        }
        return SweepAxis(key: key, values: values)
    }
}

/// One point of the grid: the swept values and the resulting config.
public struct SweepSetting: Sendable {
    public var values: [(key: String, value: SweepValue)]
    public var config: PipelineConfig
    public var label: String { values.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
}

/// The cartesian product of `axes` applied to `base`, first axis slowest.
/// - Parameter maxSettings: cap on the number of combinations (a typo in STEP must not start
///   a week-long run).
/// - Throws: `SweepInputError` for an unknown or non-numeric key, a repeated key, a value the
///   config refuses (the config's own range check, with its message), or too many settings.
public func sweepSettings(base: PipelineConfig, axes: [SweepAxis], maxSettings: Int = 1000) throws(SweepInputError) -> [SweepSetting] {
    guard !axes.isEmpty else { throw SweepInputError("nothing to sweep: give at least one KEY=START:STOP:STEP") }
    guard case .object(let baseObject) = base.jsonValue else { throw SweepInputError("internal: config is not an object") }
    var seen = Set<String>()
    for axis in axes {
        guard let current = baseObject[axis.key] else {
            throw SweepInputError("unknown config key \"\(axis.key)\"" + unknownNameHint(
                axis.key, among: baseObject.keys, listLabel: "keys", longList: PipelineConfig.keyListing))
        }
        let isSwitch = current == .bool(true) || current == .bool(false)
        if case .string(let now) = current {
            if let bad = axis.values.first(where: { $0.number != nil }) {
                throw SweepInputError("config key \"\(axis.key)\" takes a word (now \"\(now)\"), got \(bad)")
            }
        } else {
            guard current.number != nil || isSwitch else {
                throw SweepInputError("config key \"\(axis.key)\" is neither a number, a switch nor a word and cannot be swept")
            }
            if let word = axis.values.first(where: { $0.number == nil }) {
                throw SweepInputError("config key \"\(axis.key)\" takes "
                                      + (isSwitch ? "false,true (or 0,1)" : "numbers") + ", got \"\(word)\"")
            }
            if isSwitch, let bad = axis.values.first(where: { $0 != 0 && $0 != 1 }) {
                throw SweepInputError("config key \"\(axis.key)\" is a switch: values false,true (or 0,1), got \(bad)")
            }
        }
        guard seen.insert(axis.key).inserted else { throw SweepInputError("config key \"\(axis.key)\" is swept twice") }
    }
    let total = axes.reduce(1.0) { $0 * Double($1.values.count) }
    guard total <= Double(maxSettings) else {
        throw SweepInputError("\(Int(min(total, 1e15))) settings exceed the cap of \(maxSettings); use fewer values or larger steps")
    }
    var settings: [SweepSetting] = []
    var odometer = [Int](repeating: 0, count: axes.count)
    while true {
        var object = baseObject
        var values: [(key: String, value: SweepValue)] = []
        for (a, axis) in axes.enumerated() {
            let value = axis.values[odometer[a]]
            switch (value, baseObject[axis.key]) {
            case (.text(let word), _):
                object.set(axis.key, .string(word))
            case (.number(let v), .bool?):
                object.set(axis.key, .bool(v == 1))
            case (.number(let v), .int?):
                guard v == v.rounded(), v.magnitude < 1e15 else {
                    throw SweepInputError("config key \"\(axis.key)\" takes integers, got \(value)")
                }
                object.set(axis.key, .int(Int64(v)))
            case (.number(let v), _):
                object.set(axis.key, .double(v))
            }
            values.append((axis.key, value))
        }
        let config: PipelineConfig
        do {
            config = try PipelineConfig(json: .object(object), file: "sweep setting")
        } catch {
            throw SweepInputError("\(values.map { "\($0.key)=\($0.value)" }.joined(separator: " ")): \(error.description)")
        }
        settings.append(SweepSetting(values: values, config: config))
        var a = axes.count - 1
        while a >= 0 {
            odometer[a] += 1
            if odometer[a] < axes[a].values.count { break }
            odometer[a] = 0
            a -= 1
        }
        if a < 0 { break }
    }
    return settings
}

/// Which pipeline stage first reads each config key whose stages come after `candidates`:
/// a sweep of only these keys runs the stages before that one once per fixture and resumes
/// from a copy of the saved frame for every setting. Exact, because those earlier stages
/// never read these keys. Every other key (among them `minScore`: the DoG's duplicate removal
/// orders peaks by response, not by score, so a score threshold is not a pure post-filter)
/// re-runs the whole pipeline per setting, decoding each image once.
public let sweepResumeStage: [String: String] = [
    "hueMinDeg": "classify", "hueMaxDeg": "classify", "minDeadSaturation": "classify",
    "deadDarkContrast": "classify", "refractileContrast": "classify", "debrisDarkContrast": "classify",
    "nmsIoU": "nms", "nmsMinCentreDistance": "nms",
    "madCut": "count", "dilution": "count", "overcrowdedPerSquare": "count", "sparsePerSquare": "count",
]
