import Foundation
import Imaging
import Testing
@testable import Vision

/// `gridResidueRetry`: glare and the shading round it leave broad residue in the flattened
/// view that buries a ruling's periodicity; the search on the contrast with that residue
/// taken out finds it, and keeps it only where the Neubauer pattern pins its scale.
@Suite("A ruling under glare is found on the contrast without its smooth residue")
struct GridResidueRetryTests {
    /// A monochrome blank control of the fifth generator (`glare-over-ruling.png`): a glare
    /// patch over the left third, the central square's ruling elsewhere, 0.503 µm per pixel.
    @Test func theRulingUnderGlareIsRegistered() throws {
        let image = try Image.decode(file: repositoryRoot + "/Tests/Images/glare-over-ruling.png")
        var off = PipelineConfig()
        off.gridResidueRetry = false
        let without = try Pipeline(config: off).run(image)
        #expect(without.grid == nil && without.flags.contains("no-grid"), "the case no longer arises")
        let with = try Pipeline(config: PipelineConfig()).run(image)
        let grid = try #require(with.grid)
        #expect(abs(grid.umPerPixel / 0.503 - 1) < 0.02, "\(grid.umPerPixel) µm per pixel")
        #expect(!with.flags.contains("grid-scale-assumed"))
        // Its crossings and the squares between its strokes are no cells any more.
        #expect(with.detections.count < without.detections.count - 20,
                "\(with.detections.count) detections vs \(without.detections.count)")
    }

    /// Faint single lines every 90 working pixels, no triple lines, under a broad bright
    /// residue: only the residue-free search finds them, and the registration can only assume
    /// their scale (it would take 5.55 µm per pixel), so the view keeps no ruling. (At 45 or
    /// 60 pixels it takes them for large squares, scale known, as on the view itself.)
    @Test func aRulingWhoseScaleIsOnlyAssumedIsNotTaken() throws {
        let spacing = 90
        let w = 960, h = 540
        var flat = Plane(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let dx = Double(x - 250), dy = Double(y - 270)
                var v = 1 + 0.6 * exp(-(dx * dx + dy * dy) / (2 * 90 * 90))
                if x % spacing < 2 || y % spacing < 2 { v -= 0.04 }
                flat[x, y] = Float(v)
            }
        }
        let config = PipelineConfig()
        let s = 2.0
        var tried: [[Double]] = []
        let plain = detectGridLines(flat: flat, minSpacing: config.gridMinSpacingPx / s,
                                    maxSpacing: config.gridMaxSpacingPx / s, minPeriodicity: config.gridMinPeriodicity,
                                    minHalfAgreement: config.gridMinHalfAgreement,
                                    minLineContinuity: config.gridMinLineContinuity, starts: nil, tried: &tried)
        let residueFree = residueFreeGridLines(flat: flat, minSpacing: config.gridMinSpacingPx / s,
                                               maxSpacing: config.gridMaxSpacingPx / s,
                                               minPeriodicity: config.gridMinPeriodicity,
                                               minHalfAgreement: config.gridMinHalfAgreement,
                                               minLineContinuity: config.gridMinLineContinuity, startPairs: tried)
        #expect(plain == nil, "the residue no longer hides the lines")
        #expect(residueFree != nil, "the residue-free search misses the lines")
        var frame = Frame(image: Image(width: 2 * w, height: 2 * h, pixels: [UInt8](repeating: 180, count: 4 * w * h * 3)),
                          config: config)
        frame.scale = 2
        frame.flat = flat
        try GridStage().run(&frame)
        #expect(frame.grid == nil && frame.flags.contains("no-grid"),
                "\(frame.flags), \(String(describing: frame.grid?.result.umPerPixel)) µm per pixel")
    }

    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("gridResidueRetry", off: "false", reads: false, through: \.gridResidueRetry,
                                   defaultText: "true", invalid: "1")
    }
}
