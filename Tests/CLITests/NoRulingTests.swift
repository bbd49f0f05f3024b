import Foundation
import Testing

/// `--no-ruling`: `cellqa synth` draws views in which no line shows, labelled without a
/// calibration, and `cellqa bench pipeline` times the grid search on them (the fallbacks such
/// a view runs through).
struct NoRulingTests {
    @Test func synthWritesUnruledFixturesWithoutACalibration() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let out = dir.url.appendingPathComponent("data")
        let synth = try CellQABinary.run(["synth", "--out", out.path, "--count", "1", "--seed", "5", "--no-ruling",
                                          "--width", "320", "--height", "240"])
        #expect(synth.status == 0, "\(synth.stderr)")
        let label = try String(contentsOf: out.appendingPathComponent("standard-unruled-s5-000.json"), encoding: .utf8)
        #expect(label.contains("\"no-ruling\""))
        #expect(!label.contains("umPerPixel") && !label.contains("\"grid\""))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("standard-unruled-s5-000.png").path))
        // A labelled dataset `cellqa validate` accepts as it is.
        let validate = try CellQABinary.run(["validate", out.path])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
    }

    @Test func benchPipelineSaysItsImagesAreUnruled() throws {
        let result = try CellQABinary.run(["bench", "pipeline", "--iterations", "1", "--images", "1", "--no-ruling",
                                           "--width", "320", "--height", "240"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("'standard' unruled images"))
        #expect(result.stdout.split(separator: "\n").contains { $0.hasPrefix("grid ") })
    }
}
