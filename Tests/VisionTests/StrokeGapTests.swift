import Foundation
import Testing
@testable import Vision

/// `strokeGapRadii`: a candidate centred in a gap between ruling strokes narrower than a cell
/// is one of the ruling's little squares, wherever the registered ruling puts the triple
/// lines. The image is a tilted, keystoned greyscale view of the fourth generator whose ruling
/// is registered off its triple lines, so the triple-crossing filter looks for their squares
/// in the wrong place.
@Suite("A gap between ruling strokes narrower than a cell holds no cell")
struct StrokeGapTests {
    static let path = "Tests/Images/stroke-gaps-misregistered.jpg"
    /// Where the light squares between the strokes of crossing triple lines are detected
    /// without the rule, image pixels.
    static let gaps: [(Double, Double)] = [
        (1791, 126), (1803, 124), (1794, 137), (1510, 160), (1523, 160), (1526, 170), (1513, 174),
        (1239, 195), (1230, 207), (1241, 208),
    ]

    /// The squares go and nothing else changes (its 19 labelled cells are found alike). (With
    /// the ruling's edges quiet in the vote, `quietRulingEdgesDeg`, one square no longer
    /// reaches this step: off here, so that all ten test the rule.)
    @Test func thePipelineDropsTheGapsOnly() throws {
        var base = PipelineConfig()
        base.quietRulingEdgesDeg = 0
        try expectDropsOnly(Self.path, Self.gaps, within: 3, base: base) { $0.strokeGapRadii = 0 }
    }

    @Test func theGapSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("strokeGapRadii", off: "0", reads: 0.0, through: \.strokeGapRadii,
                                   defaultText: "1.5", invalid: "-1")
    }
}
