import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A stretch of line looks the same further along it")
struct LineShiftTests {
    /// Gaussian noise of standard deviation `sigma` (Box-Muller on the tests' sequence).
    static func noisePlane(width: Int, height: Int, sigma: Float) -> Plane {
        var sequence = TestSequence(state: 42)
        var plane = Plane(width: width, height: height)
        for i in 0..<plane.count {
            let u = max(sequence.next(), 1e-12), v = sequence.next()
            plane.data[i] = sigma * Float((-2 * log(u)).squareRoot() * cos(2 * Double.pi * v))
        }
        return plane
    }

    /// A vertical triple line: three strokes one pixel wide, three pixels apart, at x = 30.
    static func tripleLine(width: Int = 61, height: Int = 80) -> Plane {
        var plane = Plane(width: width, height: height)
        for y in 0..<height {
            for x in [27, 30, 33] { plane[x, y] = -0.7 }
        }
        return plane
    }

    @Test func sampleNoiseIsTheNoisesStandardDeviation() {
        for sigma: Float in [0.01, 0.05] {
            let estimate = sampleNoise(Self.noisePlane(width: 300, height: 200, sigma: sigma))
            #expect(abs(estimate - sigma) < 0.08 * sigma, "\(estimate) for \(sigma)")
        }
    }

    @Test func stepsFollowTheLine() throws {
        let straight = try #require(LineSteps(angle: .pi / 2, maxLength: 12, tolerance: 0.1).step(minLength: 5, maxLength: 10))
        #expect(straight.dx == 0 && abs(straight.dy) >= 5 && abs(straight.dy) <= 10)
        // 7.125 degrees: (8, 1) lies on the line exactly.
        let tilted = try #require(LineSteps(angle: atan2(1, 8), maxLength: 12, tolerance: 0.01).step(minLength: 6, maxLength: 10))
        #expect(tilted.dx == 8 && tilted.dy == 1)
        // Only steps the table was formed for: none longer than its maxLength.
        #expect(LineSteps(angle: atan2(1, 8), maxLength: 7, tolerance: 0.01).step(minLength: 6, maxLength: 10) == nil)
        // No whole step of at most 3 pixels stays within 0.01 px of a 20-degree line.
        #expect(LineSteps(angle: 20 * .pi / 180, maxLength: 3, tolerance: 0.01).step(minLength: 2, maxLength: 3) == nil)
    }

    @Test func aLineExplainsItselfButNotACellOnIt() throws {
        var plane = Self.tripleLine()
        let step = (dx: 0, dy: 12)
        let onLine = try #require(lineShiftResidual(plane, x: 30, y: 40, r: 5, step: step))
        #expect(onLine == 0)
        // A dark disc of r 5 on the line: the shifted discs show the line alone.
        for y in 35...45 {
            for x in 25...35 where (x - 30) * (x - 30) + (y - 40) * (y - 40) <= 25 { plane[x, y] = -0.5 }
        }
        let cell = try #require(lineShiftResidual(plane, x: 30, y: 40, r: 5, step: step))
        #expect(cell > 0.05, "\(cell)")
        // Across the line the strokes do not repeat: a large residual without any cell.
        #expect(try #require(lineShiftResidual(Self.tripleLine(), x: 30, y: 60, r: 5, step: (dx: 12, dy: 0))) > 0.05)
    }

    /// A line whose darkness changes along it (a lamp's gradient, uneven ruling) still
    /// explains itself: against the mean of both shifted discs a linear change cancels, where
    /// either shifted disc alone differs by the change over the step at every stroke pixel.
    @Test func aLineDarkeningAlongItExplainsItself() throws {
        var plane = Self.tripleLine()
        for y in 0..<plane.height {
            for x in [27, 30, 33] { plane[x, y] = -0.7 * (1 + 0.02 * Float(y - 40)) }
        }
        let residual = try #require(lineShiftResidual(plane, x: 30, y: 40, r: 5, step: (dx: 0, dy: 12)))
        // One side alone: 0.7 x 0.02 x 12 = 0.168 at a third of the disc's samples, about 0.01.
        #expect(residual < 1e-9, "\(residual)")
        // A cell on that line still differs from it.
        for y in 35...45 {
            for x in 25...35 where (x - 30) * (x - 30) + (y - 40) * (y - 40) <= 25 { plane[x, y] = -0.5 }
        }
        #expect(try #require(lineShiftResidual(plane, x: 30, y: 40, r: 5, step: (dx: 0, dy: 12))) > 0.05)
    }

    /// On noise alone the residual is 1.5 times the noise variance (the disc's own variance
    /// plus a quarter of each shifted disc's): the unit `lineShiftRatio` counts in.
    @Test func onNoiseTheResidualIsOneAndAHalfVariances() throws {
        let sigma: Float = 0.05
        let plane = Self.noisePlane(width: 300, height: 200, sigma: sigma)
        var total = 0.0, count = 0.0
        for y in stride(from: 30, to: 170, by: 20) {
            for x in stride(from: 30, to: 270, by: 20) {
                total += try #require(lineShiftResidual(plane, x: Double(x), y: Double(y), r: 8, step: (dx: 12, dy: 0)))
                count += 1
            }
        }
        let ratio = total / count / Double(sigma * sigma)
        #expect(abs(ratio - 1.5) < 0.1, "\(ratio)")
    }

    @Test func nothingToCompareAtThePlanesEdge() {
        #expect(lineShiftResidual(Self.tripleLine(), x: 30, y: 10, r: 5, step: (dx: 0, dy: 12)) == nil)
        #expect(lineShiftResidual(Self.tripleLine(), x: 30, y: 70, r: 5, step: (dx: 0, dy: 12)) == nil)
    }

    /// A sharp, noisy triple line crossing a blank field, with a live cell lying on it and two
    /// cells beside it.
    static func tripleLineScene() -> Image {
        var canvas = Canvas(width: 320, height: 240)
        for offset in [-4.0, 0, 4] {
            let x0 = 160 + offset
            canvas.paint(factor: (0.35, 0.35, 0.35), bounds: (Int(x0) - 2, 0, Int(x0) + 2, 239)) { px, _ in abs(px - x0) <= 0.9 }
        }
        canvas.liveCell(x: 160, y: 60, r: 7)
        canvas.liveCell(x: 80, y: 120, r: 7)
        canvas.deadCell(x: 240, y: 180, r: 7)
        return canvas.image(noise: 0.06)
    }

    /// The rule drops what the shifted disc explains, never a cell lying on the line: its
    /// disc differs from the line further along.
    @Test func cellsOnAndBesideATripleLineAreKept() throws {
        let result = try Pipeline(config: PipelineConfig()).run(Self.tripleLineScene())
        #expect(result.detections.count == 3, "\(result.detections)")
        #expect(matchCount(result.detections, [(x: 80, y: 120), (x: 240, y: 180)], tolerance: 2) == 2, "\(result.detections)")
        // The line pulls the centre of the cell on it towards its strokes by a few pixels.
        #expect(matchCount(result.detections, [(x: 160, y: 60)], tolerance: 7) == 1, "\(result.detections)")
    }
}
