import Testing
@testable import JSON

@Suite struct JSONSerializeTests {
    @Test func prettyOutputIsDeterministicAndOrdered() {
        var object = JSONObject()
        object.set("zeta", 1)
        object.set("alpha", .array([.double(0.1), .bool(true), .null]))
        object.set("path", "a/b")
        #expect(JSONValue.object(object).serialized(pretty: true) == """
            {
              "zeta": 1,
              "alpha": [
                0.1,
                true,
                null
              ],
              "path": "a/b"
            }
            """)
        #expect(JSONValue.object(object).serialized(pretty: false) == #"{"zeta":1,"alpha":[0.1,true,null],"path":"a/b"}"#)
    }

    @Test(arguments: [0.1, 1.0 / 3.0, 1e-5, 1e20, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, -0.0, 123456.789, Double.leastNormalMagnitude / 3])
    func doublesRoundTripExactly(value: Double) throws {
        let text = JSONValue.array([.double(value)]).serialized(pretty: false)
        let back = try JSONValue.parse(text)
        guard case .array(let items) = back, case .double(let parsed) = items.first else {
            Issue.record("\(text) did not parse back to a double")
            return
        }
        #expect(parsed.bitPattern == value.bitPattern, "\(text)")
    }

    @Test func shortestRepresentation() {
        #expect(JSONValue.double(0.1).serialized(pretty: false) == "0.1")
        #expect(JSONValue.double(2).serialized(pretty: false) == "2.0")
        #expect(JSONValue.int(2).serialized(pretty: false) == "2")
    }

    @Test func nonFiniteDoublesBecomeNull() {
        let value: JSONValue = ["a": .double(.nan), "b": .double(.infinity)]
        #expect(value.serialized(pretty: false) == #"{"a":null,"b":null}"#)
    }

    @Test func stringEscapingRoundTrips() throws {
        let tricky = "quote\" backslash\\ slash/ newline\n tab\t bell\u{7} e\u{301} \u{1F9EB} \u{2028}"
        let value: JSONValue = [tricky: .string(tricky), "": ""]
        let text = value.serialized(pretty: true)
        #expect(text.contains("slash/"))
        #expect(try JSONValue.parse(text) == value)
    }

    @Test func roundTripOfNestedDocument() throws {
        let source = #"{"version": 1, "cells": [{"x": 1.5, "y": -2, "label": "live"}], "grid": {"corners": [[0, 0], [10.25, 0]]}, "tags": [], "o": {}, "big": 9223372036854775807}"#
        let value = try JSONValue.parse(source)
        #expect(try JSONValue.parse(value.serialized(pretty: true)) == value)
        #expect(try JSONValue.parse(value.serialized(pretty: false)) == value)
    }

    /// The writer makes json-c's layout byte for byte (the reports written before it had that
    /// layout, and a baseline recorded again must differ only where its content does).
    @Test(arguments: [false, true])
    func matchesJSONCByteForByte(pretty: Bool) {
        var random = XorShift(seed: 0xC0FFEE)
        for round in 0..<300 {
            let value = randomValue(&random, depth: 0)
            let ours = value.serialized(pretty: pretty)
            let jsonc = value.jsoncSerialized(pretty: pretty)
            #expect(ours == jsonc, "round \(round)")
            if ours != jsonc { return }
        }
    }

    @Test func everyControlCharacterAndTheSlashAsJSONCWritesThem() throws {
        let text = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self) + "é\u{1F9EB}"
        for value: JSONValue in [.string(text), [String(text.filter { $0 != "\0" }): .string(text)]] {
            #expect(value.serialized(pretty: false) == value.jsoncSerialized(pretty: false))
            #expect(value.serialized(pretty: true) == value.jsoncSerialized(pretty: true))
            #expect(try JSONValue.parse(value.serialized(pretty: false)) == value)
        }
        #expect(JSONValue.string("\u{1}\u{1f}/").serialized(pretty: false) == #""\u0001\u001f/""#)
    }

    @Test func emptyContainersAndScalarsAtTheTop() {
        #expect(JSONValue.array([]).serialized(pretty: true) == "[\n]")
        #expect(JSONValue.object(JSONObject()).serialized(pretty: true) == "{\n}")
        #expect(JSONValue.array([.array([]), .object(JSONObject())]).serialized(pretty: false) == "[[],{}]")
        #expect(JSONValue.null.serialized() == "null")
        #expect(JSONValue.int(.min).serialized() == "-9223372036854775808")
        for value: JSONValue in [[], [:], ["a": [], "b": [:]], .null, .int(.min), .double(.nan)] {
            #expect(value.serialized(pretty: true) == value.jsoncSerialized(pretty: true))
        }
    }

    /// A key holding a NUL character is written whole, escaped (json-c, whose keys are C
    /// strings, cut it at the NUL, so two such keys could merge), and this parser refuses it
    /// by name rather than reading a different key.
    @Test func keysWithANulAreWrittenWholeAndRefusedOnReading() {
        let value: JSONValue = ["a\u{0}b": 1, "a\u{0}c": 2]
        #expect(value.serialized(pretty: false) == #"{"a\u0000b":1,"a\u0000c":2}"#)
        #expect(throws: JSONError.self) { try JSONValue.parse(value.serialized(pretty: false)) }
    }

    @Test func largeValuesComeInPiecesThatMakeTheWholeText() {
        let row: JSONValue = ["x": 1.25, "name": "fixture/with \"quotes\"", "tags": ["a", "b"]]
        let value = JSONValue.array(Array(repeating: row, count: 5_000))
        var pieces: [[UInt8]] = []
        value.serialize(pretty: true) { pieces.append(Array($0)) }
        #expect(pieces.count > 3)
        #expect(pieces.dropLast().allSatisfy { $0.count >= 1 << 16 && $0.count < (1 << 16) + 4096 })
        #expect(String(decoding: pieces.joined(), as: UTF8.self) == value.serialized(pretty: true))
        #expect(value.serialized(pretty: true) == value.jsoncSerialized(pretty: true))
    }

    private func randomValue(_ random: inout XorShift, depth: Int) -> JSONValue {
        let kind = random.next() % (depth >= 4 ? 6 : 8)
        switch kind {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .int(Int64(bitPattern: random.next()) >> (random.next() % 64))
        case 3:
            let d = Double(bitPattern: random.next())
            return .double(random.next() % 4 == 0 ? Double(Int64(bitPattern: random.next()) % 1000) / 8 : d)
        case 4, 5: return .string(randomString(&random))
        case 6:
            let count = Int(random.next() % 5)
            return .array((0..<count).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int(random.next() % 5) {
                object.set(String(randomString(&random).filter { $0 != "\u{0}" }), randomValue(&random, depth: depth + 1))
            }
            return .object(object)
        }
    }

    private func randomString(_ random: inout XorShift) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\r", "\u{8}", "\u{c}", "\u{0}", "\u{1}", "\u{1f}",
                      "\u{7f}", "é", "\u{2028}", "\u{1F9EB}", "key", "µm"]
        return (0..<Int(random.next() % 8)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }
}

/// A seeded xorshift64 stream, so that the random documents are the same every run.
private struct XorShift {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
