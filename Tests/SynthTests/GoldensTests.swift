import Fixtures
import Foundation
import Testing
@testable import Synth

/// The committed Goldens must be what the generator makes today; after a generator change,
/// run scripts/make-goldens. Only the labels are compared (cheap, no rendering); the labels
/// depend on every scene choice, so a changed generator shows up here.
@Suite("Goldens match the generator")
struct GoldensTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Label files named `<preset>-s<seed>-<index>.json`, i.e. made by `cellqa synth`.
    static func synthLabelFiles() -> [String] {
        let directory = repository.appendingPathComponent("TestLabels").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".json") && parseName($0) != nil }.sorted()
            .map { directory + "/" + $0 }
    }

    static func parseName(_ file: String) -> (preset: SynthPreset, seed: UInt64, index: Int)? {
        let stem = (file as NSString).deletingPathExtension
        let parts = (stem as NSString).lastPathComponent.split(separator: "-")
        guard parts.count >= 3, parts[parts.count - 2].first == "s",
              let seed = UInt64(parts[parts.count - 2].dropFirst()), let index = Int(parts[parts.count - 1]),
              let preset = SynthPreset(rawValue: parts.dropLast(2).joined(separator: "-")) else { return nil }
        return (preset, seed, index)
    }

    @Test("the repository holds synthetic Goldens, including a blank control")
    func present() throws {
        let files = GoldensTests.synthLabelFiles()
        #expect(files.count >= 10)
        let tags = try files.flatMap { try Label.load(path: $0).tags }
        for required in ["blank-control", "dense", "blurred", "tilted", "jpeg", "dead-heavy"] {
            #expect(tags.contains(required), "no Golden tagged \(required)")
        }
    }

    @Test("every synthetic Golden label is reproduced by the generator", arguments: synthLabelFiles())
    func reproduced(path: String) throws {
        let committed = try Label.load(path: path)
        let (preset, seed, index) = try #require(GoldensTests.parseName(path))
        let generator = try SynthGenerator(preset: preset, seed: seed, width: try #require(committed.width),
                                           height: try #require(committed.height))
        var expected = generator.label(index: index)
        // The command adds the file name and, for JPEG output, the "jpeg" tag.
        expected.image = committed.image
        if committed.image?.hasSuffix(".jpg") == true { expected.tags.append("jpeg") }
        #expect(committed == expected, "\(path) differs from the generator: run scripts/make-goldens")
    }
}
