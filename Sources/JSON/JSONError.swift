/// A JSON problem: malformed text, or a value that does not have the expected shape.
///
/// `description` reads like `labels/a.json: cells[17].r: expected a non-negative number, got -3`.
/// When `actual` is nil, `expected` holds the whole explanation.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the text came from, nil for in-memory text.
    public var file: String?
    /// The JSON path of the offending value (`cells[17].r`); empty for the top level or when
    /// the text could not be parsed far enough to know it.
    public var path: String
    /// Byte offset into the text, when the error comes from parsing.
    public var offset: Int?
    /// 1-based line and byte column of `offset`.
    public var line: Int?
    public var column: Int?
    public var expected: String
    public var actual: String?

    public init(
        file: String?, path: String, offset: Int? = nil, line: Int? = nil, column: Int? = nil,
        expected: String, actual: String?
    ) {
        self.file = file
        self.path = path
        self.offset = offset
        self.line = line
        self.column = column
        self.expected = expected
        self.actual = actual
    }

    /// `file: path (line L, column C, byte B)`, the prefix every message starts with.
    public var location: String {
        var parts: [String] = [file ?? "<input>"]
        var place = path.isEmpty ? (offset == nil ? "(top level)" : "") : path
        if let offset {
            let position = line.map { "line \($0), column \(column ?? 0), byte \(offset)" } ?? "byte \(offset)"
            place = place.isEmpty ? position : "\(place) (\(position))"
        }
        parts.append(place)
        return parts.joined(separator: ": ")
    }

    public var description: String {
        if let actual { return "\(location): expected \(expected), got \(actual)" }
        return "\(location): \(expected)"
    }
}

/// Line and column (1-based, columns in bytes) of a byte offset.
func textPosition(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
    var line = 1
    var lineStart = 0
    let end = min(offset, bytes.count)
    var index = 0
    while index < end {
        if bytes[index] == 0x0A {
            line &+= 1
            lineStart = index &+ 1
        }
        index &+= 1
    }
    return (line, offset - lineStart + 1)
}
