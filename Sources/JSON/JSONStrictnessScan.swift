import CJSONC

/// A second pass over text json-c has already accepted, for the rules json-c does not
/// enforce even in strict mode: it keeps the last of duplicate keys, truncates keys at an
/// escaped NUL, accepts `NaN` and
/// `Infinity` inside containers, accepts raw control characters in strings, turns `1e400`
/// into infinity and clamps integers beyond 64 bits. The pass tracks the JSON path so each
/// error names the offending value.
struct StrictnessScan {
    private struct Frame {
        var isObject: Bool
        var expectingKey = true
        /// The current key's string token (quotes included) in `text`, and whether it has escapes.
        var keyStart = 0, keyEnd = 0
        var keyEscaped = false
        var index = 0
        /// Where this object's keys begin in `keys`.
        var firstKey: Int
        /// Decoded key -> byte offset of its first occurrence, made once an object has more
        /// than `listedKeys` keys (a linear look is cheaper for the usual handful).
        var keyTable: [String: Int]? = nil
    }

    /// Up to this many keys an object's duplicates are found by comparing the keys' bytes.
    private static let listedKeys = 16

    let text: UnsafeBufferPointer<UInt8>
    let file: String?
    private var frames: [Frame] = []
    /// The keys of every open object, innermost last: the byte range of each key's token
    /// (quotes included) and whether it has escapes. Labels hold thousands of small objects;
    /// keeping their keys as ranges, not strings in a dictionary each, made this pass four
    /// times faster.
    private var keys: [(start: Int, end: Int, escaped: Bool)] = []

    init(text: UnsafeBufferPointer<UInt8>, file: String?) {
        self.text = text
        self.file = file
    }

    mutating func run() throws(JSONError) {
        var index = 0
        let count = text.count
        while index < count {
            switch text[index] {
            case 0x7B:  // {
                frames.append(Frame(isObject: true, firstKey: keys.count))
                index &+= 1
            case 0x5B:  // [
                frames.append(Frame(isObject: false, firstKey: keys.count))
                index &+= 1
            case 0x7D, 0x5D:  // } ]
                if let last = frames.popLast() { keys.removeSubrange(last.firstKey...) }
                index &+= 1
            case 0x2C:  // ,
                if let last = frames.indices.last {
                    if frames[last].isObject { frames[last].expectingKey = true } else { frames[last].index &+= 1 }
                }
                index &+= 1
            case 0x22:  // "
                index = try scanString(from: index)
            case 0x20, 0x09, 0x0A, 0x0D, 0x3A:  // whitespace, :
                index &+= 1
            default:
                index = try scanScalar(from: index)
            }
        }
    }

    /// Checks one string token and, in key position, its uniqueness; returns the offset after it.
    private mutating func scanString(from start: Int) throws(JSONError) -> Int {
        var index = start &+ 1
        var hasEscape = false
        while index < text.count {
            let byte = text[index]
            if byte == 0x22 { break }
            if byte == 0x5C {
                hasEscape = true
                index &+= 2
                continue
            }
            if byte < 0x20 {
                throw failure(at: index, path: valuePath(), expected: "control characters in strings escaped (\\n, \\t, \\u00XX)",
                              actual: "a raw control character " + describeByte(byte))
            }
            index &+= 1
        }
        let end = min(index &+ 1, text.count)
        guard let last = frames.indices.last, frames[last].isObject, frames[last].expectingKey else { return end }
        if hasEscape && decodedKey(start, end, escaped: true).utf8.contains(0) {
            // json-c stores keys as C strings: "a\u0000b" and "a\u0000c" would both become "a",
            // the second silently replacing the first.
            throw failure(at: start, path: containerPath(),
                          expected: "object keys without NUL characters",
                          actual: "a key containing \\u0000")
        }
        if let first = firstOccurrence(start, end, escaped: hasEscape, in: last) {
            let key = decodedKey(start, end, escaped: hasEscape)
            let firstPosition = textPosition(of: first, in: text)
            throw failure(at: start, path: JSONPath.appending(containerPath(), key: key),
                          expected: "each key at most once in an object",
                          actual: "duplicate key \"\(key)\" (first at line \(firstPosition.line), column \(firstPosition.column))")
        }
        keys.append((start, end, hasEscape))
        frames[last].keyStart = start
        frames[last].keyEnd = end
        frames[last].keyEscaped = hasEscape
        frames[last].expectingKey = false
        return end
    }

    /// The byte offset of an earlier key of object `frame` equal to the key token
    /// `start..<end`, or nil; records the key in the object's table once it has one.
    private mutating func firstOccurrence(_ start: Int, _ end: Int, escaped: Bool, in frame: Int) -> Int? {
        let first = frames[frame].firstKey
        if frames[frame].keyTable == nil && keys.count - first >= Self.listedKeys {
            // The keys so far are distinct: each was checked when it was read.
            var table: [String: Int] = [:]
            for key in keys[first...] { table[decodedKey(key.start, key.end, escaped: key.escaped)] = key.start }
            frames[frame].keyTable = table
        }
        if frames[frame].keyTable != nil {
            let key = decodedKey(start, end, escaped: escaped)
            if let earlier = frames[frame].keyTable![key] { return earlier }
            frames[frame].keyTable![key] = start
            return nil
        }
        let token = UnsafeBufferPointer(rebasing: text[start..<end])
        for key in keys[first...] {
            if !escaped && !key.escaped {
                // Without escapes equal keys are equal bytes.
                if key.end - key.start == token.count, UnsafeBufferPointer(rebasing: text[key.start..<key.end]).elementsEqual(token) {
                    return key.start
                }
            } else if decodedKey(key.start, key.end, escaped: key.escaped) == decodedKey(start, end, escaped: escaped) {
                return key.start
            }
        }
        return nil
    }

    /// The key the token `start..<end` (quotes included) stands for, as json-c stores it.
    private func decodedKey(_ start: Int, _ end: Int, escaped: Bool) -> String {
        let raw = UnsafeBufferPointer(rebasing: text[start..<end])
        return escaped ? decodeStringLiteral(raw) : String(decoding: raw.dropFirst().dropLast(), as: UTF8.self)
    }

    /// Checks a literal or number token; returns the offset after it. Works on bytes: this
    /// runs once per number of the document.
    private func scanScalar(from start: Int) throws(JSONError) -> Int {
        var index = start
        var letters = 0  // letters other than e/E: NaN, Infinity
        var hasFractionOrExponent = false
        var hasExponent = false
        while index < text.count {
            let byte = text[index]
            if (0x30...0x39).contains(byte) || byte == 0x2B || byte == 0x2D {
                // digit, sign
            } else if byte == 0x2E {
                hasFractionOrExponent = true
            } else if byte == 0x65 || byte == 0x45 {
                hasFractionOrExponent = true
                hasExponent = true
            } else if (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) {
                letters &+= 1
            } else {
                break
            }
            index &+= 1
        }
        if index == start { return start &+ 1 }  // json-c accepted it; nothing to check
        let token = UnsafeBufferPointer(rebasing: text[start..<index])
        let first = token[0]
        let isNumber = first == 0x2D || (0x30...0x39).contains(first)
        if !isNumber {
            if token.elementsEqual("true".utf8) || token.elementsEqual("false".utf8) || token.elementsEqual("null".utf8) {
                return index
            }
        }
        if !isNumber || letters > 0 {
            throw failure(at: start, path: valuePath(), expected: "a finite JSON number",
                          actual: "\(String(decoding: token, as: UTF8.self)) (NaN and Infinity are not JSON)")
        }
        if !hasFractionOrExponent {
            // Up to 18 digits always fit in Int64; only longer literals need the exact check.
            if token.count > 18, Int64(String(decoding: token, as: UTF8.self)) == nil {
                throw failure(at: start, path: valuePath(),
                              expected: "an integer within 64 bits (write larger numbers with an exponent, e.g. 1e20)",
                              actual: String(decoding: token, as: UTF8.self))
            }
        } else if hasExponent || token.count > 308 {
            // Without an exponent a literal needs more than 308 digits to leave the double range.
            let literal = String(decoding: token, as: UTF8.self)
            if let number = Double(literal), !number.isFinite {
                throw failure(at: start, path: valuePath(), expected: "a number within the double range", actual: literal)
            }
        }
        return index
    }

    /// The path of the container being read (without its current key or index).
    private func containerPath(dropping dropCount: Int = 1) -> String {
        var path = ""
        for frame in frames.dropLast(dropCount) { path = append(frame, to: path) }
        return path
    }

    /// The path of the value at the current position.
    private func valuePath() -> String {
        guard let last = frames.last else { return "" }
        return append(last, to: containerPath())
    }

    private func append(_ frame: Frame, to path: String) -> String {
        guard frame.isObject else { return JSONPath.appending(path, index: frame.index) }
        let key = frame.keyEnd > frame.keyStart ? decodedKey(frame.keyStart, frame.keyEnd, escaped: frame.keyEscaped) : ""
        return JSONPath.appending(path, key: key)
    }

    private func failure(at offset: Int, path: String, expected: String, actual: String) -> JSONError {
        let position = textPosition(of: offset, in: text)
        return JSONError(file: file, path: path, offset: offset, line: position.line, column: position.column,
                         expected: expected, actual: actual)
    }
}

/// Decodes a complete string literal (quotes included) with json-c, so escaped keys compare
/// exactly as json-c stores them.
private func decodeStringLiteral(_ literal: UnsafeBufferPointer<UInt8>) -> String {
    var terminated = Array(literal)
    terminated.append(0)
    guard let tokener = json_tokener_new() else { return String(decoding: literal, as: UTF8.self) }
    defer { json_tokener_free(tokener) }
    let node = terminated.withUnsafeBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            json_tokener_parse_ex(tokener, $0, Int32(buffer.count))
        }
    }
    guard let node else { return String(decoding: literal, as: UTF8.self) }
    defer { json_object_put(node) }
    let count = Int(json_object_get_string_len(node))
    guard let start = json_object_get_string(node) else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
}
