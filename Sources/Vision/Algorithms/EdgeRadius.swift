import CKernels
import Imaging

/// Radius of a candidate's boundary measured on the full-resolution image: the mean distance
/// from the centre of the pixels whose Sobel gradient points along the ray from the centre
/// (within about 25 degrees), weighted by that gradient. Working at full resolution keeps a
/// 2-pixel debris speck apart from a 5-pixel cell even when the pipeline's working scale
/// blurs them into the same blob.
///
/// - Parameters:
///   - image: the decoded image.
///   - x, y: centre, image pixels.
///   - r: candidate radius, image pixels; pixels up to 1.6 r are considered.
/// - Returns: the boundary radius in image pixels, 0 when no pixel qualifies.
public func boundaryRadius(_ image: Image, x: Double, y: Double, r: Double) -> Double {
    boundaryRadius(image, x: x, y: y, r: r, wide: wideConvolution)
}

/// `boundaryRadius`; `wide` runs each row through `ck_radial_row_avx` (only where the CPU
/// runs AVX: four doubles and eight floats a step, where the default target has two and
/// four) instead of the Swift loop, and reads the window with `greyWindow`'s AVX2 kernel
/// where the CPU has it, for the tests that compare the two.
func boundaryRadius(_ image: Image, x: Double, y: Double, r: Double, wide: Bool) -> Double {
    let w = image.width, h = image.height
    let outer = 1.6 * r
    guard x.isFinite, y.isFinite, outer.isFinite else { return 0 }
    let x0 = max(1, Int((x - outer).rounded(.down))), x1 = min(w - 2, Int((x + outer).rounded(.up)))
    let y0 = max(1, Int((y - outer).rounded(.down))), y1 = min(h - 2, Int((y + outer).rounded(.up)))
    guard x0 <= x1, y0 <= y1, r > 0 else { return 0 }
    // Grey values (R + 2G + B) of the window plus a one-pixel border; per column its offset
    // from the centre (its square, and as Float), per row the Sobel derivatives and the terms
    // of the pixels that pass, in column order.
    let ww = x1 - x0 + 3, wh = y1 - y0 + 3, iw = ww - 2
    var sum = 0.0, weight = 0.0
    let cosLimit: Float = 0.9
    let limit = outer * outer
    let wide = wide && wideConvolution
    // Temporary storage, not arrays: thousands of calls per image each allocated and zeroed
    // three. The window's grey values are all written before they are read, so only the
    // small column tables are zeroed first.
    withUnsafeTemporaryAllocation(of: Float.self, capacity: ww * wh + 3 * iw + 4) { floats in
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 3 * iw + 4) { doubles in
            let g = floats.baseAddress!
            greyWindow(image, x0: x0 - 1, y0: y0 - 1, width: ww, height: wh, into: g, wide: wide)
            let dx2 = doubles.baseAddress!, terms = dx2 + iw, alongs = terms + iw + 2
            let fdx = g + ww * wh, gxs = fdx + iw, gys = gxs + iw + 2
            dx2.initialize(repeating: 0, count: 3 * iw + 4)
            fdx.initialize(repeating: 0, count: 3 * iw + 4)
            for xx in 0..<iw {
                let dx = Double(x0 + xx) - x
                dx2[xx] = dx * dx
                fdx[xx] = Float(dx)
            }
            for yy in 0..<(wh - 2) {
                let dy = Double(y0 + yy) - y
                let dy2 = dy * dy
                // dx * dx + dy * dy >= dy * dy in floating point too: the row holds no
                // pixel within reach.
                guard dy2 <= limit else { continue }
                // dx * dx grows with |dx| and dx with the column, so the columns within
                // reach are one run; the per-pixel test below still decides.
                var lo = 0, hi = iw
                while lo < hi && !(dx2[lo] + dy2 <= limit) { lo &+= 1 }
                while hi > lo && !(dx2[hi &- 1] + dy2 <= limit) { hi &-= 1 }
                guard lo < hi else { continue }
                if wide {
                    ck_radial_row_avx(g, ww, yy, lo, hi, dx2, fdx, dy2, Float(dy), limit,
                                      cosLimit * cosLimit, &sum, &weight)
                    continue
                }
                sobelRow(g, width: ww, row: yy, columns: lo..<hi, gx: gxs, gy: gys)
                let passed = radialTerms(dx2: dx2, fdx: fdx, gx: gxs, gy: gys, columns: lo..<hi, dy2: dy2,
                                         fdy: Float(dy), limit: limit, cosLimit: cosLimit,
                                         terms: terms, alongs: alongs)
                // The sums run over the passing pixels in column order, as the per-pixel
                // loop adds them.
                for i in 0..<passed {
                    sum += terms[i]
                    weight += alongs[i]
                }
            }
        }
    }
    return weight > 0 ? sum / weight : 0
}

/// One row of `boundaryRadius`: for each column in `columns` whose pixel lies in reach
/// (0.25 < dx^2 + dy^2 <= limit) with a gradient pointing within acos(cosLimit) of the ray,
/// `|along| * dist` into `terms` and `|along|` into `alongs`, packed in column order.
/// Four columns at a time with the scalar formula's roundings (Double squares and root,
/// Float along); a failing lane is written too but not counted.
/// - Returns: the number of passing pixels.
@inline(__always)
private func radialTerms(dx2: UnsafePointer<Double>, fdx: UnsafePointer<Float>, gx: UnsafePointer<Float>,
                         gy: UnsafePointer<Float>, columns: Range<Int>, dy2: Double, fdy: Float, limit: Double,
                         cosLimit: Float, terms: UnsafeMutablePointer<Double>,
                         alongs: UnsafeMutablePointer<Double>) -> Int {
    typealias F = SIMD4<Float>
    typealias D = SIMD4<Double>
    @inline(__always) func loadF(_ p: UnsafePointer<Float>) -> F { UnsafeRawPointer(p).loadUnaligned(as: F.self) }
    @inline(__always) func loadD(_ p: UnsafePointer<Double>) -> D { UnsafeRawPointer(p).loadUnaligned(as: D.self) }
    let cos2 = cosLimit * cosLimit
    var n = 0
    var xx = columns.lowerBound
    while xx &+ 4 <= columns.upperBound {
        let dist2 = loadD(dx2 + xx) + D(repeating: dy2)
        let near = (dist2 .> 0.25) .& (dist2 .<= D(repeating: limit))
        let gxv = loadF(gx + xx), gyv = loadF(gy + xx)
        let g2 = gxv * gxv + gyv * gyv
        let root = dist2.squareRoot()
        let dist = F(Float(root[0]), Float(root[1]), Float(root[2]), Float(root[3]))
        let along = (gxv * loadF(fdx + xx) + gyv * F(repeating: fdy)) / dist
        let aligned = (g2 .> 0) .& (along * along .>= cos2 * g2)
        let a = D(Double(abs(along[0])), Double(abs(along[1])), Double(abs(along[2])), Double(abs(along[3])))
        let term = a * D(Double(dist[0]), Double(dist[1]), Double(dist[2]), Double(dist[3]))
        // A true mask lane is -1: `pass` is 1 where both tests hold, 0 elsewhere.
        let pass = SIMD4<Int32>(truncatingIfNeeded: unsafeBitCast(near, to: SIMD4<Int64>.self))
            & unsafeBitCast(aligned, to: SIMD4<Int32>.self) & 1
        for lane in 0..<4 {
            terms[n] = term[lane]
            alongs[n] = a[lane]
            n &+= Int(pass[lane])
        }
        xx &+= 4
    }
    while xx < columns.upperBound {
        defer { xx &+= 1 }
        let dist2 = dx2[xx] + dy2
        guard dist2 > 0.25, dist2 <= limit else { continue }
        let gxv = gx[xx], gyv = gy[xx]
        let g2 = gxv * gxv + gyv * gyv
        guard g2 > 0 else { continue }
        let dist = Float(dist2.squareRoot())
        let along = (gxv * fdx[xx] + gyv * fdy) / dist
        guard along * along >= cos2 * g2 else { continue }
        let a = Double(abs(along))
        terms[n] = a * Double(dist)
        alongs[n] = a
        n &+= 1
    }
    return n
}
