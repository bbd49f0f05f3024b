/// An ordered JSON object: members keep insertion order so serialized output is deterministic
/// and follows the order the writer chose. Keys are unique; setting an existing key replaces
/// its value in place.
///
/// Equality compares members in order (two objects with the same members in a different order
/// are not equal), matching what `serialized` would print.
public struct JSONObject: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var keys: [String] = []
    public private(set) var values: [JSONValue] = []
    /// Key -> position, built only for objects larger than `indexThreshold`: most objects
    /// (cells, ranges) have a handful of members, where a linear search beats hashing.
    private var positions: [String: Int]?
    private static let indexThreshold = 12

    public init() {}

    /// Builds an object from pairs in order; a repeated key keeps its first position and its
    /// last value.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        for (key, value) in pairs { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// Reads a member, or sets/replaces it (appending new keys at the end); setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { values[$0] } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    values[position] = newValue
                } else {
                    keys.remove(at: position)
                    values.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
                if positions != nil {
                    positions?[key] = keys.count - 1
                } else if keys.count > Self.indexThreshold {
                    rebuildIndex()
                }
            }
        }
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return keys.firstIndex(of: key)
    }

    private mutating func rebuildIndex() {
        guard keys.count > Self.indexThreshold else {
            positions = nil
            return
        }
        var index: [String: Int] = [:]
        index.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() { index[key] = position }
        positions = index
    }

    /// Members known to have distinct keys (a parsed object: the strictness pass refused
    /// duplicates), taken as they are without looking for each key among the earlier ones.
    init(distinctKeys keys: [String], values: [JSONValue]) {
        self.keys = keys
        self.values = values
        rebuildIndex()
    }

    /// Sets `key` to `value` (builder style for reports).
    public mutating func set(_ key: String, _ value: JSONValue) { self[key] = value }

    /// Sets `key` only when `value` is non-nil, so optional report fields are simply absent.
    public mutating func set(_ key: String, ifPresent value: JSONValue?) {
        if let value { self[key] = value }
    }

    /// A copy with `key` set to `value`, for chained construction.
    public func setting(_ key: String, _ value: JSONValue) -> JSONObject {
        var copy = self
        copy[key] = value
        return copy
    }

    public func makeIterator() -> some IteratorProtocol<(key: String, value: JSONValue)> {
        zip(keys, values).lazy.map { (key: $0.0, value: $0.1) }.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }
}
