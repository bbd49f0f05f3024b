import Foundation
import Imaging
import Testing

/// End-to-end behaviour of `cellqa validate` and `cellqa inspect` as a user sees it:
/// messages and exit codes.
@Suite struct ValidateInspectTests {
    static func tinyPNG(width: Int = 4, height: Int = 3) throws -> [UInt8] {
        try Image(width: width, height: height, fill: (200, 180, 160)).pngData()
    }

    static func label(width: Int = 4, height: Int = 3, cells: String = #"[{"x": 1, "y": 1, "r": 1, "label": "live"}]"#) -> String {
        #"{"version": 1, "width": \#(width), "height": \#(height), "cells": \#(cells), "tags": ["t1"]}"#
    }

    @Test func cleanDatasetExitsZeroWithSummary() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("images/sub/a.png", try Self.tinyPNG())
        try dir.write("labels/sub/a.json", Self.label())
        try dir.write("images/b.png", try Self.tinyPNG())
        let result = try CellQABinary.run(["validate", dir.url.appendingPathComponent("images").path,
                                           "--labels", dir.url.appendingPathComponent("labels").path, "--decode"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("fixtures: 2 (images read: 2, labelled: 1, unlabelled: 1)"))
        #expect(result.stdout.contains("cells: 1 (live: 1, dead: 0, unknown: 0)"))
        #expect(result.stdout.contains("tags: t1 1"))
        #expect(result.stdout.contains("problems: 0"))
    }

    @Test func problemsExitOneAndNameFileAndField() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("a.png", try Self.tinyPNG())
        try dir.write("a.json", Self.label(cells: #"[{"x": 1, "y": 1, "r": -2}]"#))
        try dir.write("b.png", try Self.tinyPNG())
        try dir.write("b.json", Self.label(width: 5))
        try dir.write("c.jpg", [0x89, 0x50, 0x4E, 0x47])
        try dir.write("orphan.json", Self.label())
        let result = try CellQABinary.run(["validate", dir.url.path])
        #expect(result.status == 1)
        let out = result.stdout
        #expect(out.contains("a.json: cells[0].r"), "\(out)")
        #expect(out.contains("b.json: width"), "\(out)")
        #expect(out.contains("c.jpg"), "\(out)")
        #expect(out.contains("orphan.json"), "\(out)")
    }

    /// Fixtures checked at once give the same report as one at a time: counts, and problems in
    /// the fixtures' order.
    @Test func theReportIsTheSameForAnyJobCount() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for k in 0..<12 {
            try dir.write("f\(k).png", try Self.tinyPNG(width: 4 + k, height: 3))
            try dir.write("f\(k).json", k % 4 == 1 ? Self.label(width: 99) : Self.label(width: 4 + k))
        }
        try dir.write("f7.png", [0x89, 0x50, 0x4E, 0x47])
        var outputs: [String] = []
        for jobs in ["1", "3"] {
            let result = try CellQABinary.run(["validate", dir.url.path, "--decode", "--jobs", jobs])
            #expect(result.status == 1)
            outputs.append(result.stdout)
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[0].contains("fixtures: 12 (images read: 11, labelled: 12, unlabelled: 0)"), "\(outputs[0])")
        let problems = outputs[0].split(separator: "\n").filter { $0.hasPrefix("  ") }
            .map { ($0.split(separator: ":").first.map(String.init) ?? "").replacingOccurrences(of: dir.url.path + "/", with: "") }
        #expect(problems.map { $0.trimmingCharacters(in: .whitespaces) } == ["f1.json", "f5.json", "f7.png", "f9.json"],
                "\(outputs[0])")
    }

    /// A phone photo stored landscape with EXIF orientation 6, labelled as a viewer showed it
    /// (portrait): `inspect` names the orientation, and `validate` and `run` say why the label's
    /// size is the image's swapped rather than listing its cells as outside the image.
    @Test func aTurnedPhotoAndItsTurnedLabelAreExplained() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("data/phone.jpg", try jpegWithExifOrientation(6))
        try dir.write("data/phone.json", Self.label(width: 20, height: 30, cells: #"[{"x": 10, "y": 25}]"#))
        let data = dir.url.appendingPathComponent("data").path
        let inspect = try CellQABinary.run(["inspect", data + "/phone.jpg"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("JPEG 30x20, 8-bit ycbcr, 3 channel(s), EXIF orientation 6 (viewers show it turned 90° clockwise; "
                                        + "cellqa and labels use the pixels as stored)"), "\(inspect.stdout)")
        let why = "phone.json: width: the label is 20x30 but the decoded image is 30x20, its width and height swapped: "
            + "the JPEG's EXIF orientation 6 has viewers show it turned 90° clockwise"
        let validate = try CellQABinary.run(["validate", data])
        #expect(validate.status == 1)
        #expect(validate.stdout.contains(why), "\(validate.stdout)")
        #expect(!validate.stdout.contains("cells[0]"), "\(validate.stdout)")
        let out = dir.url.appendingPathComponent("out").path
        let run = try CellQABinary.run(["run", data, "--out", out, "--quiet", "--jobs", "1"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("errored: " + data + "/" + why), "\(run.stdout)")
        let report = try String(contentsOfFile: out + "/fixtures.csv", encoding: .utf8)
        #expect(report.contains("EXIF orientation 6"), "\(report)")
    }

    /// A run and a sweep name their errored fixtures on the console (the first ten; the rest
    /// are in the reports), so a user sees which files to mend without opening a report.
    @Test func runAndSweepNameErroredFixtures() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for i in 0..<12 {
            let name = String(format: "bad-%02d", i)
            try dir.write("data/\(name).png", try Self.tinyPNG())
            try dir.write("data/\(name).json", Self.label(cells: #"[{"x": 1}]"#))
        }
        let data = dir.url.appendingPathComponent("data").path
        let run = try CellQABinary.run(["run", data, "--out", dir.url.appendingPathComponent("run").path, "--quiet"])
        #expect(run.status == 1)
        let errored = run.stdout.split(separator: "\n").filter { $0.hasPrefix("errored: ") }
        #expect(errored.count == 10, "\(run.stdout)")
        #expect(errored.first == "errored: \(data)/bad-00.json: cells[0]: required field \"y\" is missing")
        #expect(run.stdout.contains("… and 2 more errored fixtures (summary.md)"))
        let sweep = try CellQABinary.run(["sweep", "minScore=3", "--dataset", data, "--out", dir.url.appendingPathComponent("sweep").path,
                                          "--quiet"])
        #expect(sweep.status == 0, "\(sweep.stderr)")
        #expect(sweep.stderr.contains("cellqa sweep: errored: \(data)/bad-11.json: cells[0]: required field \"y\" is missing") == false)
        #expect(sweep.stderr.contains("cellqa sweep: errored: \(data)/bad-09.json: cells[0]: required field \"y\" is missing"), "\(sweep.stderr)")
        #expect(sweep.stderr.contains("cellqa sweep: … and 2 more errored fixtures (sweep.md)"), "\(sweep.stderr)")
    }

    @Test func unreadableRootAndBadOptionsExitTwo() throws {
        let missing = try CellQABinary.run(["validate", "/nonexistent/cellqa-dataset"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/cellqa-dataset"))
        let badOption = try CellQABinary.run(["validate", "--max-pixels", "0"])
        #expect(badOption.status == 2)
        #expect(badOption.stderr.contains("--max-pixels must be positive"))
        let unknown = try CellQABinary.run(["validate", "--no-such-flag"])
        #expect(unknown.status == 2)
    }

    @Test func inspectDescribesImagesAndLabels() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("a.png", try Self.tinyPNG(width: 7, height: 5))
        try dir.write("a.json", Self.label())
        let ok = try CellQABinary.run(["inspect", dir.url.appendingPathComponent("a.png").path,
                                       dir.url.appendingPathComponent("a.json").path])
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.contains("PNG 7x5, 8-bit"))
        #expect(ok.stdout.contains("1 cells (live 1, dead 0)"))

        try dir.write("empty.png", [UInt8]())
        let bad = try CellQABinary.run(["inspect", dir.url.appendingPathComponent("empty.png").path])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("empty.png"))
        #expect(bad.stdout.contains("empty input"))
    }

    /// An unknown option is named as such, not answered with the rule the known ones follow;
    /// that rule still holds, with `config`'s usage and exit code 2.
    @Test func configNamesAnUnknownOptionAndWantsExactlyOneAction() throws {
        let unknown = try CellQABinary.run(["config", "--print-default"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Unknown option '--print-default'"), "\(unknown.stderr)")
        for arguments in [["config"], ["config", "--print-defaults", "--check", "x.json"]] {
            let wrong = try CellQABinary.run(arguments)
            #expect(wrong.status == 2)
            #expect(wrong.stderr.contains("give exactly one of --print-defaults or --check FILE"), "\(wrong.stderr)")
            #expect(wrong.stderr.contains("Usage: cellqa config [--print-defaults] [--check <FILE>]"), "\(wrong.stderr)")
        }
    }

    /// A report given where a configuration goes (or the other way) is named for what it is,
    /// instead of failing on its first key.
    @Test func aFileGivenToTheWrongOptionIsNamed() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let baseline = root.appendingPathComponent("Goldens/baseline.json").path
        let asConfig = try CellQABinary.run(["config", "--check", baseline])
        #expect(asConfig.status == 2)
        #expect(asConfig.stderr == "cellqa config: error: \(baseline) is a run report (report.json), not a pipeline "
                + "configuration; give it to --baseline, or as a version to cellqa compare\n")

        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("config.json", #"{"minScore": 3}"#)
        let config = dir.url.appendingPathComponent("config.json").path
        let asAcceptance = try CellQABinary.run(["run", root.appendingPathComponent("Goldens").path, "--acceptance", config,
                                                 "--out", dir.url.appendingPathComponent("report").path, "--quiet"])
        #expect(asAcceptance.status == 2)
        #expect(asAcceptance.stderr.contains("invalid acceptance file: \(config) is a pipeline configuration, not an "
                                             + "acceptance file; give it to --config"), "\(asAcceptance.stderr)")
    }

    /// A report, a configuration or an acceptance file is described as what it is; one that
    /// does not read as its kind gives that kind's error (exit 1).
    @Test func inspectDescribesCellqasOtherDocuments() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("config.json", #"{"detector": "threshold", "minScore": 3}"#)
        try dir.write("acceptance.json", #"{"description": "nightly", "minRecall": 0.8, "maxErrored": null, "gateExpect": false}"#)
        try dir.write("bad.json", #"{"minScore": "x"}"#)
        let baseline = root.appendingPathComponent("Goldens/baseline.json").path
        let config = dir.url.appendingPathComponent("config.json").path
        let acceptance = dir.url.appendingPathComponent("acceptance.json").path
        let good = try CellQABinary.run(["inspect", baseline, config, acceptance])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        let lines = good.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("\(baseline): run report, 12 fixtures (12 scored), F1 ") == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("\(config): pipeline configuration, configHash ") == true)
        #expect(lines.dropFirst().first?.hasSuffix(", 1 key(s) from the defaults: detector") == true,
                "minScore 3 is the default: \(lines)")
        #expect(lines.last == "\(acceptance): acceptance file (nightly), gates: minPrecision >= 0.9, minRecall >= 0.8, "
                + "maxBlankDetections <= 0", "\(lines)")
        let bad = try CellQABinary.run(["inspect", dir.url.appendingPathComponent("bad.json").path])
        #expect(bad.status == 1)
        #expect(bad.stdout.hasSuffix("bad.json: minScore: expected a number, got the string \"x\"\n"), "\(bad.stdout)")
    }

    @Test func helpListsEverySubcommand() throws {
        let help = try CellQABinary.run(["--help"])
        #expect(help.status == 0)
        for name in ["validate", "inspect", "count", "config", "run", "synth", "bench"] {
            #expect(help.stdout.contains("  \(name) "), "missing \(name) in help")
        }
    }
}
