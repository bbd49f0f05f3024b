import Testing
import JSON
import Imaging
import Hemocytometer
@testable import Vision

/// `umPerPixel`: the microscope's calibration for a view in which no ruling is registered (at
/// high magnification too few lines show to register one).
@Suite("Configured calibration")
struct ConfiguredCalibrationTests {
    /// Six live cells of radius 8 px on a chamber with no ruling in view.
    static let cells: [(x: Double, y: Double)] = [(47, 61), (163, 42), (301, 97), (88, 230), (252, 251), (371, 188)]
    static let image: Image = {
        var canvas = Canvas(width: 420, height: 300)
        for c in cells { canvas.liveCell(x: c.x, y: c.y, r: 8) }
        return canvas.image(noise: 0.02)
    }()

    static func config(umPerPixel: Double) -> PipelineConfig {
        var c = PipelineConfig()
        c.minRadiusPx = 6
        c.maxRadiusPx = 10
        c.umPerPixel = umPerPixel
        return c
    }

    @Test func withoutItAViewWithNoRulingStaysUncalibrated() throws {
        let result = try Pipeline(config: Self.config(umPerPixel: 0)).run(Self.image)
        #expect(result.flags.contains("no-grid"))
        #expect(!result.flags.contains("calibration-from-config"))
        #expect(result.umPerPixel == nil && result.grid == nil)
        #expect(result.count.concentrationPerML == nil)
        #expect(result.detections.count == Self.cells.count)
    }

    @Test func withItTheConcentrationComesFromTheField() throws {
        var config = Self.config(umPerPixel: 2)
        config.dilution = 2
        let result = try Pipeline(config: config).run(Self.image)
        #expect(result.flags.contains("no-grid"))
        #expect(result.flags.contains("calibration-from-config"))
        #expect(result.flags.contains("concentration-from-area"))
        #expect(result.umPerPixel == 2 && result.grid == nil)
        #expect(result.detections.count == Self.cells.count)
        // 420 x 300 px at 2 µm/px is 0.504 mm² of chamber, 0.1 mm deep: six cells there are
        // 6 / 0.504 = 11.9 per mm², x 10^4 x dilution 2 per mL.
        let perML = try #require(result.count.concentrationPerML)
        #expect(abs(perML - 6 / 0.504 * 1e4 * 2) < 1e-6 * perML)
        let json = result.jsonValue.serialized(pretty: false)
        #expect(json.contains("\"umPerPixel\":2"))
    }

    @Test func aRegisteredRulingsCalibrationWins() throws {
        let image = try Image.decode(file: repositoryRoot + "/Goldens/standard-s101-000.jpg")
        var config = PipelineConfig()
        let ruled = try Pipeline(config: config).run(image)
        let grid = try #require(ruled.grid)
        config.umPerPixel = 3 * grid.umPerPixel
        let result = try Pipeline(config: config).run(image)
        #expect(result.umPerPixel == grid.umPerPixel && result.grid == grid)
        #expect(!result.flags.contains("calibration-from-config"))
        #expect(result.count.concentrationPerML == ruled.count.concentrationPerML)
        #expect(result.detections == ruled.detections)
    }

    /// With `sizeFrom` `calibration` the cell size range goes through the configured
    /// calibration: diameters of 10-20 µm are radii of 5-10 px at 1 µm/px, where the cells of
    /// radius 8 px are found, and of 20-40 px at 0.25 µm/px, where they are too small.
    @Test func theSizeRangeGoesThroughIt() throws {
        func detections(umPerPixel: Double) throws -> Int {
            var config = Self.config(umPerPixel: umPerPixel)
            config.sizeFrom = .calibration
            config.minDiameterUm = 10
            config.maxDiameterUm = 20
            return try Pipeline(config: config).run(Self.image).detections.count
        }
        #expect(try detections(umPerPixel: 1) == Self.cells.count)
        #expect(try detections(umPerPixel: 0.25) == 0)
    }

    /// The working scale is chosen for the calibrated size (it is known before any ruling is
    /// looked for), and a calibration that makes cells larger than any image, or smaller than a
    /// pixel, is held to the radii the pixel keys accept: a valid result, not an allocation of
    /// a block median hundreds of gigabytes large (as 1e-6 µm/px asks for without the limit).
    @Test func theCalibratedSizeSetsTheWorkingScaleWithinLimits() throws {
        var config = Self.config(umPerPixel: 0.25)
        config.sizeFrom = .calibration
        config.minDiameterUm = 20
        config.maxDiameterUm = 40
        #expect(config.radiusRangeBeforeRulingPx == (min: 40, max: 80))
        #expect(workingScale(minRadiusPx: config.radiusRangeBeforeRulingPx.min,
                             minWorkingRadius: config.minWorkingRadiusPx, explicit: 0) == 16)
        config.sizeFrom = .pixels
        #expect(config.radiusRangeBeforeRulingPx == (min: 6, max: 10))
        config.sizeFrom = .calibration
        for (umPerPixel, expected) in [(1e-6, (min: 2000.0, max: 2000.0)), (1e4, (min: 0.5, max: 0.5))] {
            config.umPerPixel = umPerPixel
            #expect(config.radiusRangeBeforeRulingPx == expected)
            let result = try Pipeline(config: config).run(Self.image)
            #expect(result.umPerPixel == umPerPixel && result.timings.count == 7)
        }
    }

    @Test func isAConfigurationKey() throws {
        try expectConfigurationKey("umPerPixel", off: "0.5", reads: 0.5, through: \.umPerPixel, defaultText: "0.0",
                                   invalid: "-1")
    }
}
