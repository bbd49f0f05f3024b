import Foundation
import JSON
import Testing

/// `cellqa count` on several images at once (`--jobs`), and the files its images write: never
/// one image over another's overlay or draft, never an overlay over an image being counted.
@Suite struct CountConcurrencyTests {
    static let goldens = ["sparse-s103-000.jpg", "standard-s111-000.png", "blank-s104-000.jpg"]
        .map(CountDraftLabelTests.golden)

    /// The JSON without timings, which differ from run to run.
    static func withoutTimings(_ stdout: String) throws -> JSONValue {
        guard case .object(var root) = try JSONValue.parse(stdout), case .array(let images)? = root["images"] else {
            return .null
        }
        root["images"] = .array(images.map { image in
            guard case .object(var body) = image else { return image }
            body["timings"] = nil
            body["steps"] = nil
            return .object(body)
        })
        return .object(root)
    }

    @Test func resultsAreTheSameAndInTheGivenOrderForAnyJobCount() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("garbage.jpg", "not an image")
        let garbage = dir.url.appendingPathComponent("garbage.jpg").path
        // The unreadable image in the middle: its error keeps its place, the others are counted.
        let images = [Self.goldens[0], garbage] + Array(Self.goldens[1...])
        var outputs: [JSONValue] = [], stderr = ""
        for jobs in ["1", "3"] {
            let json = try CellQABinary.run(["count"] + images + ["--json", "--jobs", jobs])
            #expect(json.status == 2, "\(json.stderr)")
            #expect(json.stderr.hasPrefix("cellqa count: \(garbage): "), "\(json.stderr)")
            outputs.append(try Self.withoutTimings(json.stdout))
            stderr = json.stderr
        }
        #expect(outputs[0] == outputs[1])
        guard case .array(let counted)? = outputs[0]["images"] else { Issue.record("no images"); return }
        let names = counted.compactMap { image -> String? in
            if case .string(let name)? = image["image"] { return name }
            return nil
        }
        #expect(names == Self.goldens, "three images counted, in the order given")
        // The one that could not be counted is in the JSON too, with stderr's message.
        guard case .array(let errors)? = outputs[0]["errors"], errors.count == 1 else { Issue.record("not one error"); return }
        #expect(errors[0]["image"] == .string(garbage))
        guard case .string(let message)? = errors[0]["error"] else { Issue.record("no error message"); return }
        #expect(message.hasPrefix(garbage + ": "), "\(message)")
        #expect(stderr.contains(message))
        // The table too, one line per image after the header.
        let table = try CellQABinary.run(["count"] + images + ["--jobs", "3"])
        #expect(table.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ").first.map(String.init) ?? "" }
                == Self.goldens.map { ($0 as NSString).lastPathComponent }, "\(table.stdout)")
    }

    @Test func anOverlayIsNeverWrittenOverAnImageBeingCounted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.goldens[1])))
        try dir.write("view.png", original)
        let view = dir.url.appendingPathComponent("view.png").path
        // The overlay named as the image itself, through another spelling of the same path.
        let result = try CellQABinary.run(["count", view, "--overlay", dir.url.path + "/./view.png"])
        #expect(result.status == 2)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: view))) == original, "the image left as it was")
        #expect(result.stderr == "cellqa count: \(view): overlay not written: \(dir.url.path)/./view.png is the image "
                + "itself; cellqa never writes over an input (choose another --overlay)\n", "\(result.stderr)")
        #expect(result.stdout.contains("view.png"), "the image is still counted")

        // With several images, the overlay of one named as another image ("OUT-<stem>.png").
        try dir.write("o-view.png", original)
        let other = dir.url.appendingPathComponent("o-view.png").path
        let two = try CellQABinary.run(["count", view, other, "--overlay", dir.url.path + "/o.png"])
        #expect(two.status == 2)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: other))) == original)
        #expect(two.stderr.contains("cellqa count: \(view): overlay not written: \(dir.url.path)/o-view.png is the image "
                                    + "\(other), which is being counted"), "\(two.stderr)")
        // The other image's own overlay, o-o-view.png, is written.
        #expect(FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("o-o-view.png").path))
    }

    @Test func imagesOfTheSameNameDoNotShareAnOverlayOrADraft() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // The same stem, "x", in two folders (a JPEG and a PNG).
        for (file, source) in [("a/x.jpg", Self.goldens[0]), ("b/x.png", Self.goldens[1])] {
            try dir.write(file, try [UInt8](Data(contentsOf: URL(fileURLWithPath: source))))
        }
        let a = dir.url.appendingPathComponent("a/x.jpg").path, b = dir.url.appendingPathComponent("b/x.png").path
        let overlay = dir.url.appendingPathComponent("out.png").path
        let drafts = dir.url.appendingPathComponent("drafts").path
        let result = try CellQABinary.run(["count", a, b, "--overlay", overlay, "--draft-labels", drafts, "--json", "--jobs", "2"])
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines == [
            "cellqa count: \(b): overlay not written: \(dir.url.path)/out-x.png is also the overlay of \(a), given earlier "
                + "(images of the same name: count them in separate runs, each with its own --overlay)",
            "cellqa count: \(b): draft label not written: \(drafts)/x.json is also the draft label of \(a), given earlier "
                + "(images of the same name: count them in separate runs, each with its own --draft-labels directory)",
        ], "\(result.stderr)")
        // The first image's files are its own: its draft holds its detections, not the other's.
        guard case .array(let images)? = try JSONValue.parse(result.stdout)["images"], images.count == 2 else {
            Issue.record("both images counted: \(result.stdout)")
            return
        }
        let draft = try JSONValue.parse(String(contentsOfFile: drafts + "/x.json", encoding: .utf8))
        #expect(CountExplainTests.array(draft["cells"]).count == CountExplainTests.array(images[0]["detections"]).count)
        #expect(CountExplainTests.array(images[0]["detections"]).count != CountExplainTests.array(images[1]["detections"]).count)
        #expect(FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("out-x.png").path))
    }

    @Test func badOptionsAreRefusedBeforeAnyImageIsCounted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let jobs = try CellQABinary.run(["count", Self.goldens[0], "--jobs", "0"])
        #expect(jobs.status == 2)
        #expect(jobs.stderr.contains("--jobs must be 1 or more, got 0"), "\(jobs.stderr)")
        // A PNG named otherwise would not be read back (the decoders check the extension).
        let overlay = dir.url.appendingPathComponent("out.jpg").path
        let named = try CellQABinary.run(["count", Self.goldens[0], "--overlay", overlay])
        #expect(named.status == 2)
        #expect(named.stderr.contains("--overlay writes a PNG: give a file name ending in .png, got '\(overlay)'"), "\(named.stderr)")
        #expect(named.stdout.isEmpty && !FileManager.default.fileExists(atPath: overlay))
    }
}
