import Testing
import Imaging
@testable import Vision

/// `boundaryRadius` against its first, plain version (array subscripts, Double offsets per
/// pixel), kept here verbatim as the reference: the optimised kernel must return the same bits.
@Suite("Boundary radius reference")
struct EdgeRadiusReferenceTests {
    /// Pseudo-random centres and radii (0.3 ... 30 px), on and beyond the border too.
    @Test func optimisedRadiusMatchesPlainVersion() {
        var canvas = Canvas(width: 120, height: 90)
        canvas.grid(spacing: 37, angle: 0.15)
        canvas.liveCell(x: 40.4, y: 44.2, r: 9)
        canvas.deadCell(x: 57.1, y: 47.9, r: 7.5)
        canvas.liveCell(x: 3, y: 85, r: 12)
        canvas.deadCell(x: 100.6, y: 12.3, r: 2)
        let image = canvas.image(noise: 0.05)
        var sequence = TestSequence(state: 5)
        func next() -> Double { sequence.next() }
        var nonzero = 0
        for i in 0..<400 {
            // Every eighth centre on a whole or half pixel, where offsets hit the 0.25 bound.
            var x = -10 + 140 * next(), y = -10 + 110 * next()
            if i % 8 == 0 { x = (2 * x).rounded() / 2; y = (2 * y).rounded() / 2 }
            let r = 0.3 + 29.7 * next() * next()
            let got = boundaryRadius(image, x: x, y: y, r: r)
            let want = Self.referenceRadius(image, x: x, y: y, r: r)
            #expect(got.bitPattern == want.bitPattern, "centre (\(x), \(y)) r \(r): \(got) vs \(want)")
            if want > 0 { nonzero += 1 }
        }
        #expect(nonzero > 200)
    }

    static func referenceRadius(_ image: Image, x: Double, y: Double, r: Double) -> Double {
        let w = image.width, h = image.height
        let outer = 1.6 * r
        let x0 = max(1, Int((x - outer).rounded(.down))), x1 = min(w - 2, Int((x + outer).rounded(.up)))
        let y0 = max(1, Int((y - outer).rounded(.down))), y1 = min(h - 2, Int((y + outer).rounded(.up)))
        guard x0 <= x1, y0 <= y1, r > 0 else { return 0 }
        // Grey values (R + 2G + B) of the window plus a one-pixel border.
        let ww = x1 - x0 + 3, wh = y1 - y0 + 3
        var grey = [Float](repeating: 0, count: ww * wh)
        image.pixels.withUnsafeBufferPointer { px in
            for yy in 0..<wh {
                let sy = y0 - 1 + yy
                for xx in 0..<ww {
                    let p = (sy * w + x0 - 1 + xx) * 3
                    grey[yy * ww + xx] = Float(Int(px[p]) + 2 * Int(px[p + 1]) + Int(px[p + 2]))
                }
            }
        }
        var sum = 0.0, weight = 0.0
        let cosLimit: Float = 0.9
        for yy in 1..<(wh - 1) {
            let dy = Double(y0 - 1 + yy) - y
            for xx in 1..<(ww - 1) {
                let dx = Double(x0 - 1 + xx) - x
                let dist2 = dx * dx + dy * dy
                guard dist2 > 0.25, dist2 <= outer * outer else { continue }
                let i = yy * ww + xx
                let gx = (grey[i - ww + 1] + 2 * grey[i + 1] + grey[i + ww + 1]) - (grey[i - ww - 1] + 2 * grey[i - 1] + grey[i + ww - 1])
                let gy = (grey[i + ww - 1] + 2 * grey[i + ww] + grey[i + ww + 1]) - (grey[i - ww - 1] + 2 * grey[i - ww] + grey[i - ww + 1])
                let g2 = gx * gx + gy * gy
                guard g2 > 0 else { continue }
                let dist = Float(dist2.squareRoot())
                let along = (gx * Float(dx) + gy * Float(dy)) / dist
                guard along * along >= cosLimit * cosLimit * g2 else { continue }
                let a = Double(abs(along))
                sum += a * Double(dist)
                weight += a
            }
        }
        return weight > 0 ? sum / weight : 0
    }
}
