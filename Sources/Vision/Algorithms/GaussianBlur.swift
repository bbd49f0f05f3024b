import CKernels
import Foundation

/// Normalised 1-D Gaussian kernel with `radius = ceil(3 sigma)` taps each side.
///
/// - Parameter sigma: standard deviation in pixels; values <= 0 give the identity kernel `[1]`.
public func gaussianKernel(sigma: Double) -> [Float] {
    guard sigma > 0, sigma.isFinite else { return [1] }
    let radius = max(1, Int((3 * sigma).rounded(.up)))
    var weights = [Float](repeating: 0, count: 2 * radius + 1)
    var sum = 0.0
    for i in -radius...radius {
        let w = exp(-Double(i * i) / (2 * sigma * sigma))
        weights[i + radius] = Float(w)
        sum += w
    }
    for i in weights.indices { weights[i] = Float(Double(weights[i]) / sum) }
    return weights
}

/// Separable convolution with a symmetric odd-length kernel, borders replicated.
///
/// Both passes keep 16 outputs in SIMD registers while every tap is added (so no output is
/// stored and reloaded once per tap), and add the taps in kernel order starting from the
/// first, each as one fused multiply-add (`addingProduct`): the sums, and so the results, are
/// the same as the plain per-sample loop's with fused multiply-adds. Where the CPU runs AVX
/// and FMA, the rows go through `ck_convolve_row_fma` (eight lanes, the same operations in
/// the same order, so the same results): the default x86-64 target has only four-lane SSE and
/// no FMA, and these passes are most of the blob detector's time (fused, a tap costs one
/// instruction per eight outputs instead of a multiply and an add).
/// - Parameters:
///   - plane: input samples.
///   - kernel: odd number of weights, centre in the middle (e.g. from `gaussianKernel`).
public func convolveSeparable(_ plane: Plane, kernel: [Float]) -> Plane {
    convolveSeparable(plane, kernel: kernel, wide: fusedConvolution)
}

/// Whether the AVX kernels (`CKernels`) may run: checked once per process.
let wideConvolution = ck_has_avx() != 0

/// Whether `convolveSeparable` uses the AVX + FMA row kernel: checked once per process.
let fusedConvolution = ck_has_fma() != 0

/// `convolveSeparable`; `wide` picks the AVX + FMA row kernel (only when the CPU runs both)
/// or the portable one, for the tests that compare the two.
func convolveSeparable(_ plane: Plane, kernel: [Float], wide: Bool) -> Plane {
    guard plane.count > 0, kernel.count > 1, kernel.count % 2 == 1 else { return plane }
    let wide = wide && fusedConvolution
    let w = plane.width, h = plane.height
    let radius = kernel.count / 2
    var padded = [Float](repeating: 0, count: w + 2 * radius)
    // Source row of every vertical tap, clamped, for one output row; for the horizontal pass,
    // tap t reads the padded row from t on.
    var tapRows = [UnsafePointer<Float>?](repeating: nil, count: kernel.count)
    // Both passes write every sample of their plane, row by row.
    let temp = Plane(width: w, height: h) { dst in
        plane.data.withUnsafeBufferPointer { src in
            padded.withUnsafeMutableBufferPointer { pad in
                kernel.withUnsafeBufferPointer { k in
                    tapRows.withUnsafeMutableBufferPointer { rows in
                        let p = pad.baseAddress!
                        // Outputs x ..< x + count from the padded samples at `padded` on (the
                        // padded row's sample x + t is `padded[x + t]`).
                        @inline(__always) func convolve(_ padded: UnsafePointer<Float>, into o: UnsafeMutablePointer<Float>,
                                                        count: Int) {
                            if wide {
                                for t in 0..<k.count { rows[t] = padded + t }
                                ck_convolve_row_fma(k.baseAddress!, rows.baseAddress!, Int32(k.count), o, count, 0)
                            } else {
                                convolveRow(taps: k, rows: nil, padded: padded, into: o, count: count)
                            }
                        }
                        for y in 0..<h {
                            let row = src.baseAddress! + y * w
                            let o = dst + y * w
                            guard w > 2 * radius else {
                                for i in 0..<radius { pad[i] = row[0] }
                                (p + radius).update(from: row, count: w)
                                for i in 0..<radius { pad[radius &+ w &+ i] = row[w - 1] }
                                convolve(p, into: o, count: w)
                                continue
                            }
                            // Only the outputs within `radius` of an end read replicated
                            // samples: the others read the row where it lies, and copying
                            // every row into the padded buffer cost a tenth of the blur.
                            // Left: padded samples 0 ..< 3 radius, then the right end's.
                            for i in 0..<radius { pad[i] = row[0] }
                            (p + radius).update(from: row, count: 2 * radius)
                            convolve(p, into: o, count: radius)
                            convolve(row, into: o + radius, count: w - 2 * radius)
                            (p).update(from: row + (w - 2 * radius), count: 2 * radius)
                            for i in 0..<radius { pad[2 * radius &+ i] = row[w - 1] }
                            convolve(p, into: o + (w - radius), count: radius)
                        }
                    }
                }
            }
        }
    }
    let out = Plane(width: w, height: h) { dst in
        temp.data.withUnsafeBufferPointer { src in
            kernel.withUnsafeBufferPointer { k in
                tapRows.withUnsafeMutableBufferPointer { rows in
                    for y in 0..<h {
                        for t in 0..<k.count {
                            let sy = min(max(y &+ t &- radius, 0), h - 1)
                            rows[t] = UnsafePointer(src.baseAddress! + sy * w)
                        }
                        if wide {
                            ck_convolve_row_fma(k.baseAddress!, rows.baseAddress!, Int32(k.count), dst + y * w, w, 1)
                        } else {
                            convolveRow(taps: k, rows: UnsafeBufferPointer(rows), padded: nil,
                                        into: dst + y * w, count: w)
                        }
                    }
                }
            }
        }
    }
    return out
}

/// One output row of a separable pass: `out[x] = sum_t k[t] * source_t[x]`, each tap after the
/// first product one fused multiply-add, where source t is `padded + t` (horizontal pass) or
/// `rows[t]` (vertical pass). Vertical sums start from 0 (as the reference loop does),
/// horizontal ones from the first product.
@inline(__always)
private func convolveRow(taps k: UnsafeBufferPointer<Float>, rows: UnsafeBufferPointer<UnsafePointer<Float>?>?,
                         padded: UnsafePointer<Float>?, into o: UnsafeMutablePointer<Float>, count w: Int) {
    typealias V = SIMD4<Float>
    @inline(__always) func source(_ t: Int) -> UnsafePointer<Float> {
        if let rows { return rows[t]! }
        return padded! + t
    }
    @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
    var x = 0
    while x &+ 16 <= w {
        var a0: V, a1: V, a2: V, a3: V
        let s0 = source(0) + x, k0 = k[0]
        if rows != nil {
            a0 = V(repeating: 0); a1 = a0; a2 = a0; a3 = a0
            a0 += k0 * load(s0); a1 += k0 * load(s0 + 4); a2 += k0 * load(s0 + 8); a3 += k0 * load(s0 + 12)
        } else {
            a0 = k0 * load(s0); a1 = k0 * load(s0 + 4); a2 = k0 * load(s0 + 8); a3 = k0 * load(s0 + 12)
        }
        for t in 1..<k.count {
            let st = source(t) + x, kt = k[t]
            a0 = a0.addingProduct(kt, load(st)); a1 = a1.addingProduct(kt, load(st + 4))
            a2 = a2.addingProduct(kt, load(st + 8)); a3 = a3.addingProduct(kt, load(st + 12))
        }
        let ox = UnsafeMutableRawPointer(o + x)
        ox.storeBytes(of: a0, as: V.self)
        ox.storeBytes(of: a1, toByteOffset: 16, as: V.self)
        ox.storeBytes(of: a2, toByteOffset: 32, as: V.self)
        ox.storeBytes(of: a3, toByteOffset: 48, as: V.self)
        x &+= 16
    }
    while x < w {
        var acc: Float = rows != nil ? 0 + k[0] * source(0)[x] : k[0] * source(0)[x]
        for t in 1..<k.count { acc = acc.addingProduct(k[t], source(t)[x]) }
        o[x] = acc
        x &+= 1
    }
}

/// Gaussian blur, borders replicated.
///
/// - Parameter sigma: standard deviation in pixels. Up to `directLimit` the kernel is applied
///   directly; above it three successive box blurs with the same variance approximate the
///   Gaussian at a cost independent of sigma.
public func gaussianBlur(_ plane: Plane, sigma: Double, directLimit: Double = 6) -> Plane {
    guard sigma > 0 else { return plane }
    if sigma <= directLimit { return convolveSeparable(plane, kernel: gaussianKernel(sigma: sigma)) }
    // Three box passes whose variances add up to sigma^2 (Kovesi's mix of two odd widths).
    let passes = 3.0
    let ideal = (12 * sigma * sigma / passes + 1).squareRoot()
    var lower = Int(ideal.rounded(.down))
    if lower % 2 == 0 { lower -= 1 }
    let upper = lower + 2
    let wl = Double(lower)
    let m = Int(((12 * sigma * sigma - passes * wl * wl - 4 * passes * wl - 3 * passes) / (-4 * wl - 4)).rounded())
    var out = plane
    for pass in 0..<3 { out = boxBlur(out, radius: (pass < m ? lower : upper) / 2) }
    return out
}

/// Mean over a (2 radius + 1)^2 square window, borders replicated; O(1) per pixel.
///
/// - Parameter radius: half window size in pixels; 0 returns the input.
public func boxBlur(_ plane: Plane, radius: Int) -> Plane {
    guard radius > 0, plane.count > 0 else { return plane }
    let w = plane.width, h = plane.height
    let norm = 1 / Float(2 * radius + 1)
    var temp = Plane(width: w, height: h)
    plane.data.withUnsafeBufferPointer { src in
        temp.data.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                let row = src.baseAddress! + y * w
                let o = dst.baseAddress! + y * w
                var acc: Float = 0
                for i in -radius...radius { acc += row[min(max(i, 0), w - 1)] }
                for x in 0..<w {
                    o[x] = acc * norm
                    let add = row[min(x &+ radius &+ 1, w - 1)]
                    let sub = row[max(x &- radius, 0)]
                    acc += add - sub
                }
            }
        }
    }
    var out = Plane(width: w, height: h)
    var acc = [Float](repeating: 0, count: w)
    temp.data.withUnsafeBufferPointer { src in
        out.data.withUnsafeMutableBufferPointer { dst in
            acc.withUnsafeMutableBufferPointer { a in
                let base = src.baseAddress!
                for i in -radius...radius {
                    let r = base + min(max(i, 0), h - 1) * w
                    for x in 0..<w { a[x] += r[x] }
                }
                for y in 0..<h {
                    let o = dst.baseAddress! + y * w
                    for x in 0..<w { o[x] = a[x] * norm }
                    let add = base + min(y &+ radius &+ 1, h - 1) * w
                    let sub = base + max(y &- radius, 0) * w
                    for x in 0..<w { a[x] += add[x] - sub[x] }
                }
            }
        }
    }
    return out
}
