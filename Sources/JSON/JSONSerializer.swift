import CJSONC

extension JSONValue {
    /// Serializes through json-c: members in insertion order, no escaped slashes, doubles in
    /// Swift's shortest round-trip form (so `parse(serialized())` returns an equal value).
    ///
    /// Non-finite doubles cannot be represented in JSON and are written as `null`; the parser
    /// never produces them, so this only concerns values built in code. Object keys are C
    /// strings for json-c: a key containing a NUL character is cut at the NUL.
    ///
    /// - Parameter pretty: two-space indentation and one member per line; otherwise compact.
    public func serialized(pretty: Bool = true) -> String {
        guard let tree = makeJSONC(self) else { return "null" }
        defer { json_object_put(tree) }
        let flags = pretty
            ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE
            : JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE
        var length = 0
        guard let text = json_object_to_json_string_length(tree, flags, &length) else { return "null" }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }
}

/// Builds an owned json-c tree; nil stands for JSON null, as in json-c itself.
private func makeJSONC(_ value: JSONValue) -> OpaquePointer? {
    switch value {
    case .null:
        return nil
    case .bool(let flag):
        return json_object_new_boolean(flag ? 1 : 0)
    case .int(let number):
        return json_object_new_int64(number)
    case .double(let number):
        guard number.isFinite else { return nil }
        return json_object_new_double_s(number, JSONNumberText.shortest(number))
    case .string(let text):
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                guard let start = chars.baseAddress else { return json_object_new_string("") }
                return json_object_new_string_len(start, Int32(clamping: chars.count))
            }
        }
    case .array(let items):
        guard let array = json_object_new_array_ext(Int32(clamping: items.count)) else { return nil }
        for item in items { json_object_array_add(array, makeJSONC(item)) }
        return array
    case .object(let object):
        guard let node = json_object_new_object() else { return nil }
        for (key, member) in object { json_object_object_add(node, key, makeJSONC(member)) }
        return node
    }
}
