import Testing
import JSON

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
}
