import Foundation
import Imaging
import Testing
@testable import Vision

/// The stain map and dead cells on ruling lines.
@Suite("Stain")
struct StainTests {
    /// A yellowish background with a grey line (rows 20 ... 25) and a blue disc at (60, 40).
    static func scene(width: Int = 120, height: Int = 80) -> Image {
        var canvas = Canvas(width: width, height: height, background: (0.8, 0.76, 0.6))
        canvas.paint(factor: (0.4, 0.4, 0.4), bounds: (0, 20, width - 1, 25)) { _, y in y >= 19.5 && y <= 25.5 }
        canvas.deadCell(x: 60, y: 40, r: 8)
        return canvas.image(noise: 0.01)
    }

    @Test func greyLinesAndTheLampsCastVanishBlueCellsDoNot() {
        let stain = stainPlane(Self.scene(), scale: 2)
        #expect(stain.width == 60 && stain.height == 40)
        #expect(abs(stain[10, 30]) < 0.05, "background \(stain[10, 30])")
        #expect(abs(stain[10, 11]) < 0.05, "line \(stain[10, 11])")
        #expect(stain[30, 20] > 0.4, "dead cell \(stain[30, 20])")
    }

    @Test(arguments: [(1, 1, 1), (5, 3, 2), (7, 9, 4), (3, 2, 8)])
    func theMapHasTheWorkingPlanesSize(width: Int, height: Int, scale: Int) {
        let image = Image(width: width, height: height, fill: (r: 200, g: 180, b: 90))
        let stain = stainPlane(image, scale: scale)
        #expect(stain.width == (width + scale - 1) / scale && stain.height == (height + scale - 1) / scale)
        #expect(stain.data.allSatisfy { abs($0) < 1e-5 }, "\(stain.data)")
    }

    @Test func blackAndEmptyImagesGiveAFiniteMap() {
        #expect(stainPlane(Image(width: 4, height: 4, fill: (r: 0, g: 0, b: 0)), scale: 2).data.allSatisfy { $0 == 0 })
        #expect(stainPlane(Image(width: 0, height: 0, fill: (r: 0, g: 0, b: 0)), scale: 2).count == 0)
    }

    @Test func theCentroidFindsTheDiscFromAnOffsetStart() {
        let stain = gaussianBlur(stainPlane(Self.scene(), scale: 1), sigma: 1)
        let c = stainCentroid(stain, x: 64, y: 37, radius: 10, floor: 0.1)
        #expect(hypot(c.x - 60, c.y - 40) < 0.5, "\(c)")
        #expect(stainCentroid(stain, x: 10, y: 10, radius: 5, floor: 0.1) == (x: 10, y: 10))
    }

    /// A dead cell half on a heavy line (dark 8-pixel lines every 80 pixels), its centre 2 or
    /// 4 pixels off the line's middle: found with the stain map; 2 pixels off, lost without it
    /// (4 pixels off, enough of its rim lies beside the line for the luminance test).
    @Test(arguments: [2.0, 4])
    func aDeadCellOnAHeavyLineIsCounted(offset: Double) throws {
        var canvas = Canvas(width: 320, height: 240)
        canvas.grid(spacing: 80, angle: 0.03, lineWidth: 8, darkness: 0.3)
        let line = (x: 120.0, y: 80 * cos(0.03) + 120 * sin(0.03) + offset)
        canvas.deadCell(x: line.x, y: line.y, r: 8)
        var config = PipelineConfig()
        config.minRadiusPx = 5
        config.maxRadiusPx = 12
        let found = try Pipeline(config: config).run(canvas.image(noise: 0.01))
        #expect(matchCount(found.detections, [(x: line.x, y: line.y)], tolerance: 4) == 1, "\(found.detections)")
        #expect(found.detections.count == 1, "\(found.detections)")
        #expect(found.detections.first?.cellClass == .dead)
        guard offset <= 2 else { return }
        config.stainLevel = 0
        let without = try Pipeline(config: config).run(canvas.image(noise: 0.01))
        #expect(matchCount(without.detections, [(x: line.x, y: line.y)], tolerance: 4) == 0, "\(without.detections)")
    }
}
