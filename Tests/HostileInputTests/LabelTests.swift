import Fixtures
import JSON
import Testing

/// Hostile label files: each is refused with every error naming the file and the JSON path or
/// byte offset, or accepted with exactly the stated value.
@Suite struct LabelTests {
    static let file = "labels/hostile.json"

    /// The error descriptions `text` produces, empty when it parses.
    private func errors(_ text: String) -> [String] { errors(Array(text.utf8)) }

    private func errors(_ bytes: [UInt8]) -> [String] {
        do {
            _ = try Label.parse(bytes, file: Self.file)
            return []
        } catch {
            #expect(error.file == Self.file)
            return error.errors.map(\.description)
        }
    }

    /// A minimal valid label with `members` spliced in after the version.
    private func label(_ members: String) -> String { "{\"version\": 1, \"cells\": [], \(members)}" }

    // MARK: syntax

    @Test func invalidUTF8() {
        let bytes = Array("{\"version\": 1, \"cells\": [], \"tags\": [\"a".utf8) + [0xC3, 0x28] + Array("\"]}".utf8)
        let found = errors(bytes)
        #expect(found.count == 1)
        #expect(found == [
            "\(Self.file): line 1, column 40, byte 39: expected valid UTF-8 text, got byte 0xC3, "
                + "which does not start a valid UTF-8 sequence here",
        ])
        // An overlong encoding of '/' and a UTF-16 surrogate encoded as UTF-8 are refused too.
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF]] {
            let text = Array("{\"version\": 1, \"cells\": [], \"image\": \"".utf8) + bad + Array("\"}".utf8)
            #expect(errors(text).first?.contains("byte 38: expected valid UTF-8 text") == true, "\(bad): \(errors(text))")
        }
    }

    @Test func byteOrderMark() {
        #expect(errors([0xEF, 0xBB, 0xBF] + Array(label("").utf8)) == [
            "\(Self.file): line 1, column 1, byte 0: expected JSON text without a byte order mark, "
                + "got a UTF-8 byte order mark (save the file as UTF-8 without BOM)",
        ])
    }

    @Test func trailingGarbage() {
        #expect(errors("{\"version\": 1, \"cells\": []} x") == [
            "\(Self.file): line 1, column 29, byte 28: expected valid JSON, got 'x' (json-c: unexpected character)",
        ])
        #expect(errors("{\"version\": 1, \"cells\": []}\n\n{}") == [
            "\(Self.file): line 3, column 1, byte 29: expected valid JSON, got '{' (json-c: unexpected character)",
        ])
    }

    @Test func tenThousandLevelsOfNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let found = errors(label("\"extra\": \(deep)"))
        #expect(found.count == 1)
        #expect(found.first?.hasSuffix("expected nesting at most 512 levels deep, got deeper nesting") == true, "\(found)")
        // Deep nesting is refused before anything recursive runs, so the stack survives it.
        let value = try? JSONValue.parse(String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000))
        #expect(value == nil)
    }

    @Test func numberBeyondDoubleRange() {
        #expect(errors(label("\"dilution\": 1e400")) == [
            "\(Self.file): dilution (line 1, column 41, byte 40): expected a number within the double range, got 1e400",
        ])
        #expect(errors(label("\"dilution\": -1e400")).first?.contains("got -1e400") == true)
    }

    @Test func nanAndInfinityTokens() {
        let prefix = "\(Self.file): cells[0].x (line 1, column 32, byte 31): expected a finite JSON number, got "
        for token in ["NaN", "Infinity", "-Infinity"] {
            #expect(errors("{\"version\": 1, \"cells\": [{\"x\": \(token), \"y\": 1}]}")
                == [prefix + "\(token) (NaN and Infinity are not JSON)"])
        }
        #expect(errors("{\"version\": 1, \"cells\": [{\"x\": nan, \"y\": 1}]}")
            == ["\(Self.file): line 1, column 33, byte 32: expected valid JSON, got 'a' (json-c: null expected)"])
        #expect(errors("{\"version\": 1, \"cells\": [{\"x\": inf, \"y\": 1}]}")
            == ["\(Self.file): line 1, column 32, byte 31: expected valid JSON, got 'i' (json-c: unexpected character)"])
    }

    @Test func duplicateKeys() {
        #expect(errors("{\"version\": 1, \"cells\": [], \"version\": 1}") == [
            "\(Self.file): version (line 1, column 29, byte 28): expected each key at most once in an object, "
                + "got duplicate key \"version\" (first at line 1, column 2)",
        ])
        // Inside a cell as well.
        #expect(errors("{\"version\": 1, \"cells\": [{\"x\": 1, \"y\": 2, \"x\": 3}]}").first?
            .contains("cells[0].x") == true)
    }

    @Test func integerBeyondSixtyFourBits() {
        #expect(errors(label("\"width\": 99999999999999999999")).first?
            .hasSuffix("expected an integer within 64 bits (write larger numbers with an exponent, e.g. 1e20), got 99999999999999999999") == true)
    }

    @Test func emptyFileAndNonObject() {
        #expect(errors("") == ["\(Self.file): line 1, column 1, byte 0: expected a complete JSON value, got the end of the input"])
        #expect(errors("[]") == ["\(Self.file): (top level): expected an object, got an empty array"])
        #expect(errors("null") == ["\(Self.file): (top level): expected an object, got null"])
    }

    @Test func rawControlCharacterAndNUL() {
        #expect(errors(label("\"image\": \"a\tb\"")).first?.contains("got a raw control character byte 0x09") == true)
        let withNUL = Array("{\"version\": 1, \"cells\": []}".utf8) + [0]
        #expect(errors(withNUL).first?.hasSuffix("expected nothing but whitespace after the JSON value, got byte 0x00") == true,
                "\(errors(withNUL))")
    }

    // MARK: schema

    @Test func wrongTypesEverywhere() {
        let text = """
            {"version": "1", "image": 5, "width": 1.5, "height": "48", "umPerPixel": true, "dilution": null,
             "grid": [], "cells": {}, "expect": [], "tags": "dense"}
            """
        #expect(errors(text) == [
            "\(Self.file): version: expected the integer 1, got the string \"1\"",
            "\(Self.file): image: expected a non-empty file name, got 5",
            "\(Self.file): width: expected a positive integer (pixels), got 1.5",
            "\(Self.file): height: expected a positive integer (pixels), got the string \"48\"",
            "\(Self.file): umPerPixel: expected a positive number (micrometres per pixel), got true",
            "\(Self.file): dilution: expected a positive number (dilution factor), got null",
            "\(Self.file): grid: expected an object, got an empty array",
            "\(Self.file): cells: expected an array, got an object",
            "\(Self.file): expect: expected an object, got an empty array",
            "\(Self.file): tags: expected an array, got the string \"dense\"",
        ])
    }

    @Test func wrongTypesInsideCells() {
        let text = """
            {"version": 1, "cells": [7, {"x": "1", "y": 2}, {"y": 2}, {"x": 1, "y": 2, "label": "alive"},
             {"x": 1, "y": 2, "r": "7"}], "tags": ["a", 3], "expect": {"total": {"min": -1, "max": 2.5}, "alive": {}}}
            """
        #expect(errors(text) == [
            "\(Self.file): cells[0]: expected an object, got 7",
            "\(Self.file): cells[1].x: expected a number, got the string \"1\"",
            "\(Self.file): cells[2]: required field \"x\" is missing",
            "\(Self.file): cells[3].label: expected \"live\" or \"dead\" (omit the field when unknown), got the string \"alive\"",
            "\(Self.file): cells[4].r: expected a positive number (radius in pixels), got the string \"7\"",
            "\(Self.file): expect.total.min: expected a non-negative integer count, got -1",
            "\(Self.file): expect.total.max: expected a non-negative integer count, got 2.5",
            "\(Self.file): expect.alive: unknown count \"alive\": expected one of total, live, dead",
            "\(Self.file): tags[1]: expected a string, got 3",
        ])
    }

    @Test func otherVersionStopsDecoding() {
        #expect(errors("{\"version\": 2, \"cells\": 5}") == [
            "\(Self.file): version: expected the integer 1 (this reader knows labels-v1 only), got 2",
        ])
    }

    @Test func missingRequiredFields() {
        #expect(errors("{}") == [
            "\(Self.file): (top level): required field \"version\" is missing (labels-v1 files start with \"version\": 1)",
            "\(Self.file): (top level): required field \"cells\" is missing (use [] for an image without cells)",
        ])
    }

    @Test func negativeAndZeroRadius() {
        #expect(errors("{\"version\": 1, \"cells\": [{\"x\": 1, \"y\": 1, \"r\": -3}, {\"x\": 1, \"y\": 1, \"r\": 0}]}") == [
            "\(Self.file): cells[0].r: expected a positive number (radius in pixels), got -3",
            "\(Self.file): cells[1].r: expected a positive number (radius in pixels), got 0",
        ])
    }

    @Test func enormousRadius() {
        let text = "{\"version\": 1, \"width\": 64, \"height\": 48, \"cells\": [{\"x\": 1, \"y\": 1, \"r\": 1e300}]}"
        #expect(errors(text) == [
            "\(Self.file): cells[0].r: expected a radius in pixels of at most the image diagonal (80.0), got 1e+300",
        ])
    }

    @Test func cellFarOutsideTheImage() {
        let text = "{\"version\": 1, \"width\": 64, \"height\": 48, \"cells\": [{\"x\": 1e9, \"y\": -5, \"r\": 4}]}"
        #expect(errors(text) == [
            "\(Self.file): cells[0]: expected a centre inside the 64 x 48 image or within its radius (4.0 px) of its edge, "
                + "got (1000000000.0, -5.0), 999999936.5 px outside",
        ])
        // Within the radius of the edge is accepted (cells cut by the border are real cells).
        #expect(errors("{\"version\": 1, \"width\": 64, \"height\": 48, \"cells\": [{\"x\": -3, \"y\": 47.5, \"r\": 4}]}").isEmpty)
    }

    @Test func cellAtTheLargestDoubles() {
        let text = "{\"version\": 1, \"width\": 64, \"height\": 48, \"cells\": [{\"x\": 1.7e308, \"y\": -1.7e308}]}"
        let found = errors(text)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("\(Self.file): cells[0]: expected a centre inside the 64 x 48 image") == true, "\(found)")
    }

    @Test func degenerateGrid() {
        let text = "{\"version\": 1, \"cells\": [], \"grid\": {\"corners\": [[0, 0], [0, 0], [0, 0], [0, 0]], \"widthUm\": -1}}"
        #expect(errors(text) == [
            "\(Self.file): grid.widthUm: expected a positive number (micrometres), got -1",
        ])
        let flat = "{\"version\": 1, \"cells\": [], \"grid\": {\"corners\": [[0, 0], [0, 0], [0, 0], [0, 0]]}}"
        #expect(errors(flat) == [
            "\(Self.file): grid.corners: expected corners of a convex quadrilateral listed clockwise from top-left "
                + "(x right, y down), got corners that are counter-clockwise, self-crossing or degenerate",
        ])
    }

    @Test func validHostileLookingLabel() throws {
        // Unicode, escapes, unknown fields and extreme but legal numbers are accepted as written.
        let text = """
            {"version": 1, "image": "sub/\\u00e9 \\ud83d\\ude00.png", "cells": [{"x": -0.0, "y": 4.9406564584124654e-324}],
             "tags": ["", "\\u0000"], "future": {"deep": [[[1]]]}}
            """
        let label = try Label.parse(Array(text.utf8), file: Self.file)
        #expect(label.image == "sub/é 😀.png")
        #expect(label.cells == [LabelledCell(x: 0, y: Double.leastNonzeroMagnitude)])
        #expect(label.tags == ["", "\u{0}"])
        #expect(label.extra["future"] == .object(["deep": [[[1]]]]))
    }
}
