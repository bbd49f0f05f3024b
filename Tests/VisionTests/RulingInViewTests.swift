import Foundation
import Hemocytometer
import Imaging
import Synth
import Testing
@testable import Vision

/// The registration decided on the whole view (`gridRegisterInView`, `RulingView`,
/// `registerRulingInView`).
@Suite("Registration on the whole view")
struct RulingInViewTests {
    /// Whole 1920 x 1080 views that straddle the central large square and its neighbours
    /// (`Tests/Images/README.md`), with the generators' µm per pixel.
    static let views: [(path: String, umPerPixel: Double)] = [
        ("Tests/Images/central-square-corner-view.jpg", 0.71542),
        ("Tests/Images/central-square-edge-view.jpg", 0.8018),
    ]

    static func run(_ path: String, inView: Bool) throws -> PipelineResult {
        var config = PipelineConfig()
        config.gridRegisterInView = inView
        return try Pipeline(config: config).run(try Image.decode(file: repositoryRoot + "/" + path))
    }

    @Test(arguments: views)
    func viewsAcrossTheCentralSquareAreCalibrated(_ view: (path: String, umPerPixel: Double)) throws {
        let result = try Self.run(view.path, inView: true)
        let grid = try #require(result.grid)
        #expect(abs(grid.umPerPixel / view.umPerPixel - 1) < 0.02, "\(grid.umPerPixel) µm per pixel")
        #expect(!result.flags.contains("grid-scale-assumed"))
        // What the fixture is for: each family's projection alone takes the central square's
        // 200 µm group squares for 250 µm squares there.
        let alone = try #require(try Self.run(view.path, inView: false).grid)
        #expect(abs(alone.umPerPixel / view.umPerPixel - 1.25) < 0.03, "\(alone.umPerPixel) µm per pixel")
    }

    /// Every 2 x 2 block of pixels averaged: the view at half the magnification.
    static func halved(_ image: Image) -> Image {
        let w = image.width / 2, h = image.height / 2
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<3 {
                    var sum = 0
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        sum += Int(image.pixels[((2 * y + dy) * image.width + 2 * x + dx) * 3 + c])
                    }
                    pixels[(y * w + x) * 3 + c] = UInt8((sum + 2) / 4)
                }
            }
        }
        return Image(width: w, height: h, pixels: pixels)
    }

    /// At half the magnification a lattice of point samples 4 working pixels apart fell in step
    /// with the 50 µm lines of this view (12.8 µm between samples) and took its groups for
    /// 250 µm squares; means over whole blocks do not alias.
    @Test func aViewAtHalfTheMagnificationIsCalibratedToo() throws {
        let view = Self.views[1]
        let image = Self.halved(try Image.decode(file: repositoryRoot + "/" + view.path))
        let grid = try #require(try Pipeline(config: PipelineConfig()).run(image).grid)
        #expect(abs(grid.umPerPixel / (2 * view.umPerPixel) - 1) < 0.02, "\(grid.umPerPixel) µm per pixel")
    }

    /// A 960 x 720 view drawn by `PerspectiveTests.view`: 1.1 µm per pixel, turned 3 degrees,
    /// centred on chamber (1950, 1500), across the central square's right border.
    static func map(umPerPixel: Double = 1.1) -> [Double] {
        let (c, s) = (cos(3 * Double.pi / 180), sin(3 * Double.pi / 180))
        let u = umPerPixel
        return [u * c, -u * s, 1950 - u * (c * 480 - s * 360), u * s, u * c, 1500 - u * (s * 480 + c * 360), 0, 0, 1]
    }

    /// The view's flattened working plane, as the grid stage sees it.
    static func flat(_ image: Image) throws -> Plane {
        var frame = Frame(image: image, config: PipelineConfig())
        try NormalizeStage().run(&frame)
        try IlluminationStage().run(&frame)
        return frame.flat
    }

    /// The grid stage's fine blocks of the view, and its working scale.
    static func view(_ image: Image) throws -> (view: RulingView, scale: Int) {
        var frame = Frame(image: image, config: PipelineConfig())
        try NormalizeStage().run(&frame)
        try IlluminationStage().run(&frame)
        return (RulingView(frame.flat, scale: frame.scale, step: 4), frame.scale)
    }

    @Test func theTrueMapExplainsTheViewBetterThanTheQuarterOffOne() throws {
        let truth = Self.map()
        let (view, scale) = try Self.view(PerspectiveTests.view(map: truth))
        let right = try #require(view.agreement(imageToChamber: truth, umPerPixel: 1.1, workingScale: scale))
        // The central square's 200 µm groups read as 250 µm squares, anchored at the same point.
        var wrong = truth
        for i in [0, 1, 3, 4] { wrong[i] *= 1.25 }
        wrong[2] = truth[2] * 1.25 - 0.25 * 1950
        wrong[5] = truth[5] * 1.25 - 0.25 * 1500
        let quarterOff = try #require(view.agreement(imageToChamber: wrong, umPerPixel: 1.375, workingScale: scale))
        #expect(right > 0.5)
        #expect(right - quarterOff > 0.2, "\(right) against \(quarterOff)")
        // A map half a small square off along x misses every line of that family.
        var shifted = truth
        shifted[2] += 25
        let off = try #require(view.agreement(imageToChamber: shifted, umPerPixel: 1.1, workingScale: scale))
        #expect(right - off > 0.2)
        // The coarse look (blocks of 16 working pixels) agrees about which is better.
        let plane = try Self.flat(PerspectiveTests.view(map: truth))
        let blocks = RulingView(plane, scale: scale, step: 16)
        let coarse = try #require(blocks.agreement(imageToChamber: truth, umPerPixel: 1.1, workingScale: scale))
        let coarseWrong = try #require(blocks.agreement(imageToChamber: wrong, umPerPixel: 1.375, workingScale: scale))
        #expect(coarse > coarseWrong)
    }

    /// The fine blocks (summed four pixels a vector) merged 4 x 4 are the blocks of 16 summed
    /// pixel by pixel, to Float rounding.
    @Test func coarseBlocksAreTheFineOnesMerged() throws {
        let plane = try Self.flat(PerspectiveTests.view(map: Self.map()))
        let merged = RulingView(coarsening: RulingView(plane, scale: 2, step: 4), by: 4)
        let direct = RulingView(plane, scale: 2, step: 16)
        #expect(merged.columns == direct.columns && merged.rows == direct.rows)
        #expect(merged.origin == direct.origin && merged.spacing == direct.spacing)
        #expect(zip(merged.samples, direct.samples).allSatisfy { abs($0 - $1) <= 1e-5 * max(1, abs($1)) })
        #expect(direct.samples.contains { $0 > 0.01 }, "the view holds lines")
    }

    @Test func mapsItCannotDrawAreNotScored() throws {
        let (view, scale) = try Self.view(PerspectiveTests.view(map: Self.map()))
        var perspective = Self.map()
        perspective[6] = 1e-5
        #expect(view.agreement(imageToChamber: perspective, umPerPixel: 1.1, workingScale: scale) == nil)
        var infinite = Self.map()
        infinite[2] = .infinity
        #expect(view.agreement(imageToChamber: infinite, umPerPixel: 1.1, workingScale: scale) == nil)
        var absurd = Self.map()
        absurd[0] = 1e300
        #expect(view.agreement(imageToChamber: absurd, umPerPixel: 1.1, workingScale: scale) == nil)
        #expect(view.agreement(imageToChamber: Self.map(), umPerPixel: 0, workingScale: scale) == nil)
        // An absurd scale draws strokes as wide as the chamber: every sample on a line, nothing
        // to correlate (and no trap in drawing them).
        #expect(view.agreement(imageToChamber: Self.map(), umPerPixel: 1e300, workingScale: scale) == nil)
        #expect(view.agreement(imageToChamber: Array(Self.map().prefix(6)), umPerPixel: 1.1, workingScale: scale) == nil)
        // Nothing but background: no contrast to correlate with.
        let blank = RulingView(Plane(width: 200, height: 100, repeating: 1), scale: 1, step: 4)
        #expect(blank.agreement(imageToChamber: Self.map(), umPerPixel: 1.1, workingScale: 1) == nil)
        // A plane too small for the lattice.
        #expect(RulingView(Plane(width: 1, height: 1, repeating: 1), scale: 1, step: 4)
            .agreement(imageToChamber: Self.map(), umPerPixel: 1.1, workingScale: 1) == nil)
    }

    /// The two families of a view of the central group squares (`RulingRegistrationTests`),
    /// decided by an `agreement` that scores each spacing as given.
    static func decide(_ scores: [Double: Double]) throws -> [RulingFamilyFit] {
        let x = RulingRegistrationTests.family(startUm: 1130, umPerSample: 1.5).family
        let y = RulingRegistrationTests.family(startUm: 1210, umPerSample: 1.5, seed: 3).family
        return try #require(registerRulingInView([x, y], agreement: { pair, _ in scores[pair[0].spacingUm] }))
    }

    @Test func theBestPairIsTakenAndTheFlagsSayHowSure() throws {
        let clear = try Self.decide([200: 0.6, 250: 0.4, 50: 0.1, 1000: 0.1])
        #expect(clear.allSatisfy { $0.spacingUm == 200 && $0.scaleKnown })
        // Within the margin: still the better pair, but the scale counts as not known.
        let close = try Self.decide([200: 0.6, 250: 0.57, 50: 0.1, 1000: 0.1])
        #expect(close.allSatisfy { $0.spacingUm == 200 && !$0.scaleKnown && !$0.originKnown })
        // As good as the assumed spacing (within a tenth of the margin): the assumed one.
        let tied = try Self.decide([200: 0.6, 250: 0.598, 50: 0.1, 1000: 0.1])
        #expect(tied.allSatisfy { $0.spacingUm == 250 && !$0.scaleKnown })
        // No pair scored: nothing decided here (the grid stage falls back to the projections).
        let x = RulingRegistrationTests.family(startUm: 1130, umPerSample: 1.5).family
        #expect(registerRulingInView([x, x], agreement: { _, _ in nil }) == nil)
    }

    /// A period search that locks onto every other line: one family's period twice the other's
    /// scale allows no pair of one scale, until that period is also read halved.
    @Test func aFamilyLockedOntoTwiceItsSpacingIsReadHalved() throws {
        let x = RulingRegistrationTests.family(startUm: 1130, umPerSample: 1.5).family
        var y = RulingRegistrationTests.family(startUm: 1210, umPerSample: 1.5, seed: 3).family
        y.period *= 2
        // Scores the pair by how near both scales are to the truth, 1.5 µm per sample.
        let fits = try #require(registerRulingInView([x, y], agreement: { pair, _ in
            1 - pair.map { abs(log($0.umPerPixel / 1.5)) }.reduce(0, +)
        }))
        #expect(fits.allSatisfy { abs($0.umPerPixel / 1.5 - 1) < 0.03 }, "\(fits.map(\.umPerPixel))")
    }

    /// A blurred `cellqa synth` view (seed 9003, the third image) of a corner square's 250 µm
    /// squares and the central square's edge: along one axis its lines repeat in every row of
    /// large squares, and the three best positions of that family's projection were all wrong,
    /// 1.8 mm off. Once the scale is decided, `offsetsPerWideSpacing` positions give the whole
    /// view the right one to compare.
    @Test func aViewWhoseProjectionRepeatsIsPlacedWhereItIs() throws {
        try expectPlacedWhereItIs(.blurred, seed: 9003, index: 2)
    }

    /// A sparse `cellqa synth` view (seed 9001, the second image) whose fine blocks score a
    /// copy of the placement a large square away above the right one (1028 µm off when the
    /// fine look alone decided); the coarse look prefers the right one, and the placement is
    /// ranked by both.
    @Test func aViewTheFineLookAloneMisplacesIsPlacedByBothLooks() throws {
        try expectPlacedWhereItIs(.sparse, seed: 9001, index: 1)
    }

    /// The pipeline's grid places the view within 25 µm of the label's placement, at the
    /// label's scale within 2 %.
    private func expectPlacedWhereItIs(_ preset: SynthPreset, seed: UInt64, index: Int,
                                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fixture = try SynthGenerator(preset: preset, seed: seed).make(index: index)
        let result = try Pipeline(config: PipelineConfig()).run(fixture.image)
        let grid = try #require(result.grid, sourceLocation: sourceLocation)
        let corners = try #require(fixture.label.grid?.corners, sourceLocation: sourceLocation).map { Point(x: $0.x, y: $0.y) }
        let truth = try #require(Homography(from: corners, to: NeubauerGeometry.ruledAreaCorners), sourceLocation: sourceLocation)
        let map = try #require(Homography(matrix: grid.imageToChamber), sourceLocation: sourceLocation)
        let error = try #require(registrationErrorUm(map, against: truth, width: result.width, height: result.height),
                                 sourceLocation: sourceLocation)
        #expect(error < 25, "registered \(error) µm off", sourceLocation: sourceLocation)
        let labelled = try #require(fixture.label.umPerPixel, sourceLocation: sourceLocation)
        #expect(abs(grid.umPerPixel / labelled - 1) < 0.02, "\(grid.umPerPixel) µm per pixel", sourceLocation: sourceLocation)
    }

    @Test func theConfigKeyIsReadAndOnByDefault() throws {
        #expect(PipelineConfig().gridRegisterInView)
        let off = try PipelineConfig.parse(Array(#"{"gridRegisterInView": false}"#.utf8))
        #expect(!off.gridRegisterInView)
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"gridRegisterInView": "yes"}"#.utf8)) }
    }
}
