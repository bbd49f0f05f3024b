import Fixtures
import JSON
import Testing

@Suite struct LabelParsingTests {
    @Test func parsesTheSpecExample() throws {
        let text = """
            {
              "version": 1,
              "image": "golden01.png",
              "width": 1920,
              "height": 1080,
              "umPerPixel": 0.5,
              "dilution": 2.0,
              "grid": { "corners": [[412.0, 96.5], [1510.0, 101.0], [1503.5, 1000.0], [405.0, 995.0]],
                        "widthUm": 3000, "heightUm": 3000 },
              "cells": [
                { "x": 100.5, "y": 200.25, "r": 7.0, "label": "live" },
                { "x": 310.0, "y": 95.0,   "r": 8.5, "label": "dead" },
                { "x": 55.0,  "y": 40.0 }
              ],
              "expect": { "total": { "min": 40, "max": 60 }, "dead": { "min": 5 } },
              "tags": ["blank-control"],
              "source": {"repo": "x"}
            }
            """
        let label = try Label.parse(Array(text.utf8), file: "golden01.json")
        #expect(label.version == 1)
        #expect(label.image == "golden01.png")
        #expect(label.width == 1920 && label.height == 1080)
        #expect(label.umPerPixel == 0.5)
        #expect(label.dilution == 2)
        #expect(label.grid?.corners.first == PixelPoint(x: 412, y: 96.5))
        #expect(label.grid?.widthUm == 3000)
        #expect(label.cells == [
            LabelledCell(x: 100.5, y: 200.25, r: 7, label: .live),
            LabelledCell(x: 310, y: 95, r: 8.5, label: .dead),
            LabelledCell(x: 55, y: 40),
        ])
        #expect(label.liveCount == 1 && label.deadCount == 1)
        #expect(label.expect == CountExpectations(total: CountRange(min: 40, max: 60), dead: CountRange(min: 5)))
        #expect(label.tags == ["blank-control"])
        #expect(label.extra.keys == ["source"])
        #expect(label.extra["source"] == ["repo": "x"])
    }

    @Test func minimalLabelHasDefaults() throws {
        let label = try Label.parse(Array(labelText().utf8), file: nil)
        #expect(label.cells.isEmpty && label.tags.isEmpty && label.extra.isEmpty)
        #expect(label.dilution == 1)
        #expect(label.image == nil && label.width == nil && label.grid == nil && label.expect == nil)
    }

    @Test func gridSizeDefaultsToNeubauerImproved() throws {
        let label = try Label.parse(Array(labelText(#""grid": {"corners": [[0,0],[10,0],[10,10],[0,10]]}"#).utf8), file: nil)
        #expect(label.grid?.widthUm == 3000 && label.grid?.heightUm == 3000)
    }

    @Test func cornersMayLieOutsideTheImage() throws {
        let text = labelText(#""width": 100, "height": 100, "grid": {"corners": [[-50,-40],[300,-40],[300,250],[-50,250]]}"#)
        #expect(labelErrors(text) == [])
    }

    @Test func jsonValueRoundTrips() throws {
        let label = Label(
            image: "x.png", width: 64, height: 48, umPerPixel: 0.25, dilution: 2,
            grid: LabelGrid(corners: [PixelPoint(x: 1, y: 2), PixelPoint(x: 60, y: 2), PixelPoint(x: 60, y: 40), PixelPoint(x: 1, y: 40)],
                            widthUm: 1000, heightUm: 1000),
            cells: [LabelledCell(x: 3, y: 4, r: 2.5, label: .dead), LabelledCell(x: 10.125, y: 0)],
            expect: CountExpectations(total: CountRange(min: 1), live: CountRange(max: 5)),
            tags: ["synthetic", "dense"], extra: ["generator": ["seed": 42]])
        let text = label.jsonValue.serialized(pretty: true)
        #expect(try Label.parse(Array(text.utf8), file: "w.json") == label)
        #expect(label.jsonValue["version"] == 1)
        let plain = Label(cells: [LabelledCell(x: 1, y: 1)])
        #expect(plain.jsonValue.serialized(pretty: false) == #"{"version":1,"cells":[{"x":1.0,"y":1.0}]}"#)
    }

    @Test func countRangeContains() {
        #expect(CountRange(min: 2, max: 4).contains(2))
        #expect(CountRange(min: 2, max: 4).contains(4))
        #expect(!CountRange(min: 2, max: 4).contains(5))
        #expect(!CountRange(min: 2).contains(1))
        #expect(CountRange().contains(0))
    }

    @Test func checkAgainstDecodedImage() throws {
        let label = try Label.parse(Array(labelText(#""width": 100, "height": 50"#, cells: #"[{"x": 95, "y": 10, "r": 3}]"#).utf8), file: nil)
        #expect(label.check(imageWidth: 100, imageHeight: 50, file: "a.json").isEmpty)
        let errors = label.check(imageWidth: 90, imageHeight: 40, file: "a.json").map(\.description)
        #expect(errors == [
            "a.json: width: expected the decoded image width 90, got 100",
            "a.json: height: expected the decoded image height 40, got 50",
            "a.json: cells[0]: expected a centre inside the 90 x 40 image or within its radius (3.0 px) of its edge, got (95.0, 10.0), 5.5 px outside",
        ])
        let unsized = try Label.parse(Array(labelText(cells: #"[{"x": 500, "y": 10}]"#).utf8), file: nil)
        #expect(unsized.check(imageWidth: 100, imageHeight: 50).count == 1)
    }

    /// A label drawn on a phone photo as a viewer showed it (turned by its EXIF orientation)
    /// has the stored image's width and height swapped: one message that says so, and why when
    /// the file's orientation is known, instead of two size errors and every cell outside.
    @Test func aLabelOfTheTurnedImageSaysWhy() throws {
        let label = try Label.parse(Array(labelText(#""width": 50, "height": 100"#, cells: #"[{"x": 40, "y": 90, "r": 3}]"#).utf8), file: nil)
        let turn = "the JPEG's EXIF orientation 6 has viewers show it turned 90° clockwise"
        #expect(label.check(imageWidth: 100, imageHeight: 50, file: "a.json", viewerTurn: turn).map(\.description) == [
            "a.json: width: the label is 50x100 but the decoded image is 100x50, its width and height swapped: "
                + turn + "; cellqa measures the pixels as stored (labels-v1), so label them so or save the image turned",
        ])
        #expect(label.check(imageWidth: 100, imageHeight: 50, file: "a.json").map(\.description) == [
            "a.json: width: the label is 50x100 but the decoded image is 100x50, its width and height swapped: "
                + "was it labelled in a viewer that showed it turned? cellqa measures the pixels as stored (labels-v1)",
        ])
        // A square label, or one that matches, is checked as before.
        let square = try Label.parse(Array(labelText(#""width": 60, "height": 60"#, cells: "[]").utf8), file: nil)
        #expect(square.check(imageWidth: 50, imageHeight: 50, file: "a.json", viewerTurn: turn).count == 2)
        #expect(label.check(imageWidth: 50, imageHeight: 100, file: "a.json", viewerTurn: turn).isEmpty)
        // Without a size, the cells give it away: outside the stored image, inside it turned.
        let unsized = try Label.parse(Array(labelText(cells: #"[{"x": 40, "y": 90, "r": 3}, {"x": 10, "y": 10}]"#).utf8), file: nil)
        #expect(unsized.check(imageWidth: 100, imageHeight: 50, file: "a.json", viewerTurn: turn).map(\.description) == [
            "a.json: cells[0]: expected a centre inside the 100 x 50 image or within its radius (3.0 px) of its edge, got (40.0, 90.0), 40.5 px outside",
            "a.json: cells: 1 of 2 cells lie outside the 100 x 50 image but every cell fits it turned (50 x 100): "
                + turn + "; cellqa measures the pixels as stored (labels-v1)",
        ])
        // Not without the turn, nor when a cell fits neither way.
        #expect(unsized.check(imageWidth: 100, imageHeight: 50, file: "a.json").count == 1)
        let astray = try Label.parse(Array(labelText(cells: #"[{"x": 40, "y": 90}, {"x": 90, "y": 40}]"#).utf8), file: nil)
        #expect(astray.check(imageWidth: 100, imageHeight: 70, file: "a.json", viewerTurn: turn).count == 1)
    }

    @Test func loadFromTemporaryDirectory() throws {
        let root = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(root) }
        try write(labelText(#""tags": ["t"]"#), to: "ok.json", in: root)
        try write(labelText(#""width": -1"#), to: "bad.json", in: root)
        #expect(try Label.load(path: root + "/ok.json").tags == ["t"])
        let bad = #expect(throws: LabelErrors.self) { try Label.load(path: root + "/bad.json") }
        #expect(bad?.description == "\(root)/bad.json: width: expected a positive integer (pixels), got -1")
        let missing = #expect(throws: LabelErrors.self) { try Label.load(path: root + "/none.json") }
        #expect(missing?.errors.first?.actual == "No such file or directory")
    }
}
