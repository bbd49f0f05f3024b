import Foundation
import Testing
@testable import Vision

/// `lineEdgeCoverageMargin`: a rim measured where ruling lines add edges of their own must
/// show one sector more than the boundary test asks. Both images are blank controls; each
/// holds one false detection without the margin.
@Suite("Rims measured among ruling lines need a sector more")
struct LineEdgeMarginTests {
    /// Between the strokes of a triple line, the strokes' residue after subtracting the line a
    /// slightly stray step along it faces the centre from 12 of 16 sectors. (At the smallest
    /// radius and without a clear ring, the spot is also a dark speck, `darkSpeckMaxRadius`:
    /// off here, so that the margin is what this tests.)
    @Test func aSpotBetweenTripleStrokesIsNotACell() throws {
        var base = PipelineConfig()
        base.darkSpeckMaxRadius = 0
        let (with, without) = try detectionsWithAndWithout("Tests/Images/between-triple-strokes.png", base: base) {
            $0.lineEdgeCoverageMargin = 0
        }
        func near(_ d: Detection) -> Bool { isNear(d, 135.0, 299.2, within: 3) }
        #expect(without.contains(where: near), "no detection between the strokes without the margin: the case no longer arises")
        #expect(with.isEmpty, "\(with.count) detections on a blank control")
    }

    /// In the core of two crossing triple lines of a tinted image, the dark core reads as stain
    /// whose edges cover 12 of 16 sectors round a centre between the strokes. (Moving it to
    /// its stain's centre, `stainCentresOnLines`, voting with the line subtracted,
    /// `lineSubtractedVotes`, or asking its bright centre for a rim circle,
    /// `refractileRimShare`, also loses it: off here, so that the margin is what this tests.)
    @Test func aTripleCrossingCoreIsNotAStainedCell() throws {
        var base = PipelineConfig()
        base.stainCentresOnLines = false
        base.lineSubtractedVotes = false
        base.refractileRimShare = 0
        try expectDropsOnly("Tests/Images/triple-crossing-core.png", [(79.1, 372.2)], within: 3, base: base) {
            $0.lineEdgeCoverageMargin = 0
        }
    }
}
