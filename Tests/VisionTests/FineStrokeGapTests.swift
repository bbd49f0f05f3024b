import Foundation
import Testing
import Imaging
@testable import Vision

/// `fineStrokeGapContrast`: the stroke-gap test asked again at full resolution, where strokes
/// a few µm apart stand apart that the working planes blur into one band. The image is the
/// top of a tilted, keystoned view of the central square (fourth generator), whose faint
/// triple lines the working-scale test cannot resolve.
@Suite("At full resolution, a gap between the strokes of two crossing triple lines holds no cell")
struct FineStrokeGapTests {
    static let path = "Tests/Images/fine-stroke-gaps.jpg"
    /// Where the light squares between the strokes of crossing triple lines are detected
    /// without the rule, image pixels.
    static let gaps: [(Double, Double)] = [
        (351, 71), (344, 81), (123, 110), (113, 113), (849, 236), (849, 246), (617, 266), (617, 276),
        (607, 278), (383, 297), (386, 308), (375, 309), (152, 329), (143, 340),
    ]

    /// The squares go and nothing else changes (its 17 labelled cells are found alike). Each
    /// square is bright beside dark strokes, so the crossing filter also takes 13 of the 14 for
    /// a crossing's residue where lines show a bright core (`crossingBrightLineCores`): off
    /// here, so that the rule tested decides. So is a close ruling copy beyond 0.18, as before
    /// the fortieth session (at 0.225, `rulingCopySingleResidual`, the copies drop two).
    @Test func thePipelineDropsTheGapsOnly() throws {
        var base = PipelineConfig()
        base.crossingBrightLineCores = false
        base.rulingCopySingleResidual = 0.18
        try expectDropsOnly(Self.path, Self.gaps, within: 2, base: base) { $0.fineStrokeGapContrast = 0 }
    }

    /// The measure on drawn strokes: the little square where two triple lines cross lies
    /// between strokes across both directions; a point on a stroke, and a cell whose
    /// neighbours in a clump surround it on every side, do not.
    @Test func strokesStandApartAndARowOfCellsDoesNot() throws {
        var canvas = Canvas(width: 240, height: 240)
        // Two triple lines, three strokes 2 px wide and 10 px apart each, crossing at (180, 180).
        canvas.paint(factor: (0.8, 0.8, 0.8), bounds: (0, 0, 239, 239)) { x, y in
            [170.0, 180, 190].contains { abs(x - $0) <= 1 || abs(y - $0) <= 1 }
        }
        // A clump: a cell with neighbours above, below and to either side.
        for (x, y) in [(60.0, 60.0), (75, 60), (45, 60), (60, 75), (60, 45)] { canvas.liveCell(x: x, y: y, r: 7) }
        let image = canvas.image(noise: 0.02)
        func between(_ x: Double, _ y: Double) throws -> Bool {
            try [0, Double.pi / 2].allSatisfy { angle in
                let profile = try #require(strokeProfile(image, x: x, y: y, angle: angle, reach: 10, halfLength: 28))
                return isGap(reach: 10, level: 0.04, { profile[$0 + 10] })
            }
        }
        #expect(try between(175, 185))
        #expect(try !between(180, 185), "on a stroke")
        #expect(try !between(60, 60), "a cell in a clump")
        #expect(strokeProfile(image, x: 10, y: 10, angle: 0, reach: 10, halfLength: 28) == nil, "past the border")
    }

    @Test func theFineGapSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("fineStrokeGapContrast", off: "0", reads: 0.0, through: \.fineStrokeGapContrast,
                                   defaultText: "0.04", invalid: "-1")
    }
}
