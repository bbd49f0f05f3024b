import Fixtures
import Testing

/// One test per labels-v1 rule: the offending text and the exact message expected.
@Suite struct LabelRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let errors: [String]
        var testDescription: String { name }
    }

    static let rejected: [Case] = [
        Case(name: "top level not an object", text: "[]",
             errors: ["a.json: (top level): expected an object, got an empty array"]),
        Case(name: "version missing", text: #"{"cells": []}"#,
             errors: [#"a.json: (top level): required field "version" is missing (labels-v1 files start with "version": 1)"#]),
        Case(name: "version 2", text: #"{"version": 2, "cells": "x", "width": -1}"#,
             errors: ["a.json: version: expected the integer 1 (this reader knows labels-v1 only), got 2"]),
        Case(name: "version as decimal", text: #"{"version": 1.0, "cells": []}"#,
             errors: ["a.json: version: expected the integer 1, got 1.0"]),
        Case(name: "version as string", text: #"{"version": "1", "cells": []}"#,
             errors: [#"a.json: version: expected the integer 1, got the string "1""#]),
        Case(name: "cells missing", text: #"{"version": 1}"#,
             errors: [#"a.json: (top level): required field "cells" is missing (use [] for an image without cells)"#]),
        Case(name: "cells not an array", text: labelText(cells: "{}"),
             errors: ["a.json: cells: expected an array, got an object"]),
        Case(name: "image empty", text: labelText(#""image": """#),
             errors: [#"a.json: image: expected a non-empty file name, got the string """#]),
        Case(name: "image not a string", text: labelText(#""image": 3"#),
             errors: ["a.json: image: expected a non-empty file name, got 3"]),
        Case(name: "width zero", text: labelText(#""width": 0, "height": 10"#),
             errors: ["a.json: width: expected a positive integer (pixels), got 0"]),
        Case(name: "height negative", text: labelText(#""width": 10, "height": -5"#),
             errors: ["a.json: height: expected a positive integer (pixels), got -5"]),
        Case(name: "width fractional", text: labelText(#""width": 10.5"#),
             errors: ["a.json: width: expected a positive integer (pixels), got 10.5"]),
        Case(name: "umPerPixel zero", text: labelText(#""umPerPixel": 0"#),
             errors: ["a.json: umPerPixel: expected a positive number (micrometres per pixel), got 0"]),
        Case(name: "umPerPixel string", text: labelText(#""umPerPixel": "0.5""#),
             errors: [#"a.json: umPerPixel: expected a positive number (micrometres per pixel), got the string "0.5""#]),
        Case(name: "dilution negative", text: labelText(#""dilution": -2"#),
             errors: ["a.json: dilution: expected a positive number (dilution factor), got -2"]),
        Case(name: "dilution null", text: labelText(#""dilution": null"#),
             errors: ["a.json: dilution: expected a positive number (dilution factor), got null"]),
        Case(name: "cell not an object", text: labelText(cells: "[[1, 2]]"),
             errors: ["a.json: cells[0]: expected an object, got an array"]),
        Case(name: "cell x missing", text: labelText(cells: #"[{"y": 1}]"#),
             errors: [#"a.json: cells[0]: required field "x" is missing"#]),
        Case(name: "cell y wrong type", text: labelText(cells: #"[{"x": 1, "y": "2"}]"#),
             errors: [#"a.json: cells[0].y: expected a number, got the string "2""#]),
        Case(name: "negative radius", text: labelText(cells: #"[{"x": 1, "y": 2}, {"x": 1, "y": 2, "r": -3}]"#),
             errors: ["a.json: cells[1].r: expected a positive number (radius in pixels), got -3"]),
        Case(name: "zero radius", text: labelText(cells: #"[{"x": 1, "y": 2, "r": 0}]"#),
             errors: ["a.json: cells[0].r: expected a positive number (radius in pixels), got 0"]),
        Case(name: "NaN radius", text: labelText(cells: #"[{"x": 1, "y": 2, "r": NaN}]"#),
             errors: ["a.json: cells[0].r (line 1, column 48, byte 47): expected a finite JSON number, got NaN (NaN and Infinity are not JSON)"]),
        Case(name: "label not live/dead", text: labelText(cells: #"[{"x": 1, "y": 2, "label": "alive"}]"#),
             errors: [#"a.json: cells[0].label: expected "live" or "dead" (omit the field when unknown), got the string "alive""#]),
        Case(name: "cell outside image by more than r", text: labelText(#""width": 100, "height": 80"#, cells: #"[{"x": 110, "y": 40, "r": 5}]"#),
             errors: ["a.json: cells[0]: expected a centre inside the 100 x 80 image or within its radius (5.0 px) of its edge, got (110.0, 40.0), 10.5 px outside"]),
        Case(name: "cell without r outside image", text: labelText(#""width": 100, "height": 80"#, cells: #"[{"x": 10, "y": -1}]"#),
             errors: ["a.json: cells[0]: expected a centre inside the 100 x 80 image or within 0 px (no radius given) of its edge, got (10.0, -1.0), 0.5 px outside"]),
        Case(name: "grid three corners", text: labelText(#""grid": {"corners": [[0,0],[1,0],[1,1]]}"#),
             errors: ["a.json: grid.corners: expected exactly 4 corners [x, y], clockwise from top-left, got an array of 3 elements"]),
        Case(name: "grid corner of three numbers", text: labelText(#""grid": {"corners": [[0,0],[1,0,5],[1,1],[0,1]]}"#),
             errors: ["a.json: grid.corners[1]: expected a corner [x, y] of 2 numbers, got an array of 3 elements"]),
        Case(name: "grid corner with a string", text: labelText(#""grid": {"corners": [[0,0],[1,0],[1,"1"],[0,1]]}"#),
             errors: ["a.json: grid.corners[2]: expected a corner [x, y] of 2 numbers, got an array of 2 elements"]),
        Case(name: "grid corners missing", text: labelText(#""grid": {"widthUm": 3000}"#),
             errors: [#"a.json: grid.corners: required field "corners" is missing"#]),
        Case(name: "grid counter-clockwise", text: labelText(#""grid": {"corners": [[0,0],[0,10],[10,10],[10,0]]}"#),
             errors: ["a.json: grid.corners: expected corners of a convex quadrilateral listed clockwise from top-left (x right, y down), got corners that are counter-clockwise, self-crossing or degenerate"]),
        Case(name: "grid self-crossing", text: labelText(#""grid": {"corners": [[0,0],[10,0],[0,10],[10,10]]}"#),
             errors: ["a.json: grid.corners: expected corners of a convex quadrilateral listed clockwise from top-left (x right, y down), got corners that are counter-clockwise, self-crossing or degenerate"]),
        Case(name: "grid zero width", text: labelText(#""grid": {"corners": [[0,0],[10,0],[10,10],[0,10]], "widthUm": 0}"#),
             errors: ["a.json: grid.widthUm: expected a positive number (micrometres), got 0"]),
        Case(name: "grid not an object", text: labelText(#""grid": [1]"#),
             errors: ["a.json: grid: expected an object, got an array"]),
        Case(name: "expect min > max", text: labelText(#""expect": {"total": {"min": 60, "max": 40}}"#),
             errors: ["a.json: expect.total: expected min <= max, got min 60 > max 40"]),
        Case(name: "expect negative bound", text: labelText(#""expect": {"dead": {"min": -1}}"#),
             errors: ["a.json: expect.dead.min: expected a non-negative integer count, got -1"]),
        Case(name: "expect fractional bound", text: labelText(#""expect": {"live": {"max": 2.5}}"#),
             errors: ["a.json: expect.live.max: expected a non-negative integer count, got 2.5"]),
        Case(name: "expect unknown count", text: labelText(#""expect": {"alive": {"min": 1}}"#),
             errors: [#"a.json: expect.alive: unknown count "alive": expected one of total, live, dead"#]),
        Case(name: "expect unknown bound", text: labelText(#""expect": {"total": {"minimum": 1}}"#),
             errors: [#"a.json: expect.total.minimum: unknown bound "minimum": expected min and/or max"#]),
        Case(name: "tags not strings", text: labelText(#""tags": ["a", 2]"#),
             errors: ["a.json: tags[1]: expected a string, got 2"]),
        Case(name: "tags not an array", text: labelText(#""tags": "a""#),
             errors: [#"a.json: tags: expected an array, got the string "a""#]),
        Case(name: "duplicate key", text: #"{"version": 1, "cells": [], "cells": []}"#,
             errors: [#"a.json: cells (line 1, column 29, byte 28): expected each key at most once in an object, got duplicate key "cells" (first at line 1, column 16)"#]),
        Case(name: "invalid JSON", text: #"{"version": 1, "cells": [}"#,
             errors: ["a.json: line 1, column 26, byte 25: expected valid JSON, got '}' (json-c: unexpected character)"]),
    ]

    @Test(arguments: rejected)
    func rejects(_ rule: Case) {
        #expect(labelErrors(rule.text) == rule.errors)
    }

    @Test func collectsAllErrorsOfAFile() {
        let text = #"{"version": 1, "width": 0, "umPerPixel": -1, "cells": [{"x": 1, "y": 1, "r": -1}, {"x": 2, "y": 2, "label": "?"}], "tags": [1]}"#
        let errors = labelErrors(text)
        #expect(errors.count == 5)
        #expect(errors.first == "a.json: width: expected a positive integer (pixels), got 0")
        #expect(errors.last == "a.json: tags[0]: expected a string, got 1")
    }

    static let accepted: [Case] = [
        Case(name: "cell on the border within r", text: labelText(#""width": 100, "height": 80"#, cells: #"[{"x": 103, "y": -3, "r": 5}]"#), errors: []),
        Case(name: "cell at pixel-centre extremes", text: labelText(#""width": 100, "height": 80"#, cells: #"[{"x": -0.5, "y": 79.5}]"#), errors: []),
        Case(name: "integer coordinates and radius", text: labelText(cells: #"[{"x": 1, "y": 2, "r": 3}]"#), errors: []),
        Case(name: "unknown cell field ignored", text: labelText(cells: #"[{"x": 1, "y": 2, "id": "c1"}]"#), errors: []),
        Case(name: "empty expect range", text: labelText(#""expect": {"total": {}}"#), errors: []),
        Case(name: "min equals max", text: labelText(#""expect": {"total": {"min": 3, "max": 3}}"#), errors: []),
        Case(name: "unknown top-level fields", text: labelText(#""duplicateOf": "x", "future": [1, {"a": null}]"#), errors: []),
        Case(name: "cells outside unsized image", text: labelText(cells: #"[{"x": -500, "y": 99999}]"#), errors: []),
    ]

    @Test(arguments: accepted)
    func accepts(_ rule: Case) {
        #expect(labelErrors(rule.text) == [])
    }
}
