import CJSONC

extension JSONValue {
    /// The JSON text: members in insertion order, no escaped slashes, doubles in Swift's
    /// shortest round-trip form (so `parse(serialized())` returns an equal value). The layout
    /// is json-c's (`JSON_C_TO_STRING_PRETTY | SPACED`, or `PLAIN`), byte for byte.
    ///
    /// Non-finite doubles cannot be represented in JSON and are written as `null`; the parser
    /// never produces them, so this only concerns values built in code.
    ///
    /// - Parameter pretty: two-space indentation and one member per line; otherwise compact.
    public func serialized(pretty: Bool = true) -> String {
        var bytes: [UInt8] = []
        serialize(pretty: pretty) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `serialized(pretty:)` handed to `output` in pieces of some 64 KiB as it is made, so that
    /// a large report goes to its file without the whole text (or a second tree of it) in
    /// memory. Each piece is valid only during its call.
    public func serialize(pretty: Bool = true, into output: (UnsafeRawBufferPointer) -> Void) {
        withoutActuallyEscaping(output) { output in
            var writer = JSONTextWriter(pretty: pretty, output: output)
            writer.value(self, level: 0)
            writer.flush()
        }
    }

    /// The same text made by json-c itself (a json-c tree, then `json_object_to_json_string`),
    /// kept as the reference `serialized` is tested against. Object keys are C strings there:
    /// a key holding a NUL character is cut at the NUL.
    package func jsoncSerialized(pretty: Bool) -> String {
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

/// Writes JSON text into a buffer that it hands on whenever it passes `chunk` bytes.
///
/// Why not json-c: its tree of a 4 MB report held some 30 MB (a hash table per object) on top
/// of the `JSONValue` it was made from.
private struct JSONTextWriter {
    let pretty: Bool
    let output: (UnsafeRawBufferPointer) -> Void
    private var buffer: [UInt8] = []
    private static let chunk = 1 << 16

    init(pretty: Bool, output: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.pretty = pretty
        self.output = output
        buffer.reserveCapacity(Self.chunk + 4096)
    }

    mutating func flush() {
        buffer.withUnsafeBytes { output($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func value(_ value: JSONValue, level: Int) {
        if buffer.count >= Self.chunk { flush() }
        switch value {
        case .null: ascii("null")
        case .bool(let flag): ascii(flag ? "true" : "false")
        case .int(let number): ascii(String(number))
        case .double(let number): ascii(number.isFinite ? JSONNumberText.shortest(number) : "null")
        case .string(let text): string(text)
        case .array(let items):
            open(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                member(first: i == 0, level: level)
                self.value(item, level: level + 1)
            }
            close(UInt8(ascii: "]"), empty: items.isEmpty, level: level)
        case .object(let object):
            open(UInt8(ascii: "{"))
            var first = true
            for (key, member) in object {
                self.member(first: first, level: level)
                first = false
                string(key)
                ascii(pretty ? ": " : ":")
                self.value(member, level: level + 1)
            }
            close(UInt8(ascii: "}"), empty: first, level: level)
        }
    }

    private mutating func open(_ bracket: UInt8) {
        buffer.append(bracket)
        if pretty { buffer.append(0x0A) }
    }

    /// The separator before a member and its indentation.
    private mutating func member(first: Bool, level: Int) {
        if !first {
            buffer.append(UInt8(ascii: ","))
            if pretty { buffer.append(0x0A) }
        }
        indent(level + 1)
    }

    private mutating func close(_ bracket: UInt8, empty: Bool, level: Int) {
        if pretty {
            if !empty { buffer.append(0x0A) }
            indent(level)
        }
        buffer.append(bracket)
    }

    private mutating func indent(_ level: Int) {
        guard pretty else { return }
        buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }

    private mutating func ascii(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    /// A quoted string: `"` and `\` escaped, the control characters as `\b \f \n \r \t` or
    /// `\u00xx`; every other byte (the slash, UTF-8 sequences) as it is.
    private mutating func string(_ text: String) {
        buffer.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(byte)
            case 0x08: escape(UInt8(ascii: "b"))
            case 0x09: escape(UInt8(ascii: "t"))
            case 0x0A: escape(UInt8(ascii: "n"))
            case 0x0C: escape(UInt8(ascii: "f"))
            case 0x0D: escape(UInt8(ascii: "r"))
            case 0..<0x20:
                escape(UInt8(ascii: "u"))
                buffer.append(contentsOf: [UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigit(byte >> 4), hexDigit(byte & 0x0F)])
            default:
                buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private mutating func escape(_ letter: UInt8) {
        buffer.append(UInt8(ascii: "\\"))
        buffer.append(letter)
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
