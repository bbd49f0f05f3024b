import Testing
@testable import JSON

/// Parses `text`, expecting failure, and returns the error.
private func parseError(_ text: String, file: String? = "t.json") -> JSONError? {
    do {
        _ = try JSONValue.parse(text, file: file)
        return nil
    } catch {
        return error
    }
}

@Suite struct JSONParseTests {
    @Test func parsesAllValueKinds() throws {
        let value = try JSONValue.parse(#"{"n": null, "t": true, "f": false, "i": -42, "d": 2.5, "e": 1e3, "s": "a\"b\u00e9/", "a": [1, [2]], "o": {}}"#)
        guard case .object(let object) = value else {
            Issue.record("expected an object")
            return
        }
        #expect(object.keys == ["n", "t", "f", "i", "d", "e", "s", "a", "o"])
        #expect(object["n"] == .null)
        #expect(object["t"] == .bool(true))
        #expect(object["f"] == .bool(false))
        #expect(object["i"] == .int(-42))
        #expect(object["d"] == .double(2.5))
        #expect(object["e"] == .double(1000))
        #expect(object["s"] == .string("a\"b\u{e9}/"))
        #expect(object["a"] == .array([.int(1), .array([.int(2)])]))
        #expect(object["o"] == .object(JSONObject()))
    }

    @Test func topLevelScalarsAndWhitespace() throws {
        #expect(try JSONValue.parse("7") == .int(7))
        #expect(try JSONValue.parse(" \n\t-0.5 \r\n") == .double(-0.5))
        #expect(try JSONValue.parse("\"x\"") == .string("x"))
        #expect(try JSONValue.parse("null") == .null)
    }

    @Test func int64Limits() throws {
        #expect(try JSONValue.parse("9223372036854775807") == .int(.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .int(.min))
        let tooBig = try #require(parseError("[1, 9223372036854775808]"))
        #expect(tooBig.path == "[1]")
        #expect(tooBig.actual == "9223372036854775808")
        #expect(parseError("-99999999999999999999") != nil)
        #expect(try JSONValue.parse("1e20") == .double(1e20))
        #expect(try JSONValue.parse("1000000000000000000") == .int(1_000_000_000_000_000_000))
        #expect(try JSONValue.parse("-999999999999999999") == .int(-999_999_999_999_999_999))
    }

    @Test func rejectsNaNInfinityAndOutOfRange() throws {
        let nan = try #require(parseError(#"{"cells": [{"r": NaN}]}"#))
        #expect(nan.path == "cells[0].r")
        #expect(nan.description.contains("NaN and Infinity are not JSON"))
        let inf = try #require(parseError(#"{"a": -Infinity}"#))
        #expect(inf.path == "a")
        let huge = try #require(parseError(#"{"x": [0, 1e400]}"#))
        #expect(huge.path == "x[1]")
        #expect(huge.expected == "a number within the double range")
        #expect(parseError("NaN") != nil)
        #expect(try JSONValue.parse("1e-400") == .double(0))
        // Without an exponent a literal needs over 308 digits to overflow a double.
        let longDecimal = "1" + String(repeating: "0", count: 400) + ".5"
        #expect(parseError(longDecimal)?.expected == "a number within the double range")
        #expect(try JSONValue.parse("1" + String(repeating: "0", count: 300) + ".5") == .double(1e300))
    }

    @Test func syntaxErrorsCarryOffsetLineAndJsonCMessage() throws {
        let error = try #require(parseError("{\n  \"a\": 1,\n  \"b\": tru\n}"))
        #expect(error.file == "t.json")
        #expect(error.line == 3)
        #expect(error.offset != nil)
        #expect(error.description.hasPrefix("t.json: line 3, column "))
        #expect(error.description.contains("json-c:"))
        let trailingComma = try #require(parseError("[1,]"))
        #expect(trailingComma.offset == 3)
        #expect(trailingComma.actual?.hasPrefix("']' (json-c: ") == true)
        #expect(parseError("{'a': 1}") != nil)
        #expect(parseError("/* c */ 1") != nil)
        #expect(parseError("01") != nil)
    }

    @Test func rejectsEmptyTruncatedAndTrailingInput() throws {
        let empty = try #require(parseError(""))
        #expect(empty.actual == "the end of the input")
        #expect(parseError("   ")?.actual == "the end of the input")
        #expect(parseError("[1, 2")?.actual == "the end of the input")
        let trailing = try #require(parseError("[1] x"))
        #expect(trailing.offset == 4)
        let twoValues = try #require(parseError("{} {}"))
        #expect(twoValues.offset == 3)
        let nul = try #require(parseError("[1]\u{0}"))
        #expect(nul.offset == 3)
        #expect(nul.actual == "byte 0x00")
    }

    @Test func rejectsByteOrderMarkAndInvalidUTF8() throws {
        let bom = #expect(throws: JSONError.self) {
            try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8), file: "b.json")
        }
        #expect(bom?.offset == 0)
        #expect(bom?.description.contains("byte order mark") == true)
        let invalid: [UInt8] = Array("[\"a".utf8) + [0xC3, 0x28] + Array("\"]".utf8)
        var caught: JSONError?
        do { _ = try JSONValue.parse(invalid, file: "u.json") } catch { caught = error }
        let utf8Error = try #require(caught)
        #expect(utf8Error.offset == 3)
        #expect(utf8Error.description.contains("expected valid UTF-8 text, got byte 0xC3"))
    }

    @Test func rejectsRawControlCharactersInStrings() throws {
        let error = try #require(parseError("{\"k\": \"a\tb\"}"))
        #expect(error.path == "k")
        #expect(error.actual?.contains("control character") == true)
        #expect(try JSONValue.parse(#"["a\tb"]"#) == .array([.string("a\tb")]))
    }

    @Test func rejectsDuplicateKeysWithPath() throws {
        let error = try #require(parseError("{\"cells\": [{\"x\": 1, \"y\": 2, \"x\": 3}]}"))
        #expect(error.path == "cells[0].x")
        #expect(error.actual?.hasPrefix("duplicate key \"x\"") == true)
        #expect(error.line == 1)
        #expect(error.column == 29)
        // Escapes are decoded before comparing: "\u0061" is "a".
        let escaped = try #require(parseError(#"{"a": 1, "\u0061": 2}"#))
        #expect(escaped.path == "a")
        // The same key in sibling objects is fine.
        #expect(throws: Never.self) { try JSONValue.parse(#"[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]"#) }
    }

    /// Small objects compare their keys' bytes; from the seventeenth key on an object keeps a
    /// table of decoded keys. Both ways find the same duplicates, escaped or not, and only
    /// within one object.
    @Test(arguments: [3, 16, 17, 40])
    func duplicateKeysInObjectsOfEverySize(keys: Int) throws {
        let members = (0..<keys).map { "\"k\($0)\": \($0)" }
        let plain = "{" + members.joined(separator: ", ") + "}"
        #expect(throws: Never.self) { try JSONValue.parse("[\(plain), \(plain), {\"o\": \(plain)}]") }
        for (late, early) in [(keys - 1, 0), (keys - 1, keys - 2), (keys / 2, 1)] where late != early {
            var twice = members
            twice[late] = "\"k\(early)\": -1"
            let error = try #require(parseError("{\"outer\": 0, \"o\": {" + twice.joined(separator: ", ") + "}}"))
            #expect(error.path == "o.k\(early)", "\(keys) keys, \(late) repeats \(early)")
            #expect(error.actual?.hasPrefix("duplicate key \"k\(early)\"") == true)
            // The same key written with an escape (\u006b is k), before or after.
            var escaped = members
            escaped[late] = "\"\\u006b\(early)\": -1"
            #expect(parseError("{" + escaped.joined(separator: ", ") + "}")?.path == "k\(early)")
            escaped = members
            escaped[early] = "\"\\u006b\(early)\": -1"
            escaped[late] = "\"k\(early)\": -1"
            #expect(parseError("{" + escaped.joined(separator: ", ") + "}")?.path == "k\(early)")
        }
        // The outer object's key again after a large inner object: found, with its path.
        let again = try #require(parseError("{\"o\": \(plain), \"p\": 1, \"o\": 2}"))
        #expect(again.path == "o" && again.column == plain.utf8.count + 17)
    }

    @Test func topLevelMembersConvertOnlyWhatIsAskedAndCheckEverything() throws {
        let text = #"{"version": 1, "cells": [{"x": 1}], "image": "a.png", "tags": ["t"], "image2": null}"#
        let members = try #require(try JSONValue.topLevelMembers(Array(text.utf8), converting: ["image", "tags", "image2"]))
        #expect(members.map(\.key) == ["version", "cells", "image", "tags", "image2"])
        #expect(members[0].value == nil && members[1].value == nil)
        #expect(members[2].value == .string("a.png") && members[3].value == .array(["t"]) && members[4].value == .null)
        #expect(try JSONValue.topLevelMembers(Array("[1, 2]".utf8), converting: []) == nil)
        #expect(try JSONValue.topLevelMembers(Array("null".utf8), converting: []) == nil)
        // The parts left unconverted are checked as strictly as by `parse`.
        let bad = #"{"cells": [{"x": 1, "x": 2}], "image": "a.png"}"#
        do {
            _ = try JSONValue.topLevelMembers(Array(bad.utf8), file: "l.json", converting: ["image"])
            Issue.record("a duplicate key inside the unconverted cells was accepted")
        } catch {
            #expect(error.path == "cells[0].x" && error.file == "l.json")
        }
    }

    @Test func depthLimit() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let error = try #require(parseError(deep))
        #expect(error.expected == "nesting at most 512 levels deep")
        let ok = String(repeating: "[", count: 400) + String(repeating: "]", count: 400)
        #expect(throws: Never.self) { try JSONValue.parse(ok) }
        #expect(throws: JSONError.self) { try JSONValue.parse("[[[1]]]", maxDepth: 2) }
    }

    @Test func embeddedNulInStringRoundTrips() throws {
        let value = try JSONValue.parse(#"["a\u0000b"]"#)
        #expect(value == .array([.string("a\u{0}b")]))
        #expect(try JSONValue.parse(value.serialized()) == value)
    }
}
