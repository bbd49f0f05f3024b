import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Candidates need a dark rim")
struct DarkRimRuleTests {
    /// Soft bright spots (glare, out-of-focus bright specks: a core of r 6-9 px whose light
    /// fades out to twice that, no darker ring) beside live cells of the same size (dark rim,
    /// bright centre) on a blank field.
    static func specksAndCells() -> (Image, specks: [(x: Double, y: Double)], cells: [(x: Double, y: Double)]) {
        var canvas = Canvas(width: 360, height: 240)
        var specks: [(x: Double, y: Double)] = [], cells: [(x: Double, y: Double)] = []
        for i in 0..<4 {
            let x = 50 + 80 * Double(i), r = 6 + Double(i)
            specks.append((x: x, y: 70))
            for k in 0..<8 {
                let rk = r * (2 - Double(k) / 7)
                canvas.paint(factor: (1.05, 1.05, 1.05), bounds: (Int(x - rk) - 1, 70 - Int(rk) - 1, Int(x + rk) + 1, 70 + Int(rk) + 1)) { px, py in
                    (px - x) * (px - x) + (py - 70) * (py - 70) <= rk * rk
                }
            }
            cells.append((x: x + 13, y: 170))
            canvas.liveCell(x: x + 13, y: 170, r: r)
        }
        return (canvas.image(noise: 0.02), specks, cells)
    }

    @Test func brightSpecksAreNotCells() throws {
        let (image, specks, cells) = Self.specksAndCells()
        let result = try Pipeline(config: PipelineConfig()).run(image)
        #expect(matchCount(result.detections, specks, tolerance: 6) == 0, "\(result.detections)")
        #expect(matchCount(result.detections, cells, tolerance: 4) == cells.count, "\(result.detections)")
    }

    /// The switch is real: without the rule the specks pass every other test.
    @Test func withoutTheRuleSpecksPass() throws {
        let (image, specks, _) = Self.specksAndCells()
        var config = PipelineConfig()
        config.minRimDepth = 0
        let result = try Pipeline(config: config).run(image)
        #expect(matchCount(result.detections, specks, tolerance: 6) >= 3, "\(result.detections)")
    }
}
