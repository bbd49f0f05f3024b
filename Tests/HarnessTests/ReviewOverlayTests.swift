import Foundation
import Imaging
import JSON
import Testing
@testable import Harness

/// `cellqa review`'s reading of a run's detections.csv and its drawing.
@Suite struct ReviewOverlayTests {
    static let header = "path,status,detection,x,y,r,class,score,confidence,label,label_x,label_y,label_r,label_class,distance_px"

    @Test func rowsBecomeMarksAtTheDetectionOrTheLabel() throws {
        let text = Self.header + "\n"
            + "\"a,b.png\",TP,0,10.5,20,6,live,9,0.9,3,10,20.5,6.5,live,0.7\n"
            + "\"a,b.png\",FP,1,40,41,5,dead,4,0.8,,,,,,\n"
            + "c.png,FN,,,,,,,,7,60,61,,live,\r\n"
        let marks = try reviewMarks(csv: text, file: "d.csv")
        #expect(marks == [
            ReviewMark(fixture: "a,b.png", status: .tp, x: 10.5, y: 20, r: 6),
            ReviewMark(fixture: "a,b.png", status: .fp, x: 40, y: 41, r: 5),
            // A label without a radius is drawn at 5 px.
            ReviewMark(fixture: "c.png", status: .fn, x: 60, y: 61, r: 5),
        ])
    }

    @Test func aBrokenFileNamesTheLineAndWhatWasExpected() {
        func error(_ text: String) -> String {
            do { _ = try reviewMarks(csv: text, file: "d.csv"); return "no error" } catch { return error.description }
        }
        #expect(error("") == "d.csv: empty: expected a header row")
        #expect(error("path,status,x,y\n") == "d.csv:1: no column \"r\" (a cellqa run's detections.csv has it)")
        #expect(error(Self.header + "\na.png,TP,0,1,2\n") == "d.csv:2: 5 fields, expected 15 as in the header")
        #expect(error(Self.header + "\na.png,XX,0,1,2,3,live,1,1,,,,,,\n") == "d.csv:2: status \"XX\", expected TP, FP or FN")
        #expect(error(Self.header + "\na.png,TP,0,1,2,3,live,1,1,,,,,,\na.png,FP,0,nan,2,3,live,1,1,,,,,,\n")
                == "d.csv:3: x \"nan\", expected a finite number")
        // A quoted field over two lines: the next record's line is counted past it.
        #expect(error(Self.header + "\n\"a\nb.png\",TP,0,1,2,3,live,1,1,,,,,,\na.png,FP,0,x,2,3,live,1,1,,,,,,\n")
                == "d.csv:4: x \"x\", expected a finite number")
    }

    @Test func eachVerdictHasItsColour() {
        let image = Image(width: 120, height: 60, pixels: [UInt8](repeating: 128, count: 120 * 60 * 3))
        let drawn = drawReview(image, marks: [
            ReviewMark(fixture: "f", status: .tp, x: 20, y: 30, r: 10),
            ReviewMark(fixture: "f", status: .fp, x: 60, y: 30, r: 10),
            ReviewMark(fixture: "f", status: .fn, x: 100, y: 30, r: 10),
        ])
        func pixel(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
            let i = (y * 120 + x) * 3
            return (drawn.pixels[i], drawn.pixels[i + 1], drawn.pixels[i + 2])
        }
        #expect(pixel(30, 30) == ReviewColor.matched)
        #expect(pixel(70, 30) == ReviewColor.falseDetection)
        // Missed: outside the label's radius, so a detection on its rim stays visible.
        #expect(pixel(113, 30) == ReviewColor.missed)
        #expect(pixel(110, 30) == (128, 128, 128))
        #expect(pixel(40, 30) == (128, 128, 128), "nothing between the circles")
    }

    /// A detections.csv is input: a mark far outside the image (found by fuzzing: 1e300 once
    /// stopped the process converting a coordinate to Int) draws nothing.
    @Test func marksFarOutsideTheImageDrawNothing() {
        let image = Image(width: 40, height: 30, pixels: [UInt8](repeating: 128, count: 40 * 30 * 3))
        let drawn = drawReview(image, marks: [
            ReviewMark(fixture: "f", status: .fp, x: 1e300, y: -5, r: 1000),
            ReviewMark(fixture: "f", status: .fn, x: -1e18, y: 1e18, r: 3),
            ReviewMark(fixture: "f", status: .tp, x: 20, y: -9e15, r: 99_999),
        ])
        #expect(drawn.pixels == image.pixels)
    }

    /// A report's relative roots and image paths resolve against the directory the run was in,
    /// while it exists here; a report from elsewhere keeps them as written.
    @Test func relativePathsResolveAgainstTheRunsDirectory() throws {
        let dir = NSTemporaryDirectory() + "cellqa-review-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func load(workingDirectory: String?) throws -> ReviewedRun {
            let directory: JSONValue = workingDirectory.map { JSONValue.string($0) } ?? JSONValue.null
            let dataset: JSONObject = ["root": .string("data"), "labelsRoot": .string("/abs/labels"), "workingDirectory": directory]
            let fixture: JSONObject = ["path": .string("a.png"), "image": .string("data/a.png"), "tp": .int(1), "fp": .int(0), "fn": .int(0)]
            let report: JSONValue = .object(["dataset": .object(dataset), "fixtures": .array([.object(fixture)])])
            try (report.serialized(pretty: false) + "\n").write(toFile: dir + "/report.json", atomically: true, encoding: .utf8)
            var run = try ReviewedRun.load(reportJSON: dir + "/report.json")
            run.resolveAgainstRunDirectory()
            return run
        }
        let here = try load(workingDirectory: dir)
        #expect(here.datasetRoot == dir + "/data")
        #expect(here.labelsRoot == "/abs/labels")
        #expect(here.fixtures.map(\.image) == [dir + "/data/a.png"])
        for elsewhere in [dir + "/no-such-directory", nil] {
            let run = try load(workingDirectory: elsewhere)
            #expect(run.datasetRoot == "data" && run.fixtures.map(\.image) == ["data/a.png"])
        }
    }

    /// A detections.csv that is missing or not text is named with what is wrong, in words.
    @Test func aMissingOrBinaryDetectionsFileIsNamed() throws {
        let dir = NSTemporaryDirectory() + "cellqa-marks-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func failure(_ path: String) -> String {
            do { _ = try reviewMarks(file: path); return "no error" } catch { return error.description }
        }
        #expect(failure(dir + "/detections.csv")
            == "\(dir)/detections.csv: no such file (every `cellqa run --out` directory holds one)")
        try Data([0xFF, 0xFE, 0x41]).write(to: URL(fileURLWithPath: dir + "/detections.csv"))
        #expect(failure(dir + "/detections.csv") == "\(dir)/detections.csv: is not UTF-8 text")
    }
}
