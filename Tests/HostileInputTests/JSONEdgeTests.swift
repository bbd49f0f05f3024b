import JSON
import Testing

/// JSON text that json-c alone would misread.
@Suite struct JSONEdgeTests {
    /// json-c cuts keys at NUL, so these two keys would silently merge into one "a"; they are
    /// refused instead (found by writing this corpus).
    @Test func keysWithEscapedNULAreRefused() throws {
        do {
            _ = try JSONValue.parse("{\"x\": {\"a\\u0000b\": 1, \"a\\u0000c\": 2}}", file: "k.json")
            Issue.record("accepted a key with NUL")
        } catch {
            #expect(error.description
                == "k.json: x (line 1, column 8, byte 7): expected object keys without NUL characters, got a key containing \\u0000")
        }
        // NUL inside string values is fine: they are stored with their length.
        #expect(try JSONValue.parse("[\"a\\u0000b\"]") == .array([.string("a\u{0}b")]))
    }

    @Test func escapedDuplicateKeysAreDuplicates() {
        // "\u0061" is "a": the same key written two ways.
        #expect(throws: JSONError.self) { try JSONValue.parse("{\"a\": 1, \"\\u0061\": 2}", file: "d.json") }
        #expect(throws: JSONError.self) { try JSONValue.parse("{\"\\u00e9\": 1, \"é\": 2}", file: "d.json") }
    }

    @Test func loneSurrogateEscape() throws {
        // A lone surrogate escape cannot be represented in UTF-8; it must not crash.
        let result = try? JSONValue.parse("[\"\\ud800\"]", file: "s.json")
        if case .array(let items)? = result, case .string(let text)? = items.first {
            #expect(text.unicodeScalars.allSatisfy { $0.value != 0xD800 })
        }
    }
}
