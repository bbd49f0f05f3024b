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
        var currentKey = ""
        var index = 0
        /// Key -> byte offset of its first occurrence.
        var keys: [String: Int] = [:]
    }

    let text: UnsafeBufferPointer<UInt8>
    let file: String?
    private var frames: [Frame] = []

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
                frames.append(Frame(isObject: true))
                index &+= 1
            case 0x5B:  // [
                frames.append(Frame(isObject: false))
                index &+= 1
            case 0x7D, 0x5D:  // } ]
                if !frames.isEmpty { frames.removeLast() }
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
        let raw = UnsafeBufferPointer(rebasing: text[start..<end])
        let key = hasEscape ? decodeStringLiteral(raw) : String(decoding: raw.dropFirst().dropLast(), as: UTF8.self)
        if hasEscape && key.utf8.contains(0) {
            // json-c stores keys as C strings: "a\u0000b" and "a\u0000c" would both become "a",
            // the second silently replacing the first.
            throw failure(at: start, path: containerPath(),
                          expected: "object keys without NUL characters",
                          actual: "a key containing \\u0000")
        }
        if let first = frames[last].keys[key] {
            let firstPosition = textPosition(of: first, in: text)
            throw failure(at: start, path: JSONPath.appending(containerPath(), key: key),
                          expected: "each key at most once in an object",
                          actual: "duplicate key \"\(key)\" (first at line \(firstPosition.line), column \(firstPosition.column))")
        }
        frames[last].keys[key] = start
        frames[last].currentKey = key
        frames[last].expectingKey = false
        return end
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
        frame.isObject ? JSONPath.appending(path, key: frame.currentKey) : JSONPath.appending(path, index: frame.index)
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
