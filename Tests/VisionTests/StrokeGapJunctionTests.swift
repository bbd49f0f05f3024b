import Foundation
import Testing
@testable import Vision

/// `strokeGapsAtJunctions`: the stroke-gap test where a triple line ends at another (a
/// T-junction, the edge of the central square). The image is a blurred `hard` view of the
/// fourth generator whose triple lines the registration misplaces, so the triple-crossing
/// filter looks for their little squares elsewhere.
@Suite("The little squares where a triple line ends at another hold no cell")
struct StrokeGapJunctionTests {
    static let path = "Tests/Images/stroke-gaps-at-junctions.jpg"
    /// Where light squares between the strokes at junctions are detected without the setting,
    /// image pixels.
    static let squares: [(Double, Double)] = [(593.1, 49.7), (582.5, 50.5), (594.0, 60.1), (609.9, 287.0), (611.1, 297.9)]

    /// The squares go and nothing else changes (the view's labelled cells are found alike).
    /// (With the full-resolution test off: it finds two of the squares on its own.)
    @Test func thePipelineDropsTheSquaresOnly() throws {
        var base = PipelineConfig()
        base.fineStrokeGapContrast = 0
        try expectDropsOnly(Self.path, Self.squares, within: 3, base: base) { $0.strokeGapsAtJunctions = false }
    }

    /// A line over half the samples either side of a point (it ends there) is lost to the
    /// two-sided strength's lower quantile but found by the stronger half.
    @Test func aLineEndingAtThePointShowsOnOneSide() {
        var plane = Plane(width: 80, height: 40)
        for x in 40..<80 { plane[x, 20] = 0.3 }
        let twoSided = lineStrength(plane, x: 40, y: 20, angle: 0, halfLength: 30)
        let oneSided = oneSidedLineStrength(plane, x: 40, y: 20, angle: 0, halfLength: 30)
        #expect(twoSided < 0.01 && abs(oneSided - 0.3) < 1e-6, "\(twoSided), \(oneSided)")
        // Through the line's middle both agree; off it both are nothing.
        #expect(lineStrength(plane, x: 60, y: 20, angle: 0, halfLength: 15) == 0.3)
        #expect(oneSidedLineStrength(plane, x: 60, y: 20, angle: 0, halfLength: 15) == 0.3)
        #expect(oneSidedLineStrength(plane, x: 60, y: 10, angle: 0, halfLength: 15) == 0)
        // No samples asked, nothing claimed (and no trap on a negative length).
        for halfLength in [0, -3] {
            #expect(lineStrength(plane, x: 60, y: 20, angle: 0, halfLength: halfLength) == 0)
            #expect(oneSidedLineStrength(plane, x: 60, y: 20, angle: 0, halfLength: halfLength) == 0)
        }
    }

    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("strokeGapsAtJunctions", off: "false", reads: false, through: \.strokeGapsAtJunctions,
                                   defaultText: "true", invalid: "1")
    }
}
