import Foundation
import Testing
import Imaging
import Vision
@testable import Harness

@Suite("Versions are interleaved repeat by repeat")
struct InterleavedRunnerTests {
    static func fixtures(_ d: TestDataset) -> [RunFixture] {
        ["a", "sub/b", "blank", "missing"].map { id in
            RunFixture(id: id, path: id + ".png", imagePath: d.root + "/" + id + ".png", labelPath: d.root + "/" + id + ".json",
                       group: "")
        }
    }

    /// Each version's repeats of a fixture alternate with the other's in time, so a burst of
    /// load lands on both; every version still gets every repeat's timings and its first
    /// repeat's result, and the same detections as a run on its own.
    @Test func repeatsAlternateBetweenVersions() throws {
        let d = try TestDataset.standard(name: "interleaved")
        defer { d.remove() }
        let fixtures = Self.fixtures(d)
        var config = PipelineConfig()
        config.minRadiusPx = 5
        let pipelines = [Pipeline(config: PipelineConfig()), Pipeline(config: config)]
        let settings = RunSettings(jobs: 1, repeats: 3)
        let results = runInterleaved(fixtures, pipelines: pipelines, settings: settings)
        #expect(results.count == 2)
        for (v, result) in results.enumerated() {
            let alone = runFixtures(fixtures, pipeline: pipelines[v], settings: RunSettings(jobs: 1))
            for (outcome, single) in zip(result.outcomes, alone.outcomes) {
                #expect(outcome.status == single.status && outcome.error == single.error, "\(outcome.fixture.id)")
                #expect(outcome.result?.detections == single.result?.detections, "\(outcome.fixture.id)")
                #expect(outcome.score == single.score, "\(outcome.fixture.id)")
            }
        }
        for i in 0..<3 {
            let spans = results.map { $0.outcomes[i].spans.map(\.start) }
            #expect(spans.allSatisfy { $0.count == 3 } && results.allSatisfy { $0.outcomes[i].samples.count == 3 })
            // In time: one repeat of each version, then the next repeat of each.
            let order = spans.enumerated().flatMap { v, starts in starts.enumerated().map { (start: $1, version: v, repeat: $0) } }
                .sorted { $0.start < $1.start }
            #expect(order.map(\.repeat) == [0, 0, 1, 1, 2, 2], "fixture \(i): \(order)")
            #expect(order[0].version != order[2].version, "the first version rotates with the repeat: \(order)")
        }
        // A fixture that cannot be read fails once per version and is not run again.
        #expect(results.allSatisfy { $0.outcomes[3].status == .errored && $0.outcomes[3].samples.isEmpty })
    }
}
