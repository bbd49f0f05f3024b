import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Cells beside lines")
struct CellsBesideLinesTests {
    /// Small live cells (r 5.5 px) whose rims touch heavy ruling lines (5 px wide), at the
    /// default cell size range (working scale 2).
    static func cellsBesideLines() -> (Image, [(x: Double, y: Double)]) {
        var canvas = Canvas(width: 480, height: 360)
        let angle = 0.03, spacing = 120.0
        canvas.grid(spacing: spacing, angle: angle, lineWidth: 5, darkness: 0.5)
        let c = cos(angle), s = sin(angle)
        var cells: [(x: Double, y: Double)] = []
        // Line-relative positions (u across the vertical family, v across the horizontal one):
        // each cell's rim about one pixel from a line's edge, alternately on either side.
        for i in 0..<3 {
            for j in 0..<3 {
                let side = (i + j) % 2 == 0 ? 1.0 : -1.0
                let u = spacing * Double(i + 1) + side * 9, v = spacing * (Double(j) + 0.5) + 13 * Double(j - 1)
                cells.append((x: u * c - v * s, y: u * s + v * c))
                let u2 = spacing * (Double(i) + 0.5) - 17 + 11 * Double(j), v2 = spacing * Double(j + 1) - side * 9
                cells.append((x: u2 * c - v2 * s, y: u2 * s + v2 * c))
            }
        }
        cells = cells.filter { $0.x > 12 && $0.y > 12 && $0.x < 468 && $0.y < 348 }
        for cell in cells { canvas.liveCell(x: cell.x, y: cell.y, r: 5.5) }
        return (canvas.image(noise: 0.02), cells)
    }

    /// A ruling line's edge next to a small cell's rim must not hide the rim (the boundary
    /// tests read a lightly smoothed log luminance: `edgeSmoothingPx`). One of the 15 may be
    /// lost: since line removal stopped dilating the line estimate (2026-11-26; independent
    /// set F1 +0.003), the detector sizes these cells at their true radius rather than shrunk
    /// by the dark bands beside the line, and at that radius the boundary test's annulus takes
    /// in enough of the line's edge that the cell at (46.5, 250.5) has 0.47 of its boundary
    /// along the ruling, over `maxGridAlignedEdges` (0.45, which blank controls need).
    @Test func cellsBesideHeavyLinesAreFound() throws {
        let (image, cells) = Self.cellsBesideLines()
        let result = try Pipeline(config: PipelineConfig()).run(image)
        #expect(cells.count >= 12)
        #expect(matchCount(result.detections, cells, tolerance: 4) >= cells.count - 1, "\(result.detections)")
        #expect(result.detections.count <= cells.count + 1, "\(result.detections)")
    }
}
