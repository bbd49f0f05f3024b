import Testing
import Imaging
@testable import Vision

/// `voteCentre` against its first, plain version (array subscripts, libm rounding), kept here
/// as the reference (plus the ridge rule: only pixels no weaker than both neighbours along
/// their quantised gradient direction vote): the optimised kernel must return the same bits.
@Suite("Centre voting reference")
struct EdgeCentreVoteReferenceTests {
    @Test func optimisedVoteMatchesPlainVersion() {
        var canvas = Canvas(width: 160, height: 120)
        canvas.grid(spacing: 50, angle: 0.1)
        let cells: [(Double, Double, Double)] = [(30.3, 30.6, 8), (46.3, 30.6, 8), (100.2, 70.7, 11.5), (140, 105, 6),
                                                 (5, 60, 7), (80, 20.5, 4.5)]
        for (i, c) in cells.enumerated() {
            if i % 2 == 0 { canvas.liveCell(x: c.0, y: c.1, r: c.2) } else { canvas.deadCell(x: c.0, y: c.1, r: c.2) }
        }
        let image = canvas.image(noise: 0.02)
        var checked = 0
        for c in cells {
            for (dx, dy) in [(0.0, 0.0), (-0.6, 0.1), (0.45, -0.5), (1.2, 1.3), (-2.5, 0.7)] {
                for rs in [0.8, 1.0, 1.3] {
                    let x = c.0 + dx * c.2, y = c.1 + dy * c.2, r = c.2 * rs
                    let got = voteCentre(image, x: x, y: y, r: r)
                    let want = Self.referenceVote(image, x: x, y: y, r: r)
                    #expect(got.x.bitPattern == want.x.bitPattern && got.y.bitPattern == want.y.bitPattern,
                            "start (\(x), \(y)) r \(r): \(got) vs \(want)")
                    checked += 1
                }
            }
        }
        #expect(checked == 90)
    }

    /// A live and a dead cell touching on a tilted grid, plus what `more` draws (noise 0.05).
    static func touchingPairOnAGrid(_ more: (inout Canvas) -> Void) -> Image {
        var canvas = Canvas(width: 120, height: 90)
        canvas.grid(spacing: 37, angle: -0.2)
        canvas.liveCell(x: 40.4, y: 44.2, r: 9)
        canvas.deadCell(x: 57.1, y: 47.9, r: 7.5)
        more(&canvas)
        return canvas.image(noise: 0.05)
    }

    /// Pseudo-random starts and radii (1 ... 30 px, tiny to search discs wider than the image),
    /// including starts on and beyond the border, where votes leave the accumulator.
    @Test func optimisedVoteMatchesPlainVersionAtRandomStarts() {
        let image = Self.touchingPairOnAGrid { canvas in
            canvas.liveCell(x: 3, y: 85, r: 12)
            canvas.deadCell(x: 100.6, y: 12.3, r: 5)
        }
        var sequence = TestSequence(state: 11)
        func next() -> Double { sequence.next() }
        for _ in 0..<300 {
            let x = -10 + 140 * next(), y = -10 + 110 * next(), r = 1 + 29 * next() * next()
            let got = voteCentre(image, x: x, y: y, r: r)
            let want = Self.referenceVote(image, x: x, y: y, r: r)
            #expect(got.x.bitPattern == want.x.bitPattern && got.y.bitPattern == want.y.bitPattern,
                    "start (\(x), \(y)) r \(r): \(got) vs \(want)")
        }
    }

    /// One scratch through calls of every window size, large after small and small after
    /// large: what a call leaves in its buffers must not reach the next result.
    @Test func reusedScratchMatchesPlainVersion() {
        let image = Self.touchingPairOnAGrid { canvas in canvas.liveCell(x: 80, y: 30, r: 12) }
        var sequence = TestSequence(state: 17)
        func next() -> Double { sequence.next() }
        var scratch = VoteScratch()
        for i in 0..<200 {
            let x = -5 + 130 * next(), y = -5 + 100 * next()
            let r = i % 2 == 0 ? 1 + 29 * next() : 1 + 4 * next()
            let got = voteCentre(image, x: x, y: y, r: r, scratch: &scratch)
            let want = Self.referenceVote(image, x: x, y: y, r: r)
            #expect(got.x.bitPattern == want.x.bitPattern && got.y.bitPattern == want.y.bitPattern,
                    "start (\(x), \(y)) r \(r): \(got) vs \(want)")
        }
    }

    static func referenceVote(_ image: Image, x: Double, y: Double, r: Double, search: Double = 0.7)
        -> (x: Double, y: Double) {
        let w = image.width, h = image.height
        guard r >= 1, x.isFinite, y.isFinite, w >= 3, h >= 3 else { return (x, y) }
        let outer = 1.4 * r
        let x0 = max(1, Int((x - outer - search * r).rounded(.down)))
        let x1 = min(w - 2, Int((x + outer + search * r).rounded(.up)))
        let y0 = max(1, Int((y - outer - search * r).rounded(.down)))
        let y1 = min(h - 2, Int((y + outer + search * r).rounded(.up)))
        guard x0 < x1, y0 < y1 else { return (x, y) }
        // Grey (R + 2G + B) of the window plus a one-pixel border.
        let ww = x1 - x0 + 3, wh = y1 - y0 + 3
        var grey = [Float](repeating: 0, count: ww * wh)
        image.pixels.withUnsafeBufferPointer { px in
            for yy in 0..<wh {
                let row = (y0 - 1 + yy) * w + x0 - 1
                for xx in 0..<ww {
                    let p = (row + xx) * 3
                    grey[yy * ww + xx] = Float(Int(px[p]) + 2 * Int(px[p + 1]) + Int(px[p + 2]))
                }
            }
        }
        // Sobel magnitudes; only pixels well above the window's median gradient vote (flat
        // background and noise stay silent without an image-wide noise estimate).
        let iw = ww - 2, ih = wh - 2
        var gxs = [Float](repeating: 0, count: iw * ih), gys = gxs, mags = gxs
        for yy in 0..<ih {
            for xx in 0..<iw {
                let i = (yy + 1) * ww + xx + 1
                let gx = (grey[i - ww + 1] + 2 * grey[i + 1] + grey[i + ww + 1]) - (grey[i - ww - 1] + 2 * grey[i - 1] + grey[i + ww - 1])
                let gy = (grey[i + ww - 1] + 2 * grey[i + ww] + grey[i + ww + 1]) - (grey[i - ww - 1] + 2 * grey[i - ww] + grey[i - ww + 1])
                let k = yy * iw + xx
                gxs[k] = gx
                gys[k] = gy
                mags[k] = (gx * gx + gy * gy).squareRoot()
            }
        }
        var sorted = mags
        let floor = 2 * (selectKth(&sorted, sorted.count / 2) ?? 0)
        // Accumulator over the search disc, one bin per image pixel.
        let sr = Int((search * r).rounded(.up))
        let side = 2 * sr + 1
        var acc = [Float](repeating: 0, count: side * side)
        let ax0 = Int(x.rounded()) - sr, ay0 = Int(y.rounded()) - sr
        let inner = Float(0.3 * r), far = Float(outer)
        let steps = max(2, Int((far - inner).rounded(.up)))
        let dstep = (far - inner) / Float(steps)
        for yy in 0..<ih {
            let py = Float(y0 + yy)
            for xx in 0..<iw {
                let k = yy * iw + xx
                let m = mags[k]
                guard m > floor, m > 0 else { continue }
                // Non-maximum suppression: the neighbours along the gradient direction, to the
                // nearest 45 degrees (tan 67.5 deg = 2.4142135), where they lie in the window.
                let ax = abs(gxs[k]), ay = abs(gys[k])
                let (sx, sy) = ax > 2.4142135 * ay ? (1, 0) : ay > 2.4142135 * ax ? (0, 1)
                    : ((gxs[k] > 0) == (gys[k] > 0) ? (1, 1) : (-1, 1))
                var ridge = true
                for (nx, ny) in [(xx + sx, yy + sy), (xx - sx, yy - sy)]
                where nx >= 0 && nx < iw && ny >= 0 && ny < ih && mags[ny * iw + nx] > m {
                    ridge = false
                }
                guard ridge else { continue }
                let ux = gxs[k] / m, uy = gys[k] / m
                let px = Float(x0 + xx)
                let weight = m - floor
                acc.withUnsafeMutableBufferPointer { a in
                    for s in 0...steps {
                        let d = inner + Float(s) * dstep
                        // Both ways along the gradient line: the polarity of an edge is unknown.
                        let vx = d * ux, vy = d * uy
                        let bx1 = Int((px + vx).rounded()) &- ax0, by1 = Int((py + vy).rounded()) &- ay0
                        if bx1 >= 0, bx1 < side, by1 >= 0, by1 < side { a[by1 &* side &+ bx1] += weight }
                        let bx2 = Int((px - vx).rounded()) &- ax0, by2 = Int((py - vy).rounded()) &- ay0
                        if bx2 >= 0, bx2 < side, by2 >= 0, by2 < side { a[by2 &* side &+ bx2] += weight }
                    }
                }
            }
        }
        // Peak of the 3x3-smoothed accumulator inside the search disc, then the weighted centroid
        // of its 3x3 neighbourhood for a sub-pixel centre.
        var best: Float = 0, bestX = -1, bestY = -1
        for by in 1..<(side - 1) {
            for bx in 1..<(side - 1) {
                let dx = bx - sr, dy = by - sr
                guard dx * dx + dy * dy <= sr * sr else { continue }
                var s: Float = 0
                for oy in -1...1 { for ox in -1...1 { s += acc[(by + oy) * side + bx + ox] } }
                if s > best { best = s; bestX = bx; bestY = by }
            }
        }
        guard best > 0, bestX >= 1, bestY >= 1 else { return (x, y) }
        var sw: Float = 0, sx: Float = 0, sy: Float = 0
        for oy in -1...1 {
            for ox in -1...1 {
                let v = acc[(bestY + oy) * side + bestX + ox]
                sw += v
                sx += v * Float(ox)
                sy += v * Float(oy)
            }
        }
        return (Double(ax0 + bestX) + Double(sx / sw), Double(ay0 + bestY) + Double(sy / sw))
    }
}
