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
        // The whole file is checked, but only what pairing needs is converted: a label's cells
        // are read once, when its fixture runs.
        let members: [(key: String, value: JSONValue?)]?
        do {
            members = try JSONValue.topLevelMembers(path: path, maxBytes: Label.maxLabelFileBytes, converting: ["image", "tags"])
        } catch {
            return LabelPeek(looksLikeLabel: true, isValidJSON: false, imageReference: nil, tags: [])
        }
        guard let members else {
            return LabelPeek(looksLikeLabel: false, isValidJSON: true, imageReference: nil, tags: [])
        }
        var tags: [String] = []
        var reference: String?
        var looksLikeLabel = false
        for (key, value) in members {
            switch (key, value) {
            case ("tags", .array(let items)?):
                for case .string(let tag) in items { tags.append(tag) }
            case ("image", .string(let name)?):
                reference = name
            case ("version", _), ("cells", _):
                looksLikeLabel = true
            default:
                break
            }
        }
        return LabelPeek(looksLikeLabel: looksLikeLabel, isValidJSON: true, imageReference: reference, tags: tags)
    }
}
