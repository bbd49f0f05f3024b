import JSON

/// What the scanner needs from a label file without validating it (validation is the job of
/// `Label.load`, run later by whoever uses the fixture): whether it looks like a label, its
/// `image` reference and its tags.
struct LabelPeek: Sendable {
    /// False when the file is valid JSON but not a labels-v1 object (no `version`, no `cells`).
    var looksLikeLabel: Bool
    var isValidJSON: Bool
    var imageReference: String?
    var tags: [String]

    static func read(path: String) -> LabelPeek {
        guard case .some(let value) = try? JSONValue.load(path: path, maxBytes: Label.maxLabelFileBytes) else {
            return LabelPeek(looksLikeLabel: true, isValidJSON: false, imageReference: nil, tags: [])
        }
        guard case .object(let object) = value else {
            return LabelPeek(looksLikeLabel: false, isValidJSON: true, imageReference: nil, tags: [])
        }
        var tags: [String] = []
        if case .array(let items) = object["tags"] {
            for case .string(let tag) in items { tags.append(tag) }
        }
        var reference: String?
        if case .string(let name) = object["image"] { reference = name }
        return LabelPeek(looksLikeLabel: object["version"] != nil || object["cells"] != nil, isValidJSON: true,
                         imageReference: reference, tags: tags)
    }
}
