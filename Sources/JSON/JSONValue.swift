/// A parsed or constructed JSON value.
///
/// Numbers keep the distinction JSON text makes: a literal without fraction or exponent is
/// `.int`, anything else `.double`. Integers must fit in `Int64`; the parser rejects larger ones
/// rather than rounding them silently (write them with an exponent, e.g. `1e20`, to get a
/// double). Doubles are always finite: the parser rejects `NaN`, `Infinity` and out-of-range
/// literals such as `1e400`.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The member `key` when this is an object holding it, else nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The numeric value of `.int` or `.double`, else nil.
    public var number: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// A short human description for error messages: the value itself for scalars
    /// (strings quoted and clipped), the kind for containers.
    public var briefDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return JSONNumberText.shortest(value)
        case .string(let value):
            let clipped = value.count > 40 ? String(value.prefix(40)) + "..." : value
            return "the string \"\(clipped)\""
        case .array(let items): return items.isEmpty ? "an empty array" : "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Keeps the literal's order; a repeated key keeps its first position and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

/// Number formatting shared by the serializer and error messages.
enum JSONNumberText {
    /// Swift's shortest round-trip representation, which is valid JSON for finite values
    /// (`1.0`, `1e-05`, `1e+20`).
    static func shortest(_ value: Double) -> String { value.description }
}
