import JSON

/// A violation of a JSON Schema: where in the instance, and what was expected.
public struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// JSON path of the offending value ("" for the top level).
    public var path: String
    public var message: String
    public var description: String { "\(path.isEmpty ? "(top level)" : path): \(message)" }
}

/// Validates JSON values against the subset of JSON Schema (draft 2020-12) that
/// `scripts/report.schema.json` uses: `type` (name or array of names; "integer" means a
/// number with no fraction), `enum`, `const`, `minimum`, `maximum`, `required`,
/// `properties`, `additionalProperties` (boolean or schema), `items`, `minItems`, and `$ref`
/// to `#/$defs/<name>`. Annotations (`$schema`, `$id`, `title`, `description`, `$defs`) are
/// ignored. Any other keyword is reported as unsupported, so a schema can never silently ask
/// for a check this validator does not make.
public struct SchemaValidator: Sendable {
    public let schema: JSONValue

    public init(schema: JSONValue) {
        self.schema = schema
    }

    static let annotations: Set<String> = ["$schema", "$id", "title", "description", "$defs"]
    static let keywords: Set<String> = ["type", "enum", "const", "minimum", "maximum", "required", "properties",
                                        "additionalProperties", "items", "minItems", "$ref"]

    /// Every violation found (empty when valid).
    public func validate(_ instance: JSONValue) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        check(instance, against: schema, path: "", depth: 0, into: &violations)
        return violations
    }

    private func check(_ value: JSONValue, against schema: JSONValue, path: String, depth: Int,
                       into out: inout [SchemaViolation]) {
        guard depth < 64 else {
            out.append(SchemaViolation(path: path, message: "schema nesting or $ref cycle deeper than 64"))
            return
        }
        if case .bool(let allowed) = schema {
            if !allowed { out.append(SchemaViolation(path: path, message: "no value allowed here")) }
            return
        }
        guard case .object(let rules) = schema else {
            out.append(SchemaViolation(path: path, message: "schema is not an object or boolean"))
            return
        }
        for key in rules.keys where !SchemaValidator.keywords.contains(key) && !SchemaValidator.annotations.contains(key) {
            out.append(SchemaViolation(path: path, message: "unsupported schema keyword \"\(key)\""))
        }
        if case .string(let ref)? = rules["$ref"] {
            let prefix = "#/$defs/"
            if ref.hasPrefix(prefix), let target = self.schema["$defs"]?[String(ref.dropFirst(prefix.count))] {
                check(value, against: target, path: path, depth: depth + 1, into: &out)
            } else {
                out.append(SchemaViolation(path: path, message: "unresolvable $ref \"\(ref)\""))
            }
        }
        if let type = rules["type"] {
            let names: [String]
            switch type {
            case .string(let name): names = [name]
            case .array(let items): names = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
            default: names = []
            }
            if !names.contains(where: { matches(value, type: $0) }) {
                out.append(SchemaViolation(path: path, message: "expected \(names.joined(separator: " or ")), got \(value.briefDescription)"))
                return
            }
        }
        if case .array(let options)? = rules["enum"], !options.contains(where: { equalJSON($0, value) }) {
            out.append(SchemaViolation(path: path, message: "expected one of \(options.map(\.briefDescription).joined(separator: ", ")), got \(value.briefDescription)"))
        }
        if let constant = rules["const"], !equalJSON(constant, value) {
            out.append(SchemaViolation(path: path, message: "expected \(constant.briefDescription), got \(value.briefDescription)"))
        }
        if let number = value.number {
            if let minimum = rules["minimum"]?.number, number < minimum {
                out.append(SchemaViolation(path: path, message: "expected a number >= \(minimum), got \(value.briefDescription)"))
            }
            if let maximum = rules["maximum"]?.number, number > maximum {
                out.append(SchemaViolation(path: path, message: "expected a number <= \(maximum), got \(value.briefDescription)"))
            }
        }
        if case .object(let object) = value {
            if case .array(let required)? = rules["required"] {
                for case .string(let key) in required where object[key] == nil {
                    out.append(SchemaViolation(path: JSONPath.appending(path, key: key), message: "required member is missing"))
                }
            }
            let properties: JSONObject
            if case .object(let p)? = rules["properties"] { properties = p } else { properties = JSONObject() }
            for (key, member) in object {
                let memberPath = JSONPath.appending(path, key: key)
                if let sub = properties[key] {
                    check(member, against: sub, path: memberPath, depth: depth + 1, into: &out)
                } else if let additional = rules["additionalProperties"] {
                    if case .bool(false) = additional {
                        out.append(SchemaViolation(path: memberPath, message: "member not allowed by the schema"))
                    } else {
                        check(member, against: additional, path: memberPath, depth: depth + 1, into: &out)
                    }
                }
            }
        }
        if case .array(let items) = value {
            if let minItems = rules["minItems"]?.number, Double(items.count) < minItems {
                out.append(SchemaViolation(path: path, message: "expected at least \(Int(minItems)) items, got \(items.count)"))
            }
            if let itemSchema = rules["items"] {
                for (i, item) in items.enumerated() {
                    check(item, against: itemSchema, path: JSONPath.appending(path, index: i), depth: depth + 1, into: &out)
                }
            }
        }
    }

    private func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): return true
        case ("number", .int), ("number", .double): return true
        case ("integer", .int): return true
        case ("integer", .double(let d)): return d == d.rounded()
        default: return false
        }
    }
}

/// JSON equality where 1 and 1.0 are the same number (as JSON Schema defines it).
func equalJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
    if let x = a.number, let y = b.number { return x == y }
    return a == b
}
