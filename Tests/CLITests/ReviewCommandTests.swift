import Foundation
import Imaging
import JSON
import Testing

/// `cellqa review REPORT --out DIR` on a real run's reports.
@Suite struct ReviewCommandTests {
    static var goldens: String { (CountExplainTests.golden as NSString).deletingLastPathComponent }
    static var labels: String { ((goldens as NSString).deletingLastPathComponent as NSString).appendingPathComponent("TestLabels") }

    /// A run on copies of two small Goldens (`dir/data`) into `dir/report`.
    static func run(into dir: TemporaryDirectory) throws -> String {
        let data = dir.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        for (image, label) in [("sparse-s103-000.jpg", "sparse-s103-000.json"), ("standard-s111-000.png", "standard-s111-000.json")] {
            try FileManager.default.copyItem(atPath: goldens + "/" + image, toPath: data.appendingPathComponent(image).path)
            try FileManager.default.copyItem(atPath: labels + "/" + label, toPath: data.appendingPathComponent(label).path)
        }
        let report = dir.url.appendingPathComponent("report").path
        let run = try CellQABinary.run(["run", data.path, "--out", report, "--quiet"])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        return report
    }

    /// A run into `dir` (`run(into:)`), then `cellqa review` of it into `out` with `options`.
    static func review(in dir: TemporaryDirectory, out: String, _ options: [String]) throws -> (report: String, result: CommandResult) {
        let report = try run(into: dir)
        return (report, try CellQABinary.run(["review", report, "--out", out] + options))
    }

    @Test func overlaysAreDrawnForTheChosenFixtures() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let out = dir.url.appendingPathComponent("review").path
        let (report, result) = try Self.review(in: dir, out: out, ["--all"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(result.stdout)")
        for name in ["sparse-s103-000", "standard-s111-000"] {
            #expect(result.stdout.contains("\(name)."), "\(result.stdout)")
            let drawn = try Image.decode(file: out + "/" + name + ".png")
            let source = try Image.decode(file: dir.url.appendingPathComponent("data").path + "/"
                                          + (name == "sparse-s103-000" ? "sparse-s103-000.jpg" : "standard-s111-000.png"))
            #expect(drawn.width == source.width && drawn.height == source.height)
            #expect(drawn.pixels != source.pixels, "the verdicts are drawn")
        }
        // A second review into the same directory leaves the first one's files as they are.
        let first = try Data(contentsOf: URL(fileURLWithPath: out + "/sparse-s103-000.png"))
        let again = try CellQABinary.run(["review", report, "--out", out, "--all"])
        #expect(again.status == 2)
        #expect(again.stderr.contains("\(out)/sparse-s103-000.png: exists; a review never overwrites a file"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/sparse-s103-000.png")) == first)
        // A taken path is known before the image is read: with the image gone, still "exists".
        try FileManager.default.removeItem(atPath: dir.url.appendingPathComponent("data/sparse-s103-000.jpg").path)
        let taken = try CellQABinary.run(["review", report, "--out", out, "--all"])
        #expect(taken.status == 2)
        #expect(taken.stderr.contains("\(out)/sparse-s103-000.png: exists"), "\(taken.stderr)")
        #expect(!taken.stderr.contains("sparse-s103-000.jpg"), "\(taken.stderr)")
        // --worst 1 keeps one of them.
        let one = try CellQABinary.run(["review", report, "--out", dir.url.appendingPathComponent("one").path, "--all", "--worst", "1"])
        #expect(one.status == 0 && one.stdout.split(separator: "\n").count == 1, "\(one.stdout)")
    }

    @Test func theDatasetIsNeverWrittenInto() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let inside = dir.url.appendingPathComponent("data/review").path
        let (_, result) = try Self.review(in: dir, out: inside, ["--all"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("is inside the dataset root"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: inside))
        // Nor the run's report directory, which the next run could then not replace; beside it is fine.
        let report = dir.url.appendingPathComponent("report").path
        for out in [report, report + "/review"] {
            let refused = try CellQABinary.run(["review", report, "--out", out, "--all"])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("is inside the run's report directory \(report); the next `cellqa run --out` there "
                                            + "would refuse to replace it"), "\(refused.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: report).allSatisfy { !$0.hasSuffix(".png") && $0 != "review" })
        // Nor inside another run's report directory.
        let other = dir.url.appendingPathComponent("other").path
        try FileManager.default.copyItem(atPath: report, toPath: other)
        let intoOther = try CellQABinary.run(["review", report, "--out", other + "/review", "--all"])
        #expect(intoOther.status == 2)
        #expect(intoOther.stderr.contains("--out \(other)/review is inside \(other), the report directory of a cellqa run"),
                "\(intoOther.stderr)")
        let beside = try CellQABinary.run(["review", report, "--out", dir.url.appendingPathComponent("beside").path, "--all"])
        #expect(beside.status == 0, "\(beside.stderr)")
    }

    @Test func aBrokenReportIsNamed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let report = try Self.run(into: dir)
        try "path,status\n".write(toFile: report + "/detections.csv", atomically: true, encoding: .utf8)
        let result = try CellQABinary.run(["review", report, "--out", dir.url.appendingPathComponent("r").path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(report)/detections.csv:1: no column \"x\""), "\(result.stderr)")
        let missing = try CellQABinary.run(["review", dir.url.appendingPathComponent("nothing").path, "--out", dir.url.path + "/r2"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nothing/report.json"), "\(missing.stderr)")
    }

    /// A run whose dataset holds "x.jpg" and "x.png" errs on the second image (same stem) and on
    /// the labels that name it (no image): the review draws the scored one and passes over them.
    /// Two fixtures drawing the same file (a report edited to hold "x.jpg" twice, as "x.jpeg")
    /// are drawn at once (`--jobs 2`): the first in the review's order keeps it, the other is
    /// named, the same on every run.
    @Test func fixturesWithoutAnImageAndSharedOverlaysAreNamed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = dir.url.appendingPathComponent("data").path
        for (image, label, name) in [("sparse-s103-000.jpg", "sparse-s103-000.json", "x.jpg"),
                                     ("standard-s111-000.png", "standard-s111-000.json", "x.png")] {
            try dir.write("data/" + name, try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.goldens + "/" + image))))
            let text = try String(contentsOfFile: Self.labels + "/" + label, encoding: .utf8)
                .replacingOccurrences(of: "\"image\": \"\(image)\"", with: "\"image\": \"\(name)\"")
            try dir.write("data/" + name.replacingOccurrences(of: ".", with: "-") + ".json", text)
        }
        let report = dir.url.appendingPathComponent("report").path
        let run = try CellQABinary.run(["run", data, "--out", report, "--quiet"])
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        let drawn = try CellQABinary.run(["review", report, "--out", dir.url.appendingPathComponent("r").path, "--all"])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        #expect(drawn.stdout.hasPrefix("x.jpg: TP "), "\(drawn.stdout)")

        let reportJSON = report + "/report.json"
        guard case .object(var root) = try JSONValue.parse(String(contentsOfFile: reportJSON, encoding: .utf8)),
              case .array(var fixtures)? = root["fixtures"],
              let scored = fixtures.first(where: { $0["path"] == .string("x.jpg") }), case .object(var copy) = scored else {
            Issue.record("no scored fixture in \(reportJSON)")
            return
        }
        copy["path"] = .string("x.jpeg")
        fixtures.append(.object(copy))
        root["fixtures"] = .array(fixtures)
        try (JSONValue.object(root).serialized(pretty: true) + "\n").write(toFile: reportJSON, atomically: true, encoding: .utf8)
        var outputs: [String] = []
        for round in 0..<2 {
            let out = dir.url.appendingPathComponent("review\(round)").path
            let result = try CellQABinary.run(["review", report, "--out", out, "--all", "--jobs", "2"])
            #expect(result.status == 2)
            // Equal counts go in path order: "x.jpeg" before "x.jpg".
            #expect(result.stderr == "cellqa review: \(out)/x.png: is also the overlay of x.jpeg, drawn first (images of the "
                    + "same name with different extensions; review them with --filter, into separate --out directories)\n",
                    "\(result.stderr)")
            #expect(result.stdout.hasPrefix("x.jpeg: TP "), "\(result.stdout)")
            #expect(FileManager.default.fileExists(atPath: out + "/x.png"))
            outputs.append(result.stdout.replacingOccurrences(of: out, with: "OUT"))
        }
        #expect(outputs[0] == outputs[1])
    }

    /// A run given a relative dataset root records relative image paths and the directory it
    /// ran in: reviewed from another directory, the images are found there; once the dataset
    /// has moved (or on another machine), with `--dataset`.
    @Test func aMovedDatasetIsFoundWithDataset() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("data/sparse-s103-000.jpg", try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.goldens + "/sparse-s103-000.jpg"))))
        try dir.write("data/sparse-s103-000.json", try String(contentsOfFile: Self.labels + "/sparse-s103-000.json", encoding: .utf8))
        let run = try CellQABinary.run(["run", "data", "--out", "report", "--quiet"], in: dir.url)
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        let report = dir.url.appendingPathComponent("report").path
        let elsewhere = try TemporaryDirectory()
        defer { elsewhere.remove() }
        // The report names the run's directory, so the relative root is found from anywhere.
        let fromElsewhere = try CellQABinary.run(["review", report, "--out", "r0", "--all"], in: elsewhere.url)
        #expect(fromElsewhere.status == 0, "\(fromElsewhere.stderr)")
        #expect(FileManager.default.fileExists(atPath: elsewhere.url.appendingPathComponent("r0/sparse-s103-000.png").path))

        try FileManager.default.moveItem(at: dir.url.appendingPathComponent("data"), to: dir.url.appendingPathComponent("moved"))
        let lost = try CellQABinary.run(["review", report, "--out", "r1", "--all"], in: elsewhere.url)
        #expect(lost.status == 2)
        #expect(lost.stderr.contains("data/sparse-s103-000.jpg"), "\(lost.stderr)")
        let found = try CellQABinary.run(["review", report, "--out", "r2", "--all", "--dataset", dir.url.appendingPathComponent("moved").path],
                                         in: elsewhere.url)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(FileManager.default.fileExists(atPath: elsewhere.url.appendingPathComponent("r2/sparse-s103-000.png").path))
    }
}
