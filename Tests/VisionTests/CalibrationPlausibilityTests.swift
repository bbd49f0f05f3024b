import Foundation
import Imaging
import Testing
@testable import Vision

@Suite("A ruling's calibration the cells contradict gives no concentration")
struct CalibrationPlausibilityTests {
    /// A Golden with its ruling registered: its cells (radii 5-12 px at about 0.9 µm per
    /// pixel) measure 9-22 µm. Told that cells measure 60-90 µm, the pipeline finds them (their
    /// size in pixels is what it detects by) but takes the calibration for the error: flagged,
    /// and neither a mean per square nor a concentration; the totals and the calibration
    /// itself are still reported. With the check off, the same cells give the concentration.
    @Test func cellsOfImpossibleSizeWithholdTheConcentration() throws {
        let image = try Image.decode(file: repositoryRoot + "/Goldens/standard-s101-000.jpg")
        let plain = try Pipeline(config: PipelineConfig()).run(image)
        #expect(plain.grid != nil && plain.count.concentrationPerML != nil)
        #expect(!plain.flags.contains("calibration-implausible"))

        var config = PipelineConfig()
        config.minDiameterUm = 60
        config.maxDiameterUm = 90
        let contradicted = try Pipeline(config: config).run(image)
        #expect(contradicted.flags.contains("calibration-implausible"))
        #expect(contradicted.count.concentrationPerML == nil && contradicted.count.meanPerSquare == nil)
        #expect(contradicted.detections == plain.detections && contradicted.count.total == plain.count.total)
        #expect(contradicted.umPerPixel == plain.umPerPixel)
        #expect(contradicted.jsonValue.serialized(pretty: false).contains("calibration-implausible"))

        config.calibrationCheckFactor = 0
        let unchecked = try Pipeline(config: config).run(image)
        #expect(!unchecked.flags.contains("calibration-implausible"))
        #expect(unchecked.count.concentrationPerML == plain.count.concentrationPerML)
    }

    /// Without a ruling there is nothing to contradict: a configured calibration is the
    /// user's, and stands whatever size the cells take under it.
    @Test func aConfiguredCalibrationIsNotJudged() throws {
        let image = try Image.decode(file: repositoryRoot + "/Goldens/standard-s101-000.jpg")
        var config = PipelineConfig()
        config.gridEnabled = false
        config.umPerPixel = 20
        let result = try Pipeline(config: config).run(image)
        #expect(result.grid == nil && result.count.concentrationPerML != nil)
        #expect(!result.flags.contains("calibration-implausible"))
    }

    /// The settings are read from a configuration file and printed with the defaults; a
    /// factor below 1 (which would reject cells inside the range) is an error naming the key.
    @Test func theSettingsAreConfigurationKeys() throws {
        try expectConfigurationKey("calibrationCheckFactor", off: "0", reads: 0.0, through: \.calibrationCheckFactor,
                                   defaultText: "1.6", invalid: "0.5")
        try expectConfigurationKey("calibrationCheckMinCells", off: "3", reads: 3, through: \.calibrationCheckMinCells,
                                   defaultText: "10", invalid: "0")
        #expect {
            try PipelineConfig.parse(Array("{\"calibrationCheckFactor\": 0.5}".utf8), file: "c.json")
        } throws: { error in
            "\(error)".contains("c.json") && "\(error)".contains("calibrationCheckFactor")
        }
    }
}
