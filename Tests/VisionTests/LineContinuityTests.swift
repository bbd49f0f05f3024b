import Foundation
import Testing
import Imaging
@testable import Vision

/// `gridMinLineContinuity`: in a small view, a line family whose lines do not run through the
/// view is a few cells' chance periodicity, not a ruling.
@Suite("A small view's ruling must show lines that run through it")
struct LineContinuityTests {
    /// Five cells in a 200 x 160 view with no ruling: their projections look periodic enough
    /// for a ruling, and the halves' agreement cannot refuse it (one half nearly flat).
    static let cellsOnly: Image = {
        var canvas = Canvas(width: 200, height: 160)
        for (x, y) in [(40.0, 40.0), (120, 50), (70, 115), (160, 120), (150, 30)] { canvas.liveCell(x: x, y: y, r: 8) }
        return canvas.image(noise: 0.02)
    }()

    static func config(continuity: Double) -> PipelineConfig {
        var c = PipelineTests.config
        c.gridMinLineContinuity = continuity
        return c
    }

    @Test func aFewCellsMakeNoRuling() throws {
        let without = try Pipeline(config: Self.config(continuity: 0)).run(Self.cellsOnly)
        #expect(without.grid != nil, "the view this test needs: a chance ruling without the rule")
        let with = try Pipeline(config: Self.config(continuity: 0.6)).run(Self.cellsOnly)
        #expect(with.grid == nil && with.flags.contains("no-grid"), "\(with.flags)")
        #expect(with.count.concentrationPerML == nil)
        #expect(with.detections.count == 5)
    }

    @Test func aSmallViewsRulingIsStillFound() throws {
        var canvas = Canvas(width: 320, height: 240)
        canvas.grid(spacing: 80, angle: 0.04, lineWidth: 2, darkness: 0.55)
        for (x, y) in [(45.0, 50.0), (130, 60), (200, 150)] { canvas.liveCell(x: x, y: y, r: 8) }
        let result = try Pipeline(config: Self.config(continuity: 0.6)).run(canvas.image(noise: 0.03))
        #expect(result.grid != nil, "\(result.flags)")
    }

    /// The measure itself: a drawn line runs its whole length; cells placed on a comb of the
    /// same period stand out in a segment or two of each line; noise alone in none.
    @Test func linesRunThroughTheViewAndCellsDoNot() throws {
        func contrast(_ image: Image) -> Plane {
            let flat = linearLuminance(image, factor: 1, glareLevel: 255, chromaLimit: 3).plane
            let mean = flat.data.reduce(0, +) / Float(flat.count)
            return flat.map { abs($0 / mean - 1) }
        }
        var ruled = Canvas(width: 240, height: 200)
        ruled.grid(spacing: 60, angle: 0, lineWidth: 2, darkness: 0.6)
        // (Its lines lie on multiples of the spacing.)
        let lines = try #require(lineContinuity(contrast(ruled.image(noise: 0.03)), normalAngle: 0, period: 60, phase: 60))
        #expect(lines >= 0.9, "\(lines)")
        var spotted = Canvas(width: 240, height: 200)
        for x in stride(from: 30.0, to: 240, by: 60) { spotted.liveCell(x: x, y: 40 + x / 2, r: 7) }
        let cells = try #require(lineContinuity(contrast(spotted.image(noise: 0.03)), normalAngle: 0, period: 60, phase: 30))
        #expect(cells <= 0.35, "\(cells)")
        let blank = try #require(lineContinuity(contrast(Canvas(width: 240, height: 200).image(noise: 0.03)),
                                                normalAngle: 0, period: 60, phase: 30))
        #expect(blank <= 0.1, "\(blank)")
        // Fewer than four segments of a line in view: nothing to say.
        #expect(lineContinuity(Plane(width: 20, height: 20), normalAngle: 0, period: 10, phase: 5) == nil)
    }

    @Test func isAConfigurationKey() throws {
        try expectConfigurationKey("gridMinLineContinuity", off: "0", reads: 0.0, through: \.gridMinLineContinuity,
                                   defaultText: "0.6", invalid: "1.5")
    }
}

/// The real crops of ldc-maxkudi (../shared/datasets/real-dev, not in the repository): of the
/// twelve that registered a ruling before the rule, eight show no line at all.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: ldcRoot),
                "real-dev folder ../shared/datasets/real-dev/ldc-maxkudi is absent: skipped"))
struct LineContinuityRealCropTests {
    @Test(arguments: ["f_723", "f_760", "image1137", "image1538", "image_1091", "image_1097", "image_675", "ncell_7"])
    func cropsWithoutLinesHaveNoRuling(name: String) throws {
        let result = try Pipeline(config: ldcConfig()).run(Image.decode(file: ldcRoot + "/\(name).png"))
        #expect(result.grid == nil, "\(name): \(result.flags)")
    }

    @Test(arguments: ["image1550", "image_352", "image_577", "image_720"])
    func cropsWithLinesKeepTheirRuling(name: String) throws {
        let result = try Pipeline(config: ldcConfig()).run(Image.decode(file: ldcRoot + "/\(name).png"))
        #expect(result.grid != nil, "\(name): \(result.flags)")
    }

    private func ldcConfig() throws -> PipelineConfig {
        try PipelineConfig.parse(Array(try Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/scripts/configs/ldc-maxkudi.json"))))
    }
}

private let ldcRoot = URL(fileURLWithPath: repositoryRoot).deletingLastPathComponent()
    .appendingPathComponent("shared/datasets/real-dev/ldc-maxkudi").path
