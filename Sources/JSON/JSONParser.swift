import CJSONC

extension JSONValue {
    /// json-c's default nesting limit is 32, too low for reports; 512 still bounds the
    /// recursion of the tree conversion.
    public static let defaultMaxDepth = 512

    /// Labels and configs are small; this bounds memory on a hostile or mistaken file.
    public static let defaultMaxFileBytes = 256 * 1024 * 1024

    /// Parses strict JSON (RFC 8259) with json-c.
    ///
    /// Rejected, each with a `JSONError` naming `file`, the byte offset (with line and column)
    /// and, where known, the JSON path: syntax errors (json-c's message), a leading UTF-8 byte
    /// order mark, invalid UTF-8 (including overlong forms and encoded surrogates), unescaped control characters in strings, data after the
    /// value, nesting deeper than `maxDepth`, `NaN`/`Infinity`, numbers beyond the double
    /// range (`1e400`), integer literals beyond `Int64`, and duplicate keys in an object
    /// (json-c itself would silently keep the last one).
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 text.
    ///   - file: the name used in error messages, nil for in-memory text.
    ///   - maxDepth: the deepest nesting of arrays/objects accepted (at least 1).
    public static func parse(_ bytes: [UInt8], file: String? = nil, maxDepth: Int = defaultMaxDepth)
        throws(JSONError) -> JSONValue
    {
        try checked(bytes, file: file, maxDepth: maxDepth) { convert($0) }
    }

    /// The top-level members of a JSON object, in order, for a caller that needs a few of
    /// them: the whole text is checked as `parse` checks it, but only the values of the
    /// members named in `converting` are converted (a label's walk reads its `image` and
    /// `tags`, not its thousands of cells). nil when the text is valid JSON but not an object.
    public static func topLevelMembers(_ bytes: [UInt8], file: String? = nil, converting: Set<String>,
                                       maxDepth: Int = defaultMaxDepth)
        throws(JSONError) -> [(key: String, value: JSONValue?)]?
    {
        try checked(bytes, file: file, maxDepth: maxDepth) { tree in
            guard let tree, json_object_get_type(tree) == json_type_object else { return nil }
            var members: [(key: String, value: JSONValue?)] = []
            forEachMember(of: tree) { key, value in members.append((key, converting.contains(key) ? convert(value) : nil)) }
            return members
        }
    }

    /// Checks `bytes` as strict JSON (see `parse`) and hands json-c's tree to `body` (nil for a
    /// top-level `null`); the tree is freed afterwards.
    private static func checked<T>(_ bytes: [UInt8], file: String?, maxDepth: Int, _ body: (OpaquePointer?) -> T)
        throws(JSONError) -> T
    {
        guard bytes.count < Int(Int32.max) - 1 else {
            throw JSONError(file: file, path: "", expected: "at most 2 GiB of JSON text",
                            actual: "\(bytes.count) bytes")
        }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw JSONError(file: file, path: "", offset: 0, line: 1, column: 1,
                            expected: "JSON text without a byte order mark",
                            actual: "a UTF-8 byte order mark (save the file as UTF-8 without BOM)")
        }
        // json-c needs to see a terminator to finish a top-level number or literal.
        var terminated = bytes
        terminated.append(0)
        let result: Result<T, JSONError> = terminated.withUnsafeBufferPointer { buffer in
            let text = UnsafeBufferPointer(rebasing: buffer[0..<bytes.count])
            do throws(JSONError) {
                // json-c's own UTF-8 check lets overlong forms, surrogates and code points above
                // U+10FFFF through (they would become U+FFFD silently), so check first.
                if let bad = firstInvalidUTF8(in: text) {
                    let position = textPosition(of: bad, in: text)
                    throw JSONError(file: file, path: "", offset: bad, line: position.line, column: position.column,
                                    expected: "valid UTF-8 text",
                                    actual: "\(describeByte(text[bad])), which does not start a valid UTF-8 sequence here")
                }
                // A nil tree is a successfully parsed top-level `null`.
                let tree = try tokenize(buffer, textCount: bytes.count, file: file, maxDepth: maxDepth)
                defer { if let tree { json_object_put(tree) } }
                var scan = StrictnessScan(text: text, file: file)
                try scan.run()
                return .success(body(tree))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses the UTF-8 of `text`; see `parse(_:file:maxDepth:)`.
    public static func parse(_ text: String, file: String? = nil, maxDepth: Int = defaultMaxDepth)
        throws(JSONError) -> JSONValue
    {
        try parse(Array(text.utf8), file: file, maxDepth: maxDepth)
    }

    /// Reads and parses the file at `path` (at most `maxBytes` bytes); errors name `path`.
    public static func load(path: String, maxBytes: Int = defaultMaxFileBytes) throws(JSONError) -> JSONValue {
        let bytes = try readWholeFile(path: path, maxBytes: maxBytes)
        return try parse(bytes, file: path)
    }

    /// `topLevelMembers(_:file:converting:maxDepth:)` of the file at `path` (at most `maxBytes`
    /// bytes); errors name `path`.
    public static func topLevelMembers(path: String, maxBytes: Int = defaultMaxFileBytes, converting: Set<String>)
        throws(JSONError) -> [(key: String, value: JSONValue?)]?
    {
        let bytes = try readWholeFile(path: path, maxBytes: maxBytes)
        return try topLevelMembers(bytes, file: path, converting: converting)
    }
}

/// Runs json-c over `buffer` (text plus a NUL terminator) and returns the owned tree (nil for
/// a top-level `null`, which json-c represents as a NULL object).
private func tokenize(_ buffer: UnsafeBufferPointer<UInt8>, textCount: Int, file: String?, maxDepth: Int)
    throws(JSONError) -> OpaquePointer?
{
    let text = UnsafeBufferPointer(rebasing: buffer[0..<textCount])
    func failure(at offset: Int, expected: String, actual: String) -> JSONError {
        let position = textPosition(of: offset, in: text)
        return JSONError(file: file, path: "", offset: offset, line: position.line, column: position.column,
                         expected: expected, actual: actual)
    }
    guard let tokener = json_tokener_new_ex(Int32(clamping: max(1, maxDepth))) else {
        throw JSONError(file: file, path: "", expected: "memory for the JSON tokenizer", actual: "none")
    }
    defer { json_tokener_free(tokener) }
    json_tokener_set_flags(tokener, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8)
    let tree = buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
        json_tokener_parse_ex(tokener, $0, Int32(buffer.count))
    }
    let status = json_tokener_get_error(tokener)
    let end = json_tokener_get_parse_end(tokener)
    guard status == json_tokener_success else {
        if let tree { json_object_put(tree) }
        let offset = min(end, textCount)
        if offset >= textCount || status == json_tokener_continue {
            throw failure(at: offset, expected: "a complete JSON value", actual: "the end of the input")
        }
        if status == json_tokener_error_depth {
            throw failure(at: offset, expected: "nesting at most \(maxDepth) levels deep",
                          actual: "deeper nesting")
        }
        if status == json_tokener_error_parse_utf8_string {
            // json-c stops after the bad sequence; point at its first byte instead.
            let bad = min(firstInvalidUTF8(in: text) ?? offset, offset)
            throw failure(at: bad, expected: "valid UTF-8 text", actual: "\(describeByte(text[bad])), which does not start a valid UTF-8 sequence here")
        }
        let reason = String(cString: json_tokener_error_desc(status))
        let found = text[offset] == 0 ? "a NUL byte" : describeByte(text[offset])
        throw failure(at: offset, expected: "valid JSON", actual: "\(found) (json-c: \(reason))")
    }
    var index = end
    while index < textCount {
        let byte = text[index]
        guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else {
            if let tree { json_object_put(tree) }
            throw failure(at: index, expected: "nothing but whitespace after the JSON value",
                          actual: describeByte(byte))
        }
        index &+= 1
    }
    return tree
}

/// The offset of the first byte that does not begin a well-formed UTF-8 sequence (RFC 3629:
/// no overlong forms, no surrogates, nothing above U+10FFFF), nil when all of `bytes` is valid.
func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var index = 0
    let count = bytes.count
    while index < count {
        let lead = bytes[index]
        if lead < 0x80 {
            index &+= 1
            continue
        }
        // Allowed range of the second byte and the sequence length, by lead byte (Unicode table 3-7).
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return index
        }
        guard index &+ length <= count else { return index }
        let second = bytes[index &+ 1]
        guard second >= low && second <= high else { return index }
        var continuation = 2
        while continuation < length {
            guard bytes[index &+ continuation] & 0xC0 == 0x80 else { return index }
            continuation &+= 1
        }
        index &+= length
    }
    return nil
}

/// `'x'` for printable ASCII, `byte 0xNN` otherwise.
func describeByte(_ byte: UInt8) -> String {
    if (0x21...0x7E).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
    let hex = String(byte, radix: 16, uppercase: true)
    return "byte 0x" + (hex.count < 2 ? "0" + hex : hex)
}

/// Converts a json-c tree the strictness scan has already accepted (finite numbers, integers
/// within Int64, unique keys). Recursion depth is bounded by the tokenizer's depth limit.
/// Calls `body` with each member of the json-c object `node` (key, value), in order.
private func forEachMember(of node: OpaquePointer, _ body: (String, OpaquePointer?) -> Void) {
    var iterator = json_object_iter_begin(node)
    var end = json_object_iter_end(node)
    while json_object_iter_equal(&iterator, &end) == 0 {
        body(String(cString: json_object_iter_peek_name(&iterator)), json_object_iter_peek_value(&iterator))
        json_object_iter_next(&iterator)
    }
}

private func convert(_ node: OpaquePointer?) -> JSONValue {
    guard let node else { return .null }
    let type = json_object_get_type(node)
    if type == json_type_boolean { return .bool(json_object_get_boolean(node) != 0) }
    if type == json_type_int { return .int(json_object_get_int64(node)) }
    if type == json_type_double { return .double(json_object_get_double(node)) }
    if type == json_type_string {
        let count = Int(json_object_get_string_len(node))
        guard let start = json_object_get_string(node) else { return .string("") }
        let bytes = UnsafeRawBufferPointer(start: start, count: count)
        return .string(String(decoding: bytes, as: UTF8.self))
    }
    if type == json_type_array {
        let count = json_object_array_length(node)
        var items: [JSONValue] = []
        items.reserveCapacity(count)
        for index in 0..<count { items.append(convert(json_object_array_get_idx(node, index))) }
        return .array(items)
    }
    if type == json_type_object {
        var keys: [String] = [], values: [JSONValue] = []
        keys.reserveCapacity(Int(json_object_object_length(node)))
        values.reserveCapacity(keys.capacity)
        forEachMember(of: node) { key, value in
            keys.append(key)
            values.append(convert(value))
        }
        return .object(JSONObject(distinctKeys: keys, values: values))
    }
    return .null
}
