import Foundation
import Testing
@testable import Vision

/// `lineMedian` and its block statistic against their first, plain versions: the original
/// scatter-into-sum-and-weight-planes implementation is kept here verbatim as the reference.
@Suite("Line profile reference")
struct LineProfileReferenceTests {
    /// Noise plus bright lines in two directions, like a contrast map with ruling.
    static func ruledPlane(width: Int, height: Int) -> Plane {
        var plane = KernelReferenceTests.noisePlane(width: width, height: height, seed: 21)
        for i in 0..<plane.count { plane.data[i] *= 0.1 }
        for y in 0..<height {
            for x in 0..<width where (x + y / 5) % 17 == 0 || (y - x / 7) % 13 == 0 { plane[x, y] += 0.6 }
        }
        return plane
    }

    /// Every sampling stride: 2 (the default), 1 (`floorEstimate` samples every column of a
    /// decimated plane) and 3; planes down to a few pixels a side.
    @Test(arguments: [0.0, 0.05, 0.3, 0.7854, 1.2, 1.5208, 1.6208, 2.3562, 3.0, -0.4])
    func lineMedianMatchesReference(angle: Double) {
        for (w, h, block) in [(97, 61, 15), (40, 90, 9), (130, 33, 25), (12, 12, 3), (5, 3, 4), (1, 6, 3)] {
            let plane = Self.ruledPlane(width: w, height: h)
            for stride in [1, 2, 3] {
                for q in [0.3, 0.5] {
                    let got = lineMedian(plane, angle: angle, block: block, quantile: q, sampleStride: stride)
                    let want = Self.referenceLineMedian(plane, angle: angle, block: block, quantile: q, sampleStride: stride)
                    #expect(KernelReferenceTests.identical(got, want),
                            "angle \(angle) \(w)x\(h) block \(block) stride \(stride) q \(q)")
                }
            }
        }
    }

    /// Block lengths 3 ... 40 along the row (`block` 6 ... 80) over many directions, on noise
    /// quantised to a few levels (ties; exact along the axes, where no interpolation happens).
    @Test(arguments: [0.0, 0.13, 0.41, 0.7854, 1.05, 1.5708, 1.9, 2.6, -0.9, -1.3])
    func lineMedianMatchesReferenceAcrossBlockLengths(angle: Double) {
        var plane = KernelReferenceTests.noisePlane(width: 171, height: 67, seed: 5)
        for i in 0..<plane.count { plane.data[i] = (plane.data[i] * 6).rounded(.down) / 6 + 0.125 }
        for block in stride(from: 6, through: 80, by: 1) where block % 3 != 1 || block < 12 {
            for q in [0.3, 0.5, 0.0, 1.0] where q == 0.3 || block % 7 == 0 {
                let got = lineMedian(plane, angle: angle, block: block, quantile: q)
                let want = Self.referenceLineMedian(plane, angle: angle, block: block, quantile: q)
                #expect(KernelReferenceTests.identical(got, want), "angle \(angle) block \(block) q \(q)")
            }
        }
    }

    /// The selection-network block quantiles equal `selectKthByRank` of every block, bit for
    /// bit: rows of every length up to 2 x 64 samples split into 1 ... 40 blocks, ties,
    /// infinities, and the fallbacks (NaN, -0 beside +0, blocks over 64 samples).
    @Test func blockQuantilesMatchRankSelection() {
        var state: UInt64 = 91
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for q in [0.0, 0.3, 0.5, 0.77, 1.0] {
            var selector = BlockQuantileSelector(quantile: q)
            for n in 1...130 {
                for trial in 0..<3 {
                    var line = (0..<n).map { _ -> Float in
                        trial == 0 ? Float(next() % 5) - 2 : Float(next() % 10_000) / 997 - 5
                    }
                    if trial == 1 && n > 3 {
                        line[Int(next()) % n] = .infinity
                        line[Int(next()) % n] = -.infinity
                        line[Int(next()) % n] = .nan
                    }
                    if trial == 2 {
                        for _ in 0..<(n / 3) { line[Int(next()) % n] = next() % 2 == 0 ? 0 : -0.0 }
                    }
                    for blocks in Set([1, 2, 3, max(1, n / 24), max(1, n / 12), max(1, n / 3), min(n, 40)]).sorted() where blocks <= n {
                        let size = Double(n) / Double(blocks)
                        var got = [Float](repeating: 0, count: blocks)
                        var copy = line
                        copy.withUnsafeMutableBufferPointer { ln in
                            got.withUnsafeMutableBufferPointer { selector.select(ln, n: n, blocks: blocks, size: size, into: $0) }
                        }
                        for b in 0..<blocks {
                            let lo = Int((Double(b) * size).rounded()), hi = max(lo + 1, Int((Double(b + 1) * size).rounded()))
                            var block = Array(line[lo..<min(hi, n)])
                            let want = block.withUnsafeMutableBufferPointer { selectKthByRank($0, Int(Double($0.count - 1) * q)) }
                            #expect(got[b].bitPattern == want.bitPattern, "q \(q) n \(n) trial \(trial) blocks \(blocks) b \(b)")
                        }
                    }
                }
            }
        }
    }

    /// Rank selection returns the k-th order statistic of a sort for every k, with ties,
    /// infinities and lengths around the SIMD width; NaN and long buffers fall back.
    @Test func rankSelectionMatchesSorting() {
        var state: UInt64 = 77
        for n in [1, 2, 3, 4, 5, 7, 8, 9, 24, 25, 63, 64, 65, 200] {
            for trial in 0..<4 {
                var values = (0..<n).map { _ -> Float in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return Float(state >> 60) / 4 - 1   // 16 levels: many ties
                }
                if trial == 2 { values[n / 2] = .infinity }
                if trial == 3 { values[0] = -.infinity }
                let sorted = values.sorted()
                for k in 0..<n {
                    var copy = values
                    let got = copy.withUnsafeMutableBufferPointer { selectKthByRank($0, k) }
                    #expect(got == sorted[k], "n \(n) trial \(trial) k \(k)")
                }
            }
        }
        var withNaN: [Float] = [3, .nan, 1, 2]
        let fallback = withNaN.withUnsafeMutableBufferPointer { selectKthByRank($0, 0) }
        var reference: [Float] = [3, .nan, 1, 2]
        #expect(fallback.bitPattern == (selectKth(&reference, 0) ?? 0).bitPattern)
    }

    /// The first version, with the column stride (2 then) made a parameter.
    static func referenceLineMedian(_ plane: Plane, angle: Double, block: Int, quantile: Double = 0.5,
                                    sampleStride: Int = 2) -> Plane {
        guard block >= 3, plane.count > 0 else { return plane }
        let c = cos(angle), s = sin(angle)
        // Near-vertical directions run on the transposed plane so that rows read memory in order.
        if abs(c) < abs(s) {
            return transposed(referenceLineMedian(transposed(plane), angle: atan2(c, s), block: block, quantile: quantile,
                                                  sampleStride: sampleStride))
        }
        let w = plane.width, h = plane.height
        let q = min(1, max(0, quantile))
        let slope = s / c
        let maxShift = Int((abs(slope) * Double(w - 1)).rounded(.up)) + 1
        let rows = h + 2 * maxShift
        // Sheared row k samples y = k - maxShift + m * slope at column m. Pixel (m, y) lies on
        // sheared row u = y + maxShift - m * slope = kBase[m] + frac[m] + y: it takes the rows
        // kBase[m] + y and the next one with weights 1 - frac and frac. Each row's estimates are
        // scattered straight into the output with those weights (normalised at the end), so no
        // rows x width buffer is needed (at 45 degrees it would be 3.5x the image).
        var kBase = [Int](repeating: 0, count: w), frac = [Float](repeating: 0, count: w)
        for m in 0..<w {
            let u = Double(maxShift) - Double(m) * slope
            let k = u.rounded(.down)
            kBase[m] = Int(k)
            frac[m] = Float(u - k)
        }
        var out = Plane(width: w, height: h)
        var weights = [Float](repeating: 0, count: w * h)
        var line = [Float](repeating: 0, count: w)
        // (Sized for odd `block` too: round(n / max(2, block / sampleStride)) blocks of
        // n <= w / sampleStride + 1 samples.)
        var medians = [Float](repeating: 0, count: w / max(2, block / sampleStride) + 2)
        plane.data.withUnsafeBufferPointer { src in
            for k in 0..<rows {
                let base = Double(k - maxShift)
                // Valid columns: 0 <= base + m * slope <= h - 1, a contiguous range found directly
                // (scanning every column of every sheared row would cost 3x more at 45 degrees).
                var lowest = 0.0, highest = Double(w - 1)
                if slope > 1e-12 {
                    lowest = max(lowest, (-base) / slope)
                    highest = min(highest, (Double(h - 1) - base) / slope)
                } else if slope < -1e-12 {
                    lowest = max(lowest, (Double(h - 1) - base) / slope)
                    highest = min(highest, (-base) / slope)
                } else if base < 0 || base > Double(h - 1) {
                    continue
                }
                let first = Int(lowest.rounded(.up)), last = Int(highest.rounded(.down))
                guard first <= last else { continue }
                // Every other column along the row: the estimate is interpolated between block
                // centres anyway, so this halves the work without losing the line.
                var n = 0
                let top = max(0, h - 2)
                var m = first
                var y = base + Double(first) * slope
                let step = Double(sampleStride) * slope
                while m <= last {
                    let yc = max(0, y)
                    let y0 = min(Int(yc), top), a = Float(yc - Double(y0))
                    let y1 = min(y0 &+ 1, h - 1)
                    line[n] = src[y0 &* w &+ m] * (1 - a) + src[y1 &* w &+ m] * a
                    n &+= 1
                    m &+= sampleStride
                    y += step
                }
                let blocks = max(1, Int((Double(n) / Double(max(2, block / sampleStride))).rounded()))
                let size = Double(n) / Double(blocks)
                for b in 0..<blocks {
                    let lo = Int((Double(b) * size).rounded()), hi = max(lo + 1, Int((Double(b + 1) * size).rounded()))
                    // In place: each block is selected once and `line` is not needed afterwards.
                    let end = min(hi, n)
                    medians[b] = line.withUnsafeMutableBufferPointer { ln in
                        let slice = UnsafeMutableBufferPointer(rebasing: ln[lo..<end])
                        return selectKth(slice, Int(Double(slice.count - 1) * q))
                    }
                }
                // Position in block-centre units, t = ((column - first) / sampleStride + 0.5) / size - 0.5,
                // advanced incrementally.
                let dt = Float(1 / (Double(sampleStride) * size))
                var t = Float(0.5 / size - 0.5)
                let lastBlock = blocks - 1
                out.data.withUnsafeMutableBufferPointer { dst in
                    weights.withUnsafeMutableBufferPointer { wt in
                        medians.withUnsafeBufferPointer { md in
                            for column in first...last {
                                let tc = max(0, t)
                                let b0 = min(lastBlock, Int(tc))
                                let b1 = min(lastBlock, b0 &+ 1)
                                let a = min(1, tc - Float(b0))
                                let v = md[b0] + (md[b1] - md[b0]) * a
                                t += dt
                                let f = frac[column]
                                let y0 = k &- kBase[column]          // this row is its k0: weight 1 - f
                                if y0 >= 0 && y0 < h {
                                    let i = y0 &* w &+ column
                                    dst[i] += v * (1 - f)
                                    wt[i] += 1 - f
                                }
                                let y1 = y0 &- 1                     // this row is its k1: weight f
                                if y1 >= 0 && y1 < h {
                                    let i = y1 &* w &+ column
                                    dst[i] += v * f
                                    wt[i] += f
                                }
                            }
                        }
                    }
                }
            }
        }
        out.data.withUnsafeMutableBufferPointer { dst in
            weights.withUnsafeBufferPointer { wt in
                for i in 0..<dst.count where wt[i] > 1e-6 { dst[i] /= wt[i] }
            }
        }
        return out
    }
}
