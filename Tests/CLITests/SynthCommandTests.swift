import Foundation
import Testing

/// `cellqa synth` as a user runs it: the same fixtures and lines for any `--jobs`, and a
/// fixture that cannot be written stops the run with its path named.
@Suite struct SynthCommandTests {
    static func synth(into out: String, jobs: Int, extra: [String] = []) throws -> CommandResult {
        try CellQABinary.run(["synth", "--out", out, "--count", "6", "--seed", "5", "--width", "160", "--height", "120",
                              "--jobs", "\(jobs)"] + extra)
    }

    @Test func theFixturesAndLinesAreTheSameForAnyJobCount() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var lines: [String] = []
        var files: [[String: Data]] = []
        for jobs in [1, 3] {
            let out = dir.url.appendingPathComponent("j\(jobs)").path
            let result = try Self.synth(into: out, jobs: jobs)
            #expect(result.status == 0, "\(result.stderr)")
            lines.append(result.stdout.replacingOccurrences(of: out, with: "OUT"))
            var contents: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: out) {
                contents[name] = try Data(contentsOf: URL(fileURLWithPath: out + "/" + name))
            }
            files.append(contents)
        }
        #expect(lines[0] == lines[1])
        #expect(lines[0].split(separator: "\n").map { $0.components(separatedBy: ": ")[0] }
                == (0..<6).map { "OUT/standard-s5-00\($0).png" })
        #expect(files[0] == files[1])
        #expect(files[0].count == 12, "an image and a label per fixture")
    }

    @Test func anOutThatIsAFileIsNamed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("taken", "a file")
        let out = dir.url.appendingPathComponent("taken").path
        let result = try Self.synth(into: out, jobs: 1)
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(out): cannot create the directory (\(out) is a file, not a directory)"), "\(result.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "a file")
    }

    @Test func aFixtureThatCannotBeWrittenStopsTheRunWithItsPath() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let out = dir.url.path
        // The third fixture's image path is taken by a directory.
        try FileManager.default.createDirectory(atPath: out + "/standard-s5-002.png", withIntermediateDirectories: true)
        let result = try Self.synth(into: out, jobs: 3)
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(out)/standard-s5-002.png: exists and is not a file; left as it is"), "\(result.stderr)")
        // The fixtures before it are written and listed; none after it is listed.
        #expect(result.stdout.split(separator: "\n").map { $0.components(separatedBy: ": ")[0] }
                == ["\(out)/standard-s5-000.png", "\(out)/standard-s5-001.png"], "\(result.stdout)")
    }

    /// A run again gives the same files, left as they are; a file changed since (a label
    /// corrected by hand) is never replaced unless `--overwrite` says so.
    @Test func aChangedFileIsReplacedOnlyWithOverwrite() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let out = dir.url.path
        #expect(try Self.synth(into: out, jobs: 2).status == 0)
        let again = try Self.synth(into: out, jobs: 2)
        #expect(again.status == 0, "the same bytes: \(again.stderr)")
        let label = out + "/standard-s5-003.json", image = out + "/standard-s5-003.png"
        let corrected = "{ \"version\": 1, \"cells\": [] }\n"
        try corrected.write(toFile: label, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: image)
        let refused = try Self.synth(into: out, jobs: 1)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("\(label): exists with other contents"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: label, encoding: .utf8) == corrected)
        #expect(!FileManager.default.fileExists(atPath: image), "checked before the fixture's image is written")
        #expect(refused.stdout.split(separator: "\n").count == 3, "the fixtures before it: \(refused.stdout)")
        let replaced = try Self.synth(into: out, jobs: 2, extra: ["--overwrite"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try String(contentsOfFile: label, encoding: .utf8) != corrected)
        #expect(FileManager.default.fileExists(atPath: image))
    }
}
