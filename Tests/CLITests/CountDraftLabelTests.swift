import Foundation
import JSON
import Testing

/// `cellqa count --draft-labels DIR`: detections written as labels-v1 drafts, never over a
/// file that is already there.
@Suite struct CountDraftLabelTests {
    static func golden(_ name: String) -> String {
        (CountExplainTests.golden as NSString).deletingLastPathComponent + "/" + name
    }

    @Test func draftsAreWrittenAndReadAsLabels() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let drafts = dir.url.appendingPathComponent("drafts/new").path
        let result = try CellQABinary.run(["count", Self.golden("sparse-s103-000.jpg"), Self.golden("standard-s111-000.png"),
                                           "--draft-labels", drafts, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let images = CountExplainTests.array(try JSONValue.parse(result.stdout)["images"])
        #expect(images.count == 2)
        for (stem, image) in zip(["sparse-s103-000", "standard-s111-000"], images) {
            let path = drafts + "/" + stem + ".json"
            // The repository's own label reader accepts it, and it holds what the count found.
            let inspected = try CellQABinary.run(["inspect", path])
            #expect(inspected.status == 0, "\(inspected.stdout) \(inspected.stderr)")
            #expect(inspected.stdout.contains("tags: draft"), "\(inspected.stdout)")
            let label = try JSONValue.parse(String(contentsOfFile: path, encoding: .utf8))
            #expect(CountExplainTests.array(label["cells"]).count == CountExplainTests.array(image["detections"]).count)
            #expect(label["version"] == .int(1))
        }
    }

    @Test func anExistingFileIsNeverOverwrittenAndTheOtherImagesGoOn() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let corrected = "{ \"version\": 1, \"cells\": [] }\n"
        try dir.write("sparse-s103-000.json", corrected)
        let result = try CellQABinary.run(["count", Self.golden("sparse-s103-000.jpg"), Self.golden("standard-s111-000.png"),
                                           "--draft-labels", dir.url.path])
        #expect(result.status == 2)
        let kept = dir.url.appendingPathComponent("sparse-s103-000.json").path
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == corrected, "a person's label left as it was")
        #expect(result.stderr.contains("cellqa count: \(kept): exists; a draft never overwrites a label"), "\(result.stderr)")
        // Both images were still counted, and the other one's draft written.
        #expect(result.stdout.contains("sparse-s103-000.jpg") && result.stdout.contains("standard-s111-000.png"))
        #expect(FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("standard-s111-000.json").path))
    }

    /// A dataset whose labels are unchecked drafts scores the pipeline against itself: run and
    /// validate say so.
    @Test func draftsInADatasetAreFlagged() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = dir.url.appendingPathComponent("data").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.golden("standard-s111-000.png"), toPath: data + "/standard-s111-000.png")
        let drafted = try CellQABinary.run(["count", data + "/standard-s111-000.png", "--draft-labels", data])
        #expect(drafted.status == 0, "\(drafted.stderr)")
        let run = try CellQABinary.run(["run", data, "--out", dir.url.appendingPathComponent("out").path, "--quiet"])
        #expect(run.stderr.contains("cellqa run: warning: 1 of 1 fixtures' labels carry the tag \"draft\""), "\(run.stderr)")
        #expect(run.stdout.contains("F1 1.0000"), "a draft matches the detections it was drafted from: \(run.stdout)")
        let validated = try CellQABinary.run(["validate", data])
        #expect(validated.status == 0)
        #expect(validated.stdout.contains("note: 1 label(s) carry the tag \"draft\""), "\(validated.stdout)")
    }

    @Test func aDirectoryThatCannotBeMadeIsNamed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("file", "not a directory")
        let blocked = dir.url.appendingPathComponent("file/drafts").path
        let result = try CellQABinary.run(["count", Self.golden("standard-s111-000.png"), "--draft-labels", blocked])
        #expect(result.status == 2)
        // The directory named once, at the start: not behind the draft's own path.
        // And the file in the way named, not Foundation's "NSCocoaErrorDomain error 512".
        #expect(result.stderr.hasPrefix("cellqa count: \(blocked): cannot create the directory (\(dir.url.path)/file is a file, "
                                        + "not a directory)"), "\(result.stderr)")
    }
}
