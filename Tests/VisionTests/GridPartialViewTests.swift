import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A faint ruling over part of a large view is found")
struct GridPartialViewTests {
    /// 480 x 480 flattened luminance: a ruling (lines 2 px wide, 20 % dark, every 40 px,
    /// turned by 5 degrees) over the right half only, and 60 dark discs of radius 5 px (cells,
    /// 20 % dark) over the left half: the view's edge of the ruled area.
    static let view: Plane = {
        let size = 480, angle = 5 * Double.pi / 180
        var p = Plane(width: size, height: size, repeating: 1)
        var sequence = TestSequence(state: 23)
        let cells = (0..<60).map { _ in (sequence.next() * 230, sequence.next() * Double(size)) }
        let c = cos(angle), s = sin(angle)
        func onLine(_ t: Double) -> Bool {
            let m = ((t - 10).truncatingRemainder(dividingBy: 40) + 40).truncatingRemainder(dividingBy: 40)
            return m < 2
        }
        for y in 0..<size {
            for x in 0..<size {
                let px = Double(x), py = Double(y)
                var value = 1.0
                if x >= 240 && (onLine(px * c + py * s) || onLine(-px * s + py * c)) { value *= 0.8 }
                if cells.contains(where: { ($0.0 - px) * ($0.0 - px) + ($0.1 - py) * ($0.1 - py) <= 25 }) { value *= 0.8 }
                p[x, y] = Float(value + (sequence.next() - 0.5) * 0.02)
            }
        }
        return p
    }()

    /// `Goldens/tilted`: a faint ruling over the right half of the view, cells all over it.
    /// The orientation histogram's peaks lie 3-10 degrees off the ruling (the cells' edges
    /// outnumber the lines'), and the family across the half-length lines is periodic over
    /// half the view only.
    @Test func theTiltedGoldensRulingIsFoundAndCalibrated() throws {
        let image = try Image.decode(file: repositoryRoot + "/Goldens/tilted-s107-000.jpg")
        let result = try Pipeline(config: PipelineConfig()).run(image)
        let grid = try #require(result.grid)
        // The label's µm per pixel (TestLabels/tilted-s107-000.json).
        #expect(abs(grid.umPerPixel / 1.078579 - 1) < 0.03, "\(grid.umPerPixel) µm per pixel")
    }

    /// The search over every direction finds the ruling's normals where the orientation
    /// histogram, swamped by the cells' edges, puts them 5 degrees off.
    @Test func theSharpestDirectionsAreTheRulings() {
        let flat = Self.view
        let peaks = perpendicularPeaks(orientationHistogram(gaussianBlur(flat, sigma: 1), minMagnitude: 0.005))
        #expect(abs(remainder(peaks.first - 5, 90)) > 3, "histogram peaks \(peaks): the case no longer arises")
        let contrast = flat.map { abs($0 - 1) }
        let normals = sharpestPerpendicularNormals(downsample(contrast, factor: 2))
        for n in normals { #expect([5.0, 95.0].contains { abs(remainder(n - $0, 180)) <= 1.5 }, "normals \(normals)") }
    }
}
