import JSON

/// One value of a swept key: a number (a switch's false and true are 0 and 1) or a word, for
/// a key whose value is text (`detector=dog,threshold`).
public enum SweepValue: Sendable, Hashable, CustomStringConvertible, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    case number(Double)
    case text(String)

    public init(floatLiteral value: Double) { self = .number(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }

    /// As settings are labelled in reports (`minScore=3.5`, `detector=threshold`).
    public var description: String {
        switch self {
        case .number(let v): formatGateNumber(v)
        case .text(let word): word
        }
    }

    public var number: Double? {
        if case .number(let v) = self { v } else { nil }
    }

    var jsonValue: JSONValue {
        switch self {
        case .number(let v): jnum(v)
        case .text(let word): .string(word)
        }
    }

    /// A CSV field: a number's shortest round-trip text, a word as it is (`csvDocument` quotes).
    var csvText: String {
        switch self {
        case .number(let v): csvNumber(v)
        case .text(let word): word
        }
    }
}
