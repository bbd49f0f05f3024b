import JSON
import Vision

/// Which of cellqa's JSON documents a file holds, told by its top-level keys.
///
/// Why: the four kinds are all flat JSON objects handed to options with similar names, and a
/// file given to the wrong one failed on its first key ("unknown configuration key
/// \"schemaVersion\"" and a list of 150 keys). `misfiledDocument` says instead what the file is
/// and where it goes.
public enum DocumentKind: Sendable, Equatable {
    case runReport, acceptance, pipelineConfig, label

    /// The kind `value` is, or nil for none of them (not an object, or no key of any kind).
    /// A report has `schemaVersion`, a label `cells`; an acceptance file and a configuration are
    /// told by their own keys, the acceptance file first (`description` alone is not enough).
    public static func of(_ value: JSONValue) -> DocumentKind? {
        guard case .object(let object) = value else { return nil }
        let keys = Set(object.keys)
        if keys.contains("schemaVersion") { return .runReport }
        if keys.contains("cells") { return .label }
        if !keys.isDisjoint(with: Acceptance.limitKeys + ["tags", "baseline"]) { return .acceptance }
        if !keys.isDisjoint(with: configKeys) { return .pipelineConfig }
        return nil
    }

    private static let configKeys: Set<String> = {
        guard case .object(let defaults) = PipelineConfig().jsonValue else { return [] }
        return Set(defaults.keys)
    }()

    /// The kind as a person names it.
    public var name: String {
        switch self {
        case .runReport: "a run report (report.json)"
        case .acceptance: "an acceptance file"
        case .pipelineConfig: "a pipeline configuration"
        case .label: "a labels-v1 label"
        }
    }

    /// Where a file of this kind goes on the command line.
    public var use: String {
        switch self {
        case .runReport: "give it to --baseline, or as a version to cellqa compare"
        case .acceptance: "give it to --acceptance"
        case .pipelineConfig: "give it to --config, or as a version to cellqa compare"
        case .label: "it belongs in a dataset, beside its image or under --labels"
        }
    }
}

/// A message for the file at `path` when it holds another kind of document than any of
/// `expected` (`FILE is a run report (report.json), not a pipeline configuration; give it to
/// --baseline, ...`), or nil when it is of an expected kind, of no known kind or not
/// readable JSON: then the parser's own error says what is wrong.
public func misfiledDocument(_ path: String, expected: [DocumentKind]) -> String? {
    guard let value = try? JSONValue.load(path: path), let kind = DocumentKind.of(value),
          !expected.contains(kind) else { return nil }
    return "\(path) is \(kind.name), not \(expected.map(\.name).joined(separator: " or ")); \(kind.use)"
}
