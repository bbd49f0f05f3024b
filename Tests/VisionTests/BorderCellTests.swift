import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Cells cut by the image border")
struct BorderCellTests {
    @Test func visibleShareCountsSectorsInsideThePlane() {
        #expect(visibleSectorShare(x: 50, y: 50, r: 8, width: 100, height: 100) == 1)
        // Centre 6 px from the left edge, r 8: the left-facing sectors' rim points are outside.
        let left = visibleSectorShare(x: 6, y: 50, r: 8, width: 100, height: 100)
        #expect(left > 0.625 && left < 1)
        // A centre on the corner sees a quarter of its rim: the floor applies.
        #expect(visibleSectorShare(x: 0, y: 0, r: 8, width: 100, height: 100) == 0.625)
    }

    /// Live cells (r 9 px) whose centres lie 3 px inside each of the four borders, and four
    /// whole ones: a border cell's rim covers only the sectors inside the image, so its
    /// coverage is counted over those.
    @Test func cellsCutByTheBorderAreFound() throws {
        var canvas = Canvas(width: 320, height: 240)
        let cut: [(x: Double, y: Double)] = [(x: 3, y: 120), (x: 160, y: 3), (x: 316, y: 110), (x: 150, y: 236)]
        let whole: [(x: Double, y: Double)] = [(x: 80, y: 80), (x: 240, y: 80), (x: 80, y: 160), (x: 240, y: 160)]
        for c in cut + whole { canvas.liveCell(x: c.x, y: c.y, r: 9) }
        let result = try Pipeline(config: PipelineConfig()).run(canvas.image(noise: 0.02))
        #expect(matchCount(result.detections, whole, tolerance: 4) == whole.count, "\(result.detections)")
        #expect(matchCount(result.detections, cut, tolerance: 4) >= 3, "\(result.detections)")
        #expect(result.detections.count <= cut.count + whole.count, "\(result.detections)")
    }
}
