import Testing
import JSON

@Suite struct JSONCursorTests {
    private func cursor(_ text: String) throws -> JSONCursor {
        JSONCursor(try JSONValue.parse(text), file: "labels/a.json")
    }

    @Test func typedAccessWithPaths() throws {
        let root = try cursor(#"{"version": 1, "cells": [{"x": 1}, {"x": 2.5, "odd key": true}], "name": "n"}"#)
        #expect(try root.required("version").int() == 1)
        #expect(try root.required("name").string() == "n")
        let cells = try root.required("cells").array()
        #expect(cells.count == 2)
        #expect(cells[1].path == "cells[1]")
        #expect(try cells[1].required("x").double() == 2.5)
        #expect(try cells[0].required("x").double() == 1)
        #expect(try cells[1].required("odd key").bool() == true)
        #expect(try cells[1].required("odd key").path == #"cells[1]["odd key"]"#)
        #expect(try root.field("absent") == nil)
        #expect(try root.members().map(\.key) == ["version", "cells", "name"])
    }

    @Test func errorMessagesNameFilePathExpectedAndActual() throws {
        let root = try cursor(#"{"cells": [{"r": -3}, {"r": "7"}], "version": 1.0, "n": null}"#)
        let cells = try root.required("cells").array()
        let radius = try cells[0].required("r")
        #expect(radius.error(expected: "a non-negative number").description
            == "labels/a.json: cells[0].r: expected a non-negative number, got -3")
        #expect(throws: JSONError(file: "labels/a.json", path: "cells[1].r", expected: "a number", actual: "the string \"7\"")) {
            try cells[1].required("r").double()
        }
        #expect(throws: JSONError(file: "labels/a.json", path: "version", expected: "an integer", actual: "1.0")) {
            try root.required("version").int()
        }
        #expect(throws: JSONError(file: "labels/a.json", path: "n", expected: "a string", actual: "null")) {
            try root.required("n").string()
        }
        let missing = #expect(throws: JSONError.self) { try cells[0].required("x") }
        #expect(missing?.description == "labels/a.json: cells[0].x: required field \"x\" is missing")
        let notObject = #expect(throws: JSONError.self) { try cells[0].required("r").field("y") }
        #expect(notObject?.description == "labels/a.json: cells[0].r: expected an object, got -3")
        #expect(root.error(expected: "x").description.hasPrefix("labels/a.json: (top level): expected x, got an object"))
    }

    @Test func loadNamesTheFile() throws {
        let missing = #expect(throws: JSONError.self) { try JSONValue.load(path: "/nonexistent/x.json") }
        #expect(missing?.description == "/nonexistent/x.json: (top level): expected a readable JSON file, got No such file or directory")
        let directory = #expect(throws: JSONError.self) { try JSONValue.load(path: "/tmp") }
        #expect(directory?.actual == "not a regular file")
    }
}
