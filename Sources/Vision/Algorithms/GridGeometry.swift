import CKernels
import Foundation

/// Histogram of gradient orientations (0 ..< 180 degrees, 1-degree bins), each pixel weighted
/// by its gradient magnitude; pixels below `minMagnitude` are skipped.
///
/// - Parameters:
///   - plane: input (flattened luminance or a contrast map).
///   - minMagnitude: central-difference gradient magnitude threshold, plane units per pixel.
public func orientationHistogram(_ plane: Plane, minMagnitude: Float) -> [Double] {
    var hist = [Double](repeating: 0, count: 180)
    let w = plane.width, h = plane.height
    guard w >= 3, h >= 3 else { return hist }
    let minSq = minMagnitude * minMagnitude
    typealias V = SIMD4<Float>
    @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
    plane.data.withUnsafeBufferPointer { d in
        hist.withUnsafeMutableBufferPointer { hb in
            let bins = hb.baseAddress!
            // Pixels are added in x order within each row, as the plain loop adds them.
            @inline(__always) func add(_ m2: Float, _ bin: Int) {
                bins[bin] += Double(m2.squareRoot())
            }
            for y in 1..<(h - 1) {
                let c = d.baseAddress! + y * w
                var x = 1
                // Four pixels at a time up to the arctangent polynomial's angle (the same
                // operations as `orientationBin`, lane by lane); the bin test and the additions
                // per pixel.
                while x &+ 4 <= w &- 1 {
                    let gx = (load(c + (x &+ 1)) - load(c + (x &- 1))) * 0.5
                    let gy = (load(c + (x &+ w)) - load(c + (x &- w))) * 0.5
                    let m2 = gx * gx + gy * gy
                    x &+= 4
                    // Flat background: often no pixel of the four is counted.
                    let counted = .!(m2 .< V(repeating: minSq))
                    if !any(counted) { continue }
                    let (degrees, usable) = orientationDegrees(gy, gx)
                    let (bin, sure) = orientationBins(degrees: degrees)
                    let fast = usable .& sure
                    // sqrtps rounds each lane as sqrtss does.
                    let magnitude = m2.squareRoot()
                    for lane in 0..<4 where counted[lane] {
                        bins[fast[lane] ? Int(bin[lane]) : orientationBin(gy[lane], gx[lane])] += Double(magnitude[lane])
                    }
                }
                while x < w &- 1 {
                    let gx = (c[x &+ 1] - c[x &- 1]) * 0.5, gy = (c[x &+ w] - c[x &- w]) * 0.5
                    let m2 = gx * gx + gy * gy
                    x &+= 1
                    if m2 < minSq { continue }
                    add(m2, orientationBin(gy, gx))
                }
            }
        }
    }
    return hist
}

/// `orientationBin`'s polynomial angle in degrees (0 ... 180) for four gradients, and where
/// it is usable (finite, non-zero gradients; elsewhere the angle is meaningless).
@inline(__always)
func orientationDegrees(_ gy: SIMD4<Float>, _ gx: SIMD4<Float>) -> (SIMD4<Float>, SIMDMask<SIMD4<Int32>>) {
    typealias V = SIMD4<Float>
    // abs: the sign bit cleared.
    let magnitude = SIMD4<UInt32>(repeating: 0x7fff_ffff)
    let ax = unsafeBitCast(unsafeBitCast(gx, to: SIMD4<UInt32>.self) & magnitude, to: V.self)
    let ay = unsafeBitCast(unsafeBitCast(gy, to: SIMD4<UInt32>.self) & magnitude, to: V.self)
    let usable = (ax + ay .> 0) .& (ax .< .infinity) .& (ay .< .infinity)
    // Swift's min(a, b) is `b < a ? b : a`, max(a, b) `b >= a ? b : a`.
    let lo = ax.replacing(with: ay, where: ay .< ax), hi = ax.replacing(with: ay, where: ay .>= ax)
    let t = lo / hi, t2 = t * t
    // The scalar polynomial's Horner steps, innermost first.
    let c5: Float = -0.011_721_20, c4: Float = 0.052_653_32, c3: Float = -0.116_432_87
    let c2: Float = 0.193_543_46, c1: Float = -0.332_623_47, c0: Float = 0.999_977_26
    var p: V = c4 + t2 * c5
    p = c3 + t2 * p
    p = c2 + t2 * p
    p = c1 + t2 * p
    p = c0 + t2 * p
    var r = t * p
    r.replace(with: V(repeating: .pi / 2) - r, where: ay .> ax)
    r.replace(with: V(repeating: .pi) - r, where: gx .< 0)
    let scaled = r * (180 / Float.pi)
    let degrees = scaled.replacing(with: 180 - scaled, where: gy .< 0)
    return (degrees, usable)
}

/// The bins of four polynomial angles as `orientationBin`'s fast path takes them,
/// `min(179, Int(degrees))`, and where that path takes them (the angle further than
/// `orientationBinMargin` from `Float(Int(degrees + 0.5))`). Angles must lie in 0 ... 180
/// where the result is used; truncation of those non-negative values is done as floor with
/// the 1.5 * 2^23 trick (round to nearest, then one step down where that went up).
@inline(__always)
func orientationBins(degrees: SIMD4<Float>) -> (SIMD4<Int32>, SIMDMask<SIMD4<Int32>>) {
    typealias V = SIMD4<Float>
    @inline(__always) func floor(_ v: V) -> V {
        let magic = V(repeating: 12_582_912)
        let nearest = (v + magic) - magic
        return nearest.replacing(with: nearest - 1, where: nearest .> v)
    }
    let nearestEdge = floor(degrees + 0.5)
    let offset = unsafeBitCast(unsafeBitCast(degrees - nearestEdge, to: SIMD4<UInt32>.self)
        & SIMD4<UInt32>(repeating: 0x7fff_ffff), to: V.self)
    let sure = offset .> V(repeating: orientationBinMargin)
    let bin = floor(degrees.replacing(with: 179, where: .!(degrees .< 179)))
    // Integers 0 ... 179 in Float: the low mantissa bits of v + 2^23 hold them.
    let bits = unsafeBitCast(bin + 8_388_608, to: SIMD4<Int32>.self) &- Int32(bitPattern: Float(8_388_608).bitPattern)
    return (bits, sure)
}

/// The 1-degree bin (0 ... 179) of the gradient direction `atan2(gy, gx)` folded to 0 ..< 180
/// degrees, exactly as `Int(atan2(gy, gx) * (180 / pi) (+ 180 when negative))` bins it.
///
/// A polynomial arctangent (error under 2e-5 degrees, measured against Double atan2 over 10^8
/// directions) gives the bin directly unless the angle lies within `orientationBinMargin` of
/// a bin edge; only those few pixels pay for libm's atan2f, so bins stay bit-identical.
@inline(__always)
func orientationBin(_ gy: Float, _ gx: Float) -> Int {
    let ax = abs(gx), ay = abs(gy)
    if ax + ay > 0, ax.isFinite, ay.isFinite {
        // atan of the smaller over the larger component (0 ... 45 degrees), then unfolded.
        let t = min(ax, ay) / max(ax, ay), t2 = t * t
        var r = t * (0.999_977_26 + t2 * (-0.332_623_47 + t2 * (0.193_543_46 + t2 * (-0.116_432_87
            + t2 * (0.052_653_32 + t2 * -0.011_721_20)))))
        if ay > ax { r = .pi / 2 - r }
        if gx < 0 { r = .pi - r }
        // Folded to 0 ..< 180 degrees: the sign of gy only mirrors the direction.
        let degrees = gy < 0 ? 180 - r * (180 / .pi) : r * (180 / .pi)
        let nearest = Float(Int(degrees + 0.5))
        if abs(degrees - nearest) > orientationBinMargin {
            return min(179, Int(degrees))
        }
    }
    var a = atan2(gy, gx) * (180 / Float.pi)
    if a < 0 { a += 180 }
    return min(179, Int(a))
}

/// Distance from a bin edge (degrees) within which `orientationBin` asks libm.
let orientationBinMargin: Float = 0.01

/// The two perpendicular-ish families of straight lines in an orientation histogram:
/// the pair of peaks (theta, theta + 90 +- `tolerance`) with the largest combined weight.
///
/// - Returns: gradient directions of the two families in degrees (sub-bin refined by a
///   parabola) and the pair's share of the total weight above a uniform histogram's
///   (0 = no preferred direction).
public func perpendicularPeaks(_ histogram: [Double], tolerance: Int = 4) -> (first: Double, second: Double, strength: Double) {
    let n = histogram.count
    guard n == 180 else { return (0, 90, 0) }
    // Circular 3-bin smoothing.
    var s = [Double](repeating: 0, count: n)
    for i in 0..<n { s[i] = histogram[(i + n - 1) % n] + histogram[i] + histogram[(i + 1) % n] }
    let total = s.reduce(0, +)
    guard total > 0 else { return (0, 90, 0) }
    var best = (i: 0, j: 90, v: -1.0)
    for i in 0..<90 {
        var bj = (i + 90) % n, bv = -1.0
        for d in -tolerance...tolerance {
            let j = (i + 90 + d + n) % n
            if s[j] > bv { bv = s[j]; bj = j }
        }
        // The first family must itself be a local peak within the tolerance too.
        var ai = i, av = s[i]
        for d in -tolerance...tolerance {
            let k = (i + d + n) % n
            if s[k] > av { av = s[k]; ai = k }
        }
        if av + bv > best.v { best = (ai, bj, av + bv) }
    }
    func refine(_ i: Int) -> Double {
        Double(i) + 0.5 + parabolaMaximumOffset(s[(i + n - 1) % n], s[i], s[(i + 1) % n])
    }
    // Two peaks 3 bins wide in a uniform histogram would hold 6/180 of the weight.
    let share = (s[best.i] + s[best.j]) / 3 / total
    let strength = max(0, (share - 6.0 / 180) / (1 - 6.0 / 180))
    return (refine(best.i), refine(best.j), strength)
}

/// Mean of `plane` along parallel lines: bin k holds pixels whose coordinate along the unit
/// normal (cos a, sin a) falls in [origin + k, origin + k + 1).
///
/// - Parameters:
///   - normalAngle: direction of the normal, radians.
/// - Returns: the profile and the coordinate of its first bin.
public func projectionProfile(_ plane: Plane, normalAngle: Double) -> (profile: [Double], origin: Double) {
    projectionProfiles(plane, normalAngles: [normalAngle])[0]
}

/// `projectionProfile` at several normal angles, sharing the plane's running sums.
///
/// A pixel's bin is `Int(base(y) + Float(x) * Float(cos a))` clamped to the profile, with
/// `base(y) = Float(y * sin a - origin)`: monotone along a row and along a column, so each
/// row (or column) falls into runs of one bin. A run adds the difference of two running sums
/// (`PlaneRunningSums`) to its bin: one addition per run instead of per pixel (`forEachRun`).
/// Directions nearer the x axis are walked along rows, the others along columns, whichever
/// gives the longer runs; directions near the diagonals, whose runs are a pixel or two long
/// either way, add pixel by pixel (`ProjectionLayout.scatter`). Bins and pixel counts are
/// exact; sums differ from pixel-by-pixel addition in the last bits.
public func projectionProfiles(_ plane: Plane, normalAngles: [Double]) -> [(profile: [Double], origin: Double)] {
    let w = plane.width, h = plane.height
    guard w > 0, h > 0 else { return normalAngles.map { _ in ([], 0) } }
    let layouts = normalAngles.map { ProjectionLayout(width: w, height: h, normalAngle: $0) }
    let sums = PlaneRunningSums(plane, alongRows: layouts.contains { !$0.scattered && !$0.alongColumns },
                                alongColumns: layouts.contains { !$0.scattered && $0.alongColumns })
    for layout in layouts {
        if layout.scattered { layout.scatter(plane) } else { layout.accumulate(sums) }
    }
    return layouts.map { $0.profile(width: w, height: h) }
}

/// Running sums of a plane in Double: along each row (`rows[y * (w + 1) + x]` = samples 0 ..< x
/// of row y) and along each column (`columns[y * w + x]` = samples 0 ..< y of column x); either
/// may be left empty when no direction needs it.
struct PlaneRunningSums {
    let width: Int, height: Int
    var rows: [Double] = [], columns: [Double] = []

    init(_ plane: Plane, alongRows: Bool, alongColumns: Bool) {
        let w = plane.width, h = plane.height
        width = w
        height = h
        plane.data.withUnsafeBufferPointer { d in
            let src = d.baseAddress!
            if alongRows {
                rows = [Double](unsafeUninitializedCapacity: (w + 1) * h) { r, initialized in
                    let out = r.baseAddress!
                    // Four rows side by side: four independent chains of additions.
                    var y = 0
                    while y + 4 <= h {
                        let i0 = src + y * w, i1 = i0 + w, i2 = i1 + w, i3 = i2 + w
                        let o0 = out + y * (w + 1), o1 = o0 + (w + 1), o2 = o1 + (w + 1), o3 = o2 + (w + 1)
                        var a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0
                        o0[0] = 0; o1[0] = 0; o2[0] = 0; o3[0] = 0
                        for x in 0..<w {
                            a0 += Double(i0[x]); a1 += Double(i1[x]); a2 += Double(i2[x]); a3 += Double(i3[x])
                            o0[x &+ 1] = a0; o1[x &+ 1] = a1; o2[x &+ 1] = a2; o3[x &+ 1] = a3
                        }
                        y += 4
                    }
                    while y < h {
                        let i0 = src + y * w, o0 = out + y * (w + 1)
                        var a0 = 0.0
                        o0[0] = 0
                        for x in 0..<w {
                            a0 += Double(i0[x])
                            o0[x &+ 1] = a0
                        }
                        y += 1
                    }
                    initialized = (w + 1) * h
                }
            }
            if alongColumns {
                columns = [Double](unsafeUninitializedCapacity: w * (h + 1)) { c, initialized in
                    let out = c.baseAddress!
                    for x in 0..<w { out[x] = 0 }
                    for y in 0..<h {
                        let above = out + y * w, here = out + (y + 1) * w, row = src + y * w
                        for x in 0..<w { here[x] = above[x] + Double(row[x]) }
                    }
                    initialized = w * (h + 1)
                }
            }
        }
    }
}

/// The maximal runs of a monotone integer function over 0 ..< n with values in 0 ... top:
/// `body(value, start, end)` for each. The function truncates (clamped to 0 ... top) a
/// rounded evaluation of the line start + i * slope that is never further than `error` from
/// it. Where the line is clearly inside a bin the line decides; within `error` of an edge, or
/// at a clamped end, the exact function does.
@inline(__always)
func forEachRun(count n: Int, top: Int, start: Double, slope: Double, error: Double, _ value: (Int) -> Int,
                        _ body: (_ value: Int, _ start: Int, _ end: Int) -> Void) {
    guard n > 0 else { return }
    let step = slope != 0 ? 1 / slope : 0
    // Where the line leaves [c, c + 1): c + 1 going up, c going down.
    let exit = slope > 0 ? 1.0 : 0.0, direction = slope > 0 ? 1 : -1
    // Trust the line only with a clear margin (and not at all when rounding could be large).
    let margin = 2 * error + 1.0 / 1024
    let trusted = margin < 0.25
    var a = 0, c = value(0)
    while a < n {
        // Clamped at the end it runs towards: the rest of the range.
        if slope == 0 || (slope > 0 && c == top) || (slope < 0 && c == 0) {
            body(c, a, n)
            return
        }
        // A guess within a step or two of the run's end.
        let edge = Double(c) + exit
        let guess = (edge - start) * step + 1
        var b = guess.isFinite ? Int(min(Double(n), max(Double(a + 1), guess))) : n
        // Inside: the line at b - 1 on c's side of the edge, at b on the other, both clearly.
        let inside = start + Double(b - 1) * slope, outside = start + Double(b) * slope
        var next: Int
        if trusted && b < n && (inside - edge) * Double(direction) <= -margin && (outside - edge) * Double(direction) >= margin {
            // The next bin: c + direction when the line at b is clearly within it.
            let far = edge + Double(direction)
            next = (outside - far) * Double(direction) <= -margin ? c + direction : value(b)
        } else {
            while b > a + 1 && value(b - 1) != c { b -= 1 }
            next = b < n ? value(b) : c
            while b < n && next == c {
                b += 1
                if b < n { next = value(b) }
            }
        }
        body(c, a, b)
        a = b
        c = next
    }
}

/// One projection's bins and their sums and pixel counts.
private final class ProjectionLayout {
    /// Bin change per pixel along the walk from which pixels are added one by one
    /// (`scatter`) rather than run by run (`accumulate`).
    static let scatterSlope = 0.35
    let ny: Double, lo: Double, bins: Int, fx: Float
    /// Walk columns (runs along y) rather than rows.
    let alongColumns: Bool
    /// Runs shorter than 1 / `scatterSlope` pixels: added pixel by pixel.
    let scattered: Bool
    var sums: [Double], counts: [Double]

    init(width w: Int, height h: Int, normalAngle: Double) {
        let nx = cos(normalAngle)
        ny = sin(normalAngle)
        let corners = [0.0, nx * Double(w - 1), ny * Double(h - 1), nx * Double(w - 1) + ny * Double(h - 1)]
        lo = corners.min()!
        bins = Int(corners.max()! - lo) + 1
        fx = Float(nx)
        alongColumns = abs(nx) > abs(ny)
        scattered = min(abs(nx), abs(ny)) >= Self.scatterSlope
        sums = [Double](repeating: 0, count: bins)
        counts = sums
    }

    /// Each row's coordinate across the lines, less the profile's origin: a pixel's bin is
    /// `Int(base + Float(x) * fx)`, the same in `scatter` and `accumulate`.
    private func rowBases(height h: Int) -> [Float] { (0..<h).map { Float(Double($0) * ny - lo) } }

    /// Adds every pixel's sample and count to its bin, pixel by pixel: for directions whose
    /// runs are a pixel or two long, where finding runs costs more than it saves (a branch per
    /// pixel the CPU cannot predict). The bin is `accumulate`'s, `Int(base(y) + Float(x) * fx)`
    /// clamped. Each row's pixels go round four partial sums by column (x mod 4): pixels four
    /// apart lie in different bins (the bin moves by at least `scatterSlope` a pixel), so no
    /// addition waits for the one before it.
    func scatter(_ plane: Plane) {
        let w = plane.width, h = plane.height, fx = fx, bins = bins
        guard w > 0, h > 0 else { return }
        let along = (0..<w).map { Float($0) * fx }
        let bases = rowBases(height: h)
        // Bin-major, four lanes per bin (one cache line holds a bin's partial sums), with a
        // guard bin at either end for what rounding puts just outside the profile (a
        // coordinate lies within a few ulps of it); the guards join the end bins.
        var partial = [Double](repeating: 0, count: 4 * (bins + 2))
        var pixels = [Int32](repeating: 0, count: 4 * (bins + 2))
        ck_projection_scatter(plane.data, w, h, along, bases, bins, &partial, &pixels)
        // Into local arrays: the class's own are checked for exclusive access at every use.
        var binSums = [Double](repeating: 0, count: bins), binCounts = binSums
        partial.withUnsafeBufferPointer { p in
            pixels.withUnsafeBufferPointer { c in
                func lanes(_ k: Int) -> (sum: Double, count: Double) {
                    let i = 4 * k
                    return ((p[i] + p[i + 1]) + (p[i + 2] + p[i + 3]), Double(c[i] + c[i + 1] + c[i + 2] + c[i + 3]))
                }
                for bin in 0..<bins { (binSums[bin], binCounts[bin]) = lanes(bin + 1) }
                let below = lanes(0), above = lanes(bins + 1)
                binSums[0] += below.sum
                binCounts[0] += below.count
                binSums[bins - 1] += above.sum
                binCounts[bins - 1] += above.count
            }
        }
        sums = binSums
        counts = binCounts
    }

    /// Adds every pixel's sample and count to its bin, run by run.
    func accumulate(_ running: PlaneRunningSums) {
        let w = running.width, h = running.height, last = bins - 1, fx = fx
        // Every Float in a bin coordinate (row base, origin, products, sums) lies within
        // -(bins + 2) ... bins + 2, so each rounding moves it by at most half an ulp there; the
        // coordinate against the line takes at most four of them (the column walk's: the
        // sum, the row base, and the start's sum and base).
        let error = 2 * Double(Float(bins + 2).ulp)
        let bases = rowBases(height: h)
        sums.withUnsafeMutableBufferPointer { sb in
            counts.withUnsafeMutableBufferPointer { cb in
                bases.withUnsafeBufferPointer { bb in
                    let sums = sb.baseAddress!, counts = cb.baseAddress!, base = bb.baseAddress!
                    if alongColumns {
                        running.columns.withUnsafeBufferPointer { cs in
                            let c = cs.baseAddress!
                            for x in 0..<w {
                                let along = Float(x) * fx
                                forEachRun(count: h, top: last, start: Double(base[0] + along), slope: ny, error: error,
                                           { min(last, max(0, Int(base[$0] + along))) }) { bin, y0, y1 in
                                    sums[bin] += c[y1 * w + x] - c[y0 * w + x]
                                    counts[bin] += Double(y1 - y0)
                                }
                            }
                        }
                    } else {
                        running.rows.withUnsafeBufferPointer { rs in
                            for y in 0..<h {
                                let r = rs.baseAddress! + y * (w + 1), b = base[y]
                                forEachRun(count: w, top: last, start: Double(b), slope: Double(fx), error: error,
                                           { min(last, max(0, Int(b + Float($0) * fx))) }) { bin, x0, x1 in
                                    sums[bin] += r[x1] - r[x0]
                                    counts[bin] += Double(x1 - x0)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Bin means, the sparse corner bins trimmed off.
    func profile(width w: Int, height h: Int) -> (profile: [Double], origin: Double) {
        var profile = [Double](repeating: 0, count: bins)
        for i in 0..<bins { profile[i] = counts[i] > 0 ? sums[i] / counts[i] : 0 }
        // Bins near the image corners hold few pixels and are noisy: replace by the neighbour.
        let minCount = Double(min(w, h)) * 0.25
        var firstGood = 0, lastGood = bins - 1
        while firstGood < bins - 1 && counts[firstGood] < minCount { firstGood += 1 }
        while lastGood > 0 && counts[lastGood] < minCount { lastGood -= 1 }
        if firstGood <= lastGood {
            return (Array(profile[firstGood...lastGood]), lo + Double(firstGood))
        }
        return (profile, lo)
    }
}

/// Dominant period of a 1-D profile by normalised autocorrelation after removing the trend
/// (a moving average one `maxLag` wide).
///
/// - Parameters:
///   - minLag, maxLag: period search range, samples.
/// - Returns: period (sub-sample refined), its autocorrelation (0 ... 1, higher = more
///   periodic) and the phase: position of the strongest line of the folded profile relative to
///   the profile start.
public func dominantPeriod(_ profile: [Double], minLag: Double, maxLag: Double) -> (period: Double, strength: Double, phase: Double)? {
    let n = profile.count
    let lo = max(2, Int(minLag.rounded(.down))), hi = min(Int(maxLag.rounded(.up)), n / 2)
    guard lo < hi else { return nil }
    let d = detrendedProfile(profile, halfWindow: max(1, hi / 2))
    var energy = 0.0
    for v in d { energy += v * v }
    guard energy > 1e-12 else { return nil }
    var ac = [Double](repeating: 0, count: hi + 2)
    for lag in max(1, lo - 1)...(hi + 1) where lag < n {
        var s = 0.0
        for i in 0..<(n - lag) { s += d[i] * d[i + lag] }
        // Normalise by the overlap so long lags are not penalised.
        ac[lag] = s / energy * Double(n) / Double(n - lag)
    }
    var bestLag = lo, bestVal = -Double.infinity
    for lag in lo...hi where ac[lag] > bestVal && ac[lag] >= ac[lag - 1] && ac[lag] >= ac[lag + 1] {
        bestVal = ac[lag]
        bestLag = lag
    }
    guard bestVal > 0 else { return nil }
    // Prefer the fundamental: the smallest local peak nearly as strong as the best.
    for lag in lo..<bestLag where ac[lag] >= 0.6 * bestVal && ac[lag] >= ac[lag - 1] && ac[lag] >= ac[lag + 1] {
        let ratio = Double(bestLag) / Double(lag)
        if abs(ratio - ratio.rounded()) < 0.1 {
            bestLag = lag
            bestVal = ac[lag]
            break
        }
    }
    let period = Double(bestLag) + parabolaMaximumOffset(ac[bestLag - 1], ac[bestLag], ac[bestLag + 1])
    // Phase: fold the detrended profile at the period and take the strongest bin.
    let bins = max(1, Int(period.rounded()))
    var fold = [Double](repeating: 0, count: bins), cnt = [Double](repeating: 0, count: bins)
    for i in 0..<n {
        let b = Int((Double(i).truncatingRemainder(dividingBy: period)).rounded(.down)) % bins
        fold[b] += d[i]
        cnt[b] += 1
    }
    var phase = 0, phaseVal = -Double.infinity
    for i in 0..<bins where cnt[i] > 0 && fold[i] / cnt[i] > phaseVal {
        phaseVal = fold[i] / cnt[i]
        phase = i
    }
    return (period, min(1, ac[bestLag]), Double(phase))
}

/// A profile minus its moving mean over `2 * halfWindow + 1` bins (fewer at the ends).
func detrendedProfile(_ profile: [Double], halfWindow: Int) -> [Double] {
    let n = profile.count
    var prefix = [Double](repeating: 0, count: n + 1)
    for i in 0..<n { prefix[i + 1] = prefix[i] + profile[i] }
    return (0..<n).map { i in
        let a = max(0, i - halfWindow), b = min(n, i + halfWindow + 1)
        return profile[i] - (prefix[b] - prefix[a]) / Double(b - a)
    }
}
