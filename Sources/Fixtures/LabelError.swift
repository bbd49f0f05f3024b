import JSON

/// One violation of labels-v1 (or one JSON syntax error in a label file). `description`
/// names the file, the JSON path and what was expected, e.g.
/// `labels/a.json: cells[17].r: expected a positive radius in pixels, got -3`.
public struct LabelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The underlying located error (file, path, offset when from parsing, expected, actual).
    public var detail: JSONError

    public init(_ detail: JSONError) { self.detail = detail }

    public var file: String? { detail.file }
    public var path: String { detail.path }
    public var expected: String { detail.expected }
    public var actual: String? { detail.actual }
    public var description: String { detail.description }
}

/// Every problem found in one label file (a file is read completely, so all of them are
/// reported together rather than one per run).
public struct LabelErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String?
    /// At least one error, in file order.
    public var errors: [LabelError]

    public init(file: String?, errors: [LabelError]) {
        self.file = file
        self.errors = errors
    }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
