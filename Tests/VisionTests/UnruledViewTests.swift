import Testing
import Synth
@testable import Vision

/// A view in which no line shows (high magnification, or outside the ruled area) is said to
/// have no ruling, and its cells are counted all the same, uncalibrated.
@Suite("Views without a ruling")
struct UnruledViewTests {
    @Test func noGridIsFlaggedAndTheCellsAreStillFound() throws {
        let fixture = try SynthGenerator(preset: .standard, seed: 5, width: 640, height: 480, ruled: false).make(index: 0)
        let result = try Pipeline(config: PipelineConfig()).run(fixture.image)
        #expect(result.flags.contains("no-grid"))
        #expect(result.grid == nil && result.umPerPixel == nil)
        let truth = fixture.label.cells.map { (x: $0.x, y: $0.y) }
        try #require(truth.count >= 20)
        let matched = matchCount(result.detections, truth, tolerance: 3)
        #expect(Double(matched) >= 0.9 * Double(truth.count), "\(matched) of \(truth.count) cells found")
        #expect(Double(result.detections.count) <= 1.1 * Double(truth.count))
    }
}
