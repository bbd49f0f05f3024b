import Foundation
import JSON
import Testing

/// `cellqa count` with inputs a user gets wrong, and the sample's dilution on the command line.
@Suite struct CountInputTests {
    static func concentration(_ result: CommandResult) throws -> Double? {
        guard case .array(let images)? = try JSONValue.parse(result.stdout)["images"] else { return nil }
        return images.first?["counts"]?["concentrationPerML"]?.number
    }

    @Test func badInputsAreNamedOnceAndTheRestIsCounted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("garbage.png", "garbage")
        try FileManager.default.createDirectory(at: dir.url.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let garbage = dir.url.appendingPathComponent("garbage.png").path
        let empty = dir.url.appendingPathComponent("empty").path
        let result = try CellQABinary.run(["count", empty, garbage, CountExplainTests.golden])
        #expect(result.status == 2)
        // The good image after the two bad ones is still counted.
        #expect(result.stdout.contains("sparse-s103-000.jpg"), "\(result.stdout)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let directory = try #require(lines.first { $0.contains("directory") }, "\(result.stderr)")
        #expect(directory == "cellqa count: \(empty): a directory without a PNG or JPEG image (sub-directories are not read)")
        let unknown = try #require(lines.first { $0.contains("unknown image format") }, "\(result.stderr)")
        #expect(unknown.hasPrefix("cellqa count: \(garbage): unknown image format: first bytes are"))
        #expect(unknown.components(separatedBy: garbage).count == 2, "the file named once: \(unknown)")
        #expect(unknown.contains("expected PNG"))
    }

    /// A viewer shows a JPEG with EXIF orientation 6 turned; the count notes it on stderr (so
    /// the JSON on stdout stays clean), and says nothing for an image stored as shown.
    @Test func aTurnedPhotoIsNotedOnce() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("phone.jpg", try jpegWithExifOrientation(6))
        try dir.write("plain.jpg", try jpegWithExifOrientation(1))
        let phone = dir.url.appendingPathComponent("phone.jpg").path, plain = dir.url.appendingPathComponent("plain.jpg").path
        let result = try CellQABinary.run(["count", phone, plain, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "cellqa count: note: \(phone): the JPEG's EXIF orientation 6 has viewers show it turned 90° "
                                + "clockwise; coordinates, overlays and draft labels are of the pixels as stored\n", "\(result.stderr)")
        #expect(try JSONValue.parse(result.stdout)["images"] != nil)
    }

    /// A directory stands for the images directly in it, by name, in its argument's place:
    /// the same results as naming them.
    @Test func aDirectoryIsTheImagesInIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let sources = ["sparse-s103-000.jpg", "blank-s114-000.png"].map(CountDraftLabelTests.golden)
        try dir.write("photos/b.jpg", try [UInt8](Data(contentsOf: URL(fileURLWithPath: sources[0]))))
        try dir.write("photos/A.png", try [UInt8](Data(contentsOf: URL(fileURLWithPath: sources[1]))))
        try dir.write("photos/notes.txt", "not an image")
        try dir.write("photos/.hidden.png", "not read")
        try dir.write("photos/sub/c.png", try [UInt8](Data(contentsOf: URL(fileURLWithPath: sources[1]))))
        let photos = dir.url.appendingPathComponent("photos").path
        let byDirectory = try CellQABinary.run(["count", photos, CountExplainTests.golden, "--json"])
        #expect(byDirectory.status == 0, "\(byDirectory.stderr)")
        let byName = try CellQABinary.run(["count", photos + "/A.png", photos + "/b.jpg", CountExplainTests.golden, "--json"])
        #expect(try CountConcurrencyTests.withoutTimings(byDirectory.stdout) == CountConcurrencyTests.withoutTimings(byName.stdout))
        #expect(CountExplainTests.array(try JSONValue.parse(byDirectory.stdout)["images"]).count == 3)
    }

    @Test func dilutionScalesTheConcentrationAndIsChecked() throws {
        let plain = try CellQABinary.run(["count", CountExplainTests.golden, "--json"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let base = try #require(try Self.concentration(plain))
        #expect(base > 0)
        let diluted = try CellQABinary.run(["count", CountExplainTests.golden, "--json", "--dilution", "2"])
        #expect(diluted.status == 0, "\(diluted.stderr)")
        let doubled = try #require(try Self.concentration(diluted))
        // JSON rounds concentrations to 0.1 cells/mL.
        #expect(abs(doubled - 2 * base) <= 0.2)

        for bad in ["0", "-2", "nan"] {
            let refused = try CellQABinary.run(["count", CountExplainTests.golden, "--dilution", bad])
            #expect(refused.status == 2, "--dilution \(bad)")
            #expect(refused.stderr.contains("--dilution"), "\(refused.stderr)")
        }
    }
}
