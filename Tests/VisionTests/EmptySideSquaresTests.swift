import Foundation
import Hemocytometer
import Imaging
import Testing
@testable import Vision

/// Chambers whose side squares are left empty (`gridEmptySideSquares`, `RulingDrawing`):
/// the registration also compares each map with that ruling.
@Suite("Rulings with empty side squares")
struct EmptySideSquaresTests {
    /// A whole view of `scripts/gen6-synth.py`, whose side squares are empty
    /// (`Tests/Images/README.md`), and its generator's µm per pixel.
    static let view = (path: "Tests/Images/empty-side-squares-view.jpg", umPerPixel: 1.27087)

    static func run(emptySideSquares: Bool) throws -> PipelineResult {
        var config = PipelineConfig()
        config.gridEmptySideSquares = emptySideSquares
        return try Pipeline(config: config).run(try Image.decode(file: repositoryRoot + "/" + Self.view.path))
    }

    @Test func aViewWithAnEmptySideSquareIsCalibrated() throws {
        let result = try Self.run(emptySideSquares: true)
        let grid = try #require(result.grid)
        #expect(abs(grid.umPerPixel / Self.view.umPerPixel - 1) < 0.02, "\(grid.umPerPixel) µm per pixel")
        #expect(!result.flags.contains("grid-scale-assumed"))
        // What the fixture is for: against the standard drawing alone, the corner square's
        // 250 µm squares read as the central square's 50 µm ones, a fifth of the scale.
        let standard = try #require(try Self.run(emptySideSquares: false).grid)
        #expect(abs(standard.umPerPixel / Self.view.umPerPixel - 0.2) < 0.01, "\(standard.umPerPixel) µm per pixel")
    }

    /// `PerspectiveTests.view`'s ruling with the side squares' inner lines left out: a 960 x 720
    /// view at 2.4 µm per pixel centred on chamber (1000, 1000), which shows the corner square,
    /// the two side squares and the central square that meet there.
    static func emptySidedView() -> (image: Image, map: [Double]) {
        let u = 2.4
        let map = [u, 0, 1000 - u * 480, 0, u, 1000 - u * 360, 0, 0, 1]
        let large = NeubauerGeometry.largeSquareUm
        func central(_ t: Double) -> Bool { t > large && t < 2 * large }
        // A large square's border runs everywhere; any other line only in the large squares
        // that share its column (central or not) along the other axis.
        let image = PerspectiveTests.view(map: map, umPerPixel: u, seed: 7) { middle, along in
            (middle / large).rounded() * large == middle || central(middle) == central(along)
        }
        return (image, map)
    }

    @Test func theEmptySidedDrawingExplainsSuchAViewBetter() throws {
        let (image, truth) = Self.emptySidedView()
        let (view, scale) = try RulingInViewTests.view(image)
        let standard = try #require(view.agreement(imageToChamber: truth, umPerPixel: 2.4, workingScale: scale))
        let either = try #require(view.agreement(imageToChamber: truth, umPerPixel: 2.4, workingScale: scale,
                                                 emptySideSquares: true))
        let unhandicapped = try #require(view.agreement(imageToChamber: truth, umPerPixel: 2.4, workingScale: scale,
                                                        emptySideSquares: true, emptySidesMargin: 0))
        #expect(either > standard, "\(either) against \(standard)")
        // The better drawing counts, less the margin.
        #expect(abs(unhandicapped - either - 0.04) < 1e-9)
        #expect(unhandicapped - standard > 0.1, "\(unhandicapped) against \(standard)")
    }

    /// On a standard ruling the standard drawing fits better, so the score is the standard one.
    @Test func aStandardRulingScoresAsBefore() throws {
        let truth = RulingInViewTests.map()
        let (view, scale) = try RulingInViewTests.view(PerspectiveTests.view(map: truth))
        let standard = try #require(view.agreement(imageToChamber: truth, umPerPixel: 1.1, workingScale: scale))
        let either = try #require(view.agreement(imageToChamber: truth, umPerPixel: 1.1, workingScale: scale,
                                                 emptySideSquares: true))
        #expect(either == standard)
    }

    @Test func theConfigKeyIsReadAndOnByDefault() throws {
        #expect(PipelineConfig().gridEmptySideSquares)
        let off = try PipelineConfig.parse(Array(#"{"gridEmptySideSquares": false}"#.utf8))
        #expect(!off.gridEmptySideSquares)
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"gridEmptySideSquares": 1}"#.utf8)) }
    }
}
