import Foundation
import Hemocytometer
import Imaging
import Testing
@testable import Vision

/// `rulingCopyResidual`: a candidate whose window two copies one ruling period away match is
/// the ruling, not a cell. The image is a view of heavy triple lines and the single lines that
/// cross them, with fifteen labelled cells; two light squares between strokes are detected
/// without the rule.
@Suite("A window the ruling repeats a period away holds no cell")
struct RulingCopiesTests {
    static let path = "Tests/Images/heavy-ruling-squares.png"
    /// The default residual limit.
    static let limit = Float(PipelineConfig().rulingCopyResidual)
    /// Where the light squares are detected without the rule, image pixels, and the radius.
    static let rulingSpots: [(x: Double, y: Double, r: Double)] = [(68.8, 175.9, 5.3), (254.9, 187.4, 6.2)]
    /// The labelled cells, image pixels (from the generator's label, less the crop's origin).
    static let cells: [(x: Double, y: Double, r: Double)] = [
        (466.15, 446.4, 7.27), (197.79, 456.78, 6.19), (451.83, 357.52, 6.36), (360.04, 392.33, 5.69),
        (32.08, 1.01, 5.21), (407.48, 407.92, 8.55), (20.31, 421.16, 7.39), (463.45, 168.54, 6.57),
        (145.32, 42.33, 6.48), (376.29, 255.59, 8.33), (259.52, 376.07, 7.51), (240.23, 198.84, 8.07),
        (342.54, 86.86, 5.46), (109.22, 182.49, 5.87), (452.07, 176.98, 7.86),
    ]

    /// The view's chamber map as the generator drew it: the ruled area's corners in the full
    /// view, less the crop's origin (680, 260), to the chamber's 3000 µm square.
    static func imageToChamber() throws -> Homography {
        let corners = [(-596.49, -645.41), (2324.23, -427.23), (2052.8, 2296.87), (-644.3, 2179.13)]
        let image = corners.map { Point(x: $0.0 - 680, y: $0.1 - 260) }
        let chamber = [Point(x: 0, y: 0), Point(x: 3000, y: 0), Point(x: 3000, y: 3000), Point(x: 0, y: 3000)]
        return try #require(Homography(from: image, to: chamber))
    }

    @Test func lightSquaresBetweenStrokesMatchTheirCopies() throws {
        let image = try Image.decode(file: repositoryRoot + "/" + Self.path)
        var copies = try #require(RulingCopies(image, imageToChamber: Self.imageToChamber()))
        for spot in Self.rulingSpots {
            let found = copies.matches(x: spot.x, y: spot.y, r: spot.r, maxResidual: Self.limit, enough: 12)
            let verdict = try #require(found)
            #expect(verdict.matches >= 2, "\(spot): \(verdict)")
        }
    }

    /// Cells on and beside the lines: the copies hold the lines but not the cell.
    @Test func cellsDoNotMatchTheirCopies() throws {
        let image = try Image.decode(file: repositoryRoot + "/" + Self.path)
        var copies = try #require(RulingCopies(image, imageToChamber: Self.imageToChamber()))
        var tested = 0
        for cell in Self.cells {
            guard let verdict = copies.matches(x: cell.x, y: cell.y, r: cell.r, maxResidual: Self.limit, enough: 12) else { continue }
            tested += 1
            #expect(verdict.matches < 2, "\(cell): \(verdict)")
        }
        #expect(tested >= 12, "only \(tested) cells away from the border")
    }

    /// The pipeline registers the ruling itself and drops the two squares, nothing else. With
    /// the map affine: on this 480 px crop the perspective refinement fits terms the small view
    /// barely pins down (1.4 % of scale across it), which sets the copies 200-250 µm away 2 px
    /// or more off and leaves the square at (254.9, 187.4) one copy. In the full view the crop
    /// comes from, the default configuration drops both.
    @Test func thePipelineDropsTheSquaresOnly() throws {
        var affine = PipelineConfig()
        affine.gridPerspective = false
        try expectDropsOnly(Self.path, Self.rulingSpots.map { ($0.x, $0.y) }, within: 3, base: affine) {
            $0.rulingCopyResidual = 0
        }
    }

    /// A cell with a twin exactly one small square away matches one copy, and is kept; asked
    /// for one copy only, the rule would drop it. A twin drawn identically matches almost
    /// exactly (0.03 of the window's structure: `rulingCopySingleResidual` would drop the
    /// cell); one half a pixel larger or smaller does not match at all. Photographed cells,
    /// and those of the three generators (0.22 and above), are never that alike.
    @Test func aLookAlikeOnePeriodAwayIsOneCopy() throws {
        func verdict(twinRadius: Double) throws -> RulingCopies.Verdict {
            var canvas = Canvas(width: 360, height: 360)
            canvas.liveCell(x: 150, y: 150, r: 8)
            canvas.liveCell(x: 200, y: 150, r: twinRadius)
            // One µm per pixel: the twin is one 50 µm square to the right.
            var copies = try #require(RulingCopies(canvas.image(noise: 0.01), imageToChamber: .identity))
            let found = copies.matches(x: 150, y: 150, r: 8, maxResidual: Self.limit, enough: 12)
            return try #require(found)
        }
        let identical = try verdict(twinRadius: 8)
        #expect(identical.matches == 1, "\(identical)")
        let close = Float(PipelineConfig().rulingCopySingleResidual)
        for r in [7.5, 8.5] {
            let v = try verdict(twinRadius: r)
            #expect(v.matches == 0 && v.best > close, "twin of r \(r): \(v)")
        }
    }

    /// A light square between the strokes where two triple lines cross, on a blank control of
    /// the third generator: only one of its copies in view matches, but almost exactly (a
    /// residual of 0.08 of the window's structure), so `rulingCopySingleResidual` drops it.
    /// Nothing else in the view changes. (With `rulingCopyMaxFlattening` a second copy, a
    /// little more contrasted, matches too: the rule is judged alone here.)
    @Test func oneCloseCopyIsTheRuling() throws {
        var base = PipelineConfig()
        base.rulingCopyMaxFlattening = 1
        try expectDropsOnly("Tests/Images/triple-crossing-one-copy.png", [(240, 372)], within: 3, base: base) {
            $0.rulingCopySingleResidual = 0
        }
    }

    /// The setting is read from a configuration file and printed with the defaults.
    @Test func theCloseCopySettingIsAConfigurationKey() throws {
        try expectConfigurationKey("rulingCopySingleResidual", off: "0", reads: 0.0, through: \.rulingCopySingleResidual,
                                   defaultText: "0.225", invalid: "-1")
    }

    /// A flat window carries nothing to compare, and a window that leaves the image is not
    /// judged.
    @Test func flatAndBorderWindowsAreNotJudged() throws {
        let image = Canvas(width: 200, height: 200).image()
        var copies = try #require(RulingCopies(image, imageToChamber: .identity))
        #expect(copies.matches(x: 100, y: 100, r: 8, maxResidual: 0.2, enough: 2) == nil)
        #expect(copies.matches(x: 5, y: 100, r: 8, maxResidual: 0.2, enough: 2) == nil)
    }

    /// Positions and radii no candidate has (not finite, a radius beyond any image) are not
    /// judged, and do not trap.
    @Test func unreasonableCandidatesAreNotJudged() throws {
        var canvas = Canvas(width: 200, height: 200)
        canvas.liveCell(x: 100, y: 100, r: 8)
        var copies = try #require(RulingCopies(canvas.image(), imageToChamber: .identity))
        for (x, y, r) in [(Double.nan, 100.0, 8.0), (100, .infinity, 8), (100, 100, .nan), (100, 100, 0),
                          (100, 100, -3), (100, 100, 5e3), (1e300, 100, 8)] {
            #expect(copies.matches(x: x, y: y, r: r, maxResidual: 0.2, enough: 2) == nil, "\((x, y, r))")
        }
    }

    @Test func theSettingsAreReadFromJSON() throws {
        let config = try PipelineConfig.parse(Array(#"{"rulingCopyResidual": 0.3, "rulingCopyMatches": 3}"#.utf8), file: "c.json")
        #expect(config.rulingCopyResidual == 0.3)
        #expect(config.rulingCopyMatches == 3)
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"rulingCopyMatches": 0}"#.utf8), file: "c.json") }
    }
}
