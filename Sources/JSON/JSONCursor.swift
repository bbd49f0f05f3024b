/// A typed reader over a `JSONValue` that remembers where it is, so every failure becomes a
/// `JSONError` naming the file and the JSON path (`labels/a.json: cells[17].r: expected a
/// number, got the string "7"`).
///
/// Explicit `null` is a value like any other: `field` returns it and the typed accessors
/// reject it, so a known field set to null is reported as having the wrong type.
public struct JSONCursor: Sendable {
    public let value: JSONValue
    public let path: String
    public let file: String?

    public init(_ value: JSONValue, file: String?, path: String = "") {
        self.value = value
        self.file = file
        self.path = path
    }

    /// An error at this cursor's path. `actual` defaults to a short description of the value.
    public func error(expected: String, actual: String? = nil) -> JSONError {
        JSONError(file: file, path: path, expected: expected, actual: actual ?? value.briefDescription)
    }

    /// An error whose whole explanation is `message` (no "expected/got" wording).
    public func error(message: String) -> JSONError {
        JSONError(file: file, path: path, expected: message, actual: nil)
    }

    public var isNull: Bool { value == .null }

    /// The members of this object, in document order.
    public func members() throws(JSONError) -> [(key: String, cursor: JSONCursor)] {
        guard case .object(let object) = value else { throw error(expected: "an object") }
        return object.map { (key: $0.key, cursor: child(key: $0.key, $0.value)) }
    }

    /// Member `key` of this object, or nil when absent. Throws when this is not an object.
    public func field(_ key: String) throws(JSONError) -> JSONCursor? {
        guard case .object(let object) = value else { throw error(expected: "an object") }
        return object[key].map { child(key: key, $0) }
    }

    /// Member `key` of this object; throws naming the missing field when absent.
    public func required(_ key: String) throws(JSONError) -> JSONCursor {
        guard let found = try field(key) else {
            throw JSONError(
                file: file, path: JSONPath.appending(path, key: key),
                expected: "required field \"\(key)\" is missing", actual: nil)
        }
        return found
    }

    /// The elements of this array, each with its indexed path.
    public func array() throws(JSONError) -> [JSONCursor] {
        guard case .array(let items) = value else { throw error(expected: "an array") }
        return items.enumerated().map { index, item in
            JSONCursor(item, file: file, path: JSONPath.appending(path, index: index))
        }
    }

    /// A number (integer or decimal literal).
    public func double() throws(JSONError) -> Double {
        guard let number = value.number else { throw error(expected: "a number") }
        return number
    }

    /// An integer literal. Decimal literals such as `3.0` are rejected: a field documented as
    /// an integer is written as one.
    public func int() throws(JSONError) -> Int {
        guard case .int(let number) = value else { throw error(expected: "an integer") }
        return Int(number)
    }

    public func string() throws(JSONError) -> String {
        guard case .string(let text) = value else { throw error(expected: "a string") }
        return text
    }

    public func bool() throws(JSONError) -> Bool {
        guard case .bool(let flag) = value else { throw error(expected: "true or false") }
        return flag
    }

    private func child(key: String, _ value: JSONValue) -> JSONCursor {
        JSONCursor(value, file: file, path: JSONPath.appending(path, key: key))
    }
}
