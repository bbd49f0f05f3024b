import Foundation
import Imaging

/// Re-locates a candidate's centre by letting its boundary vote (a local circle Hough
/// transform on the full-resolution image).
///
/// Why: DoG peaks of touching cells repel each other (each blob's negative surround overlaps
/// its neighbour), so a cell pressed against another is found 0.5-1 radius off its centre,
/// outside the matching tolerance. Every edge of a round cell — dark rim, clear centre, halo,
/// either polarity — lies on a ray from the true centre, so each strong gradient pixel votes
/// along its gradient line (both ways, at distances 0.3 r ... 1.4 r); the neighbour's edges
/// vote for the neighbour's own centre, about two radii away.
///
/// - Parameters:
///   - image: the decoded image.
///   - x, y: start centre, image pixels.
///   - r: candidate radius, image pixels.
///   - search: the new centre must lie within `search * r` of the start.
/// Only the ridge of each edge votes (Canny's non-maximum suppression, `isEdgeRidge`), as in
/// the usual Hough circle transforms: a blurred rim's flanks would cast their votes along the
/// same lines again, which costs two to three times the votes for the same peak.
/// - Returns: the voted centre, or the start when the window is degenerate or holds no
///   clear peak.
public func voteCentre(_ image: Image, x: Double, y: Double, r: Double, search: Double = 0.7)
    -> (x: Double, y: Double) {
    var scratch = VoteScratch()
    return voteCentre(image, x: x, y: y, r: r, search: search, scratch: &scratch)
}

/// Storage `voteCentre` reuses from one call to the next: the candidates stage votes a few
/// thousand times per image, and allocating and zeroing the windows each time cost as much
/// as a fifth of the voting.
struct VoteScratch {
    fileprivate var grey: [Float] = []
    fileprivate var shifted: [Float] = []
    fileprivate var gxs: [Float] = []
    fileprivate var gys: [Float] = []
    fileprivate var mags: [Float] = []
    fileprivate var acc: [Float] = []
    fileprivate var bucket: [Float] = []
    fileprivate var counts: [Int32] = []

    /// Grows `buffer` to at least `count` samples; what it held is not kept.
    fileprivate static func reserve(_ buffer: inout [Float], _ count: Int) {
        if buffer.count < count { buffer = [Float](repeating: 0, count: count) }
    }
}

/// `voteCentre` with its buffers in `scratch`; every buffer sample it reads is written first.
/// `wide` reads the window with the AVX2 kernel where the CPU has it (`greyWindow`), for the
/// tests that compare the two. With `lineStep` (a whole-pixel step along a straight ruling
/// line through the window, a few radii long), the window minus the mean of its two copies
/// that step either way votes: the line cancels, the cell stays (its copies lie beyond the
/// voting annulus). Ignored where a copy would reach past the image.
func voteCentre(_ image: Image, x: Double, y: Double, r: Double, search: Double = 0.7,
                scratch: inout VoteScratch, wide: Bool = wideGrey, lineStep: PixelStep? = nil,
                quiet: QuietDirections = .none) -> (x: Double, y: Double) {
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
    let iw = ww - 2, ih = wh - 2
    VoteScratch.reserve(&scratch.grey, ww * wh)
    // Sobel components and magnitudes; only pixels well above the window's median gradient
    // vote (flat background and noise stay silent without an image-wide noise estimate).
    VoteScratch.reserve(&scratch.gxs, iw * ih)
    VoteScratch.reserve(&scratch.gys, iw * ih)
    VoteScratch.reserve(&scratch.mags, iw * ih)
    scratch.grey.withUnsafeMutableBufferPointer { g in
        greyWindow(image, x0: x0 - 1, y0: y0 - 1, width: ww, height: wh, into: g.baseAddress!, wide: wide)
    }
    if let step = lineStep {
        subtractCopies(image, x0: x0 - 1, y0: y0 - 1, width: ww, height: wh, step: step, scratch: &scratch, wide: wide)
    }
    scratch.grey.withUnsafeBufferPointer { g in
        scratch.gxs.withUnsafeMutableBufferPointer { gxo in
            scratch.gys.withUnsafeMutableBufferPointer { gyo in
                scratch.mags.withUnsafeMutableBufferPointer { mo in
                    for yy in 0..<ih {
                        let k0 = yy &* iw
                        sobelRow(g.baseAddress!, width: ww, row: yy, gx: gxo.baseAddress! + k0, gy: gyo.baseAddress! + k0)
                        for xx in 0..<iw {
                            let gx = gxo[k0 &+ xx], gy = gyo[k0 &+ xx]
                            mo[k0 &+ xx] = (gx * gx + gy * gy).squareRoot()
                        }
                    }
                }
            }
        }
    }
    let windowCount = iw * ih
    let floor = 2 * scratch.mags.withUnsafeBufferPointer { m in
        selectKthNonNegative(UnsafeBufferPointer(rebasing: m[0..<windowCount]), windowCount / 2,
                             scratch: &scratch.bucket, counts: &scratch.counts)
    }
    // Accumulator over the search disc, one bin per image pixel.
    let sr = Int((search * r).rounded(.up))
    let side = 2 * sr + 1
    // Four spare bins past the end take the votes that fall outside the accumulator (one per
    // lane, so they do not queue on one bin), so the vector path scatters without a branch;
    // the peak search never reads them.
    let spare = side * side
    VoteScratch.reserve(&scratch.acc, spare + 4)
    scratch.acc.withUnsafeMutableBufferPointer { $0.baseAddress!.update(repeating: 0, count: spare + 4) }
    let ax0 = Int(x.rounded()) - sr, ay0 = Int(y.rounded()) - sr
    let inner = Float(0.3 * r), far = Float(outer)
    let steps = max(2, Int((far - inner).rounded(.up)))
    let dstep = (far - inner) / Float(steps)
    let bins = UInt(bitPattern: side)
    // Votes lie within `far` of a window pixel; the accumulator origin within the image's
    // size plus the window of it.
    let reach = Float(max(w, h)) + far + Float(side)
    let vectorVotes = reach < vectorRoundingLimit && Float(abs(ax0)) < vectorRoundingLimit
        && Float(abs(ay0)) < vectorRoundingLimit
    let ballot = VoteBallot(originX: Int32(truncatingIfNeeded: ax0), originY: Int32(truncatingIfNeeded: ay0),
                            side: Int32(truncatingIfNeeded: side), spare: Int32(truncatingIfNeeded: spare),
                            inner: inner, dstep: dstep, steps: steps)
    // Bins read below lie within sr + sqrt(2) of the accumulator's centre, and a vote lands
    // within sqrt(0.5) of its bin: votes beyond sr + 2.5 are never read.
    let centreX = Float(ax0 + sr), centreY = Float(ay0 + sr)
    let reach2 = (Float(sr) + 2.5) * (Float(sr) + 2.5)
    scratch.acc.withUnsafeMutableBufferPointer { a in
        scratch.gxs.withUnsafeBufferPointer { gxv in
            scratch.gys.withUnsafeBufferPointer { gyv in
                scratch.mags.withUnsafeBufferPointer { mv in
                    // The votes of a voting pixel (xx, yy), k = yy * iw + xx, magnitude m.
                    @inline(__always) func vote(_ k: Int, _ xx: Int, _ yy: Int, _ m: Float) {
                        let py = Float(y0 + yy)
                        let ux = gxv[k] / m, uy = gyv[k] / m
                        let px = Float(x0 + xx)
                        guard !quiet.silences(ux, uy, px, py) else { return }
                        let weight = m - floor
                        // Only the steps whose vote lands near the search disc can change
                        // the result: the line p + d u meets the disc around the
                        // accumulator's centre for d in [-b - root, -b + root] (the other
                        // way, negated). Skipping the rest leaves every bin that is read
                        // with the same sum in the same order.
                        let qx = px - centreX, qy = py - centreY
                        let b = qx * ux + qy * uy
                        let disc = b * b - (qx * qx + qy * qy - reach2)
                        guard disc >= 0 else { return }
                        let root = disc.squareRoot()
                        if vectorVotes {
                            // Each way on its own range (the far one is usually empty). All
                            // of a pixel's votes carry the same weight and nothing else is
                            // added in between, so their order within the pixel is free.
                            ballot.cast(a.baseAddress!, weight: weight, px: px, py: py, ux: ux, uy: uy,
                                        closest: -b, root: root)
                            ballot.cast(a.baseAddress!, weight: weight, px: px, py: py, ux: -ux, uy: -uy,
                                        closest: b, root: root)
                            return
                        }
                        // Truncation +- 1 brackets floor and ceiling without a libm call.
                        let first = max(0, Int((abs(b) - root - inner) / dstep) - 1)
                        let last = min(steps, Int((abs(b) + root - inner) / dstep) + 1)
                        guard first <= last else { return }
                        for s in first...last {
                            let d = inner + Float(s) * dstep
                            // Both ways along the gradient line: the polarity of an edge is unknown.
                            let vx = d * ux, vy = d * uy
                            let bx1 = UInt(bitPattern: roundedHalfAway(px + vx) &- ax0)
                            let by1 = UInt(bitPattern: roundedHalfAway(py + vy) &- ay0)
                            if bx1 < bins, by1 < bins { a[Int(bitPattern: by1 &* bins &+ bx1)] += weight }
                            let bx2 = UInt(bitPattern: roundedHalfAway(px - vx) &- ax0)
                            let by2 = UInt(bitPattern: roundedHalfAway(py - vy) &- ay0)
                            if bx2 < bins, by2 < bins { a[Int(bitPattern: by2 &* bins &+ bx2)] += weight }
                        }
                    }
                    // Only an edge's ridge votes: a rim blurred over two or three pixels votes
                    // from its flanks along nearly the same lines again. Pixels off the
                    // window's border are tested eight at a time (`ridgeVoters`), in the same
                    // order as one by one.
                    @inline(__always) func visit(_ xx: Int, _ yy: Int) {
                        let k = yy &* iw &+ xx
                        let m = mv[k]
                        guard m > floor, m > 0 else { return }
                        guard isEdgeRidge(mv.baseAddress!, gx: gxv[k], gy: gyv[k], x: xx, y: yy,
                                          width: iw, height: ih) else { return }
                        vote(k, xx, yy, m)
                    }
                    for yy in 0..<ih {
                        var xx = 0
                        if yy > 0 && yy < ih &- 1 && iw > 9 {
                            visit(0, yy)
                            xx = 1
                            while xx &+ 8 <= iw &- 1 {
                                let k = yy &* iw &+ xx
                                var bits = ridgeVoters(mv.baseAddress! + k, gx: gxv.baseAddress! + k,
                                                       gy: gyv.baseAddress! + k, width: iw, floor: floor)
                                while bits != 0 {
                                    let lane = bits.trailingZeroBitCount
                                    vote(k &+ lane, xx &+ lane, yy, mv[k &+ lane])
                                    bits &= bits &- 1
                                }
                                xx &+= 8
                            }
                        }
                        while xx < iw {
                            visit(xx, yy)
                            xx &+= 1
                        }
                    }
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
            for oy in -1...1 { for ox in -1...1 { s += scratch.acc[(by + oy) * side + bx + ox] } }
            if s > best { best = s; bestX = bx; bestY = by }
        }
    }
    guard best > 0, bestX >= 1, bestY >= 1 else { return (x, y) }
    var sw: Float = 0, sx: Float = 0, sy: Float = 0
    for oy in -1...1 {
        for ox in -1...1 {
            let v = scratch.acc[(bestY + oy) * side + bestX + ox]
            sw += v
            sx += v * Float(ox)
            sy += v * Float(oy)
        }
    }
    return (Double(ax0 + bestX) + Double(sx / sw), Double(ay0 + bestY) + Double(sy / sw))
}

/// Ruling edges that do not vote (`quietRulingEdgesDeg`): pixels on a ruling line (removed
/// line contrast of `level` or more on the working-scale `lines` plane) whose gradient lies
/// within `maxAngleDeg` of a ruling normal. A heavy line beside a faint cell would otherwise
/// pull the cell's centre towards it; a rim off the lines keeps all its votes.
struct QuietDirections {
    /// Unit normals, at most two (the ruling's two families).
    private let normals: (SIMD2<Float>, SIMD2<Float>)
    private let count: Int
    /// |cos| of the angle to a normal at or above which a direction is silent.
    private let minCos: Float
    private let lines: [Float]
    private let width: Int, height: Int
    /// Working pixels per image pixel, and the working coordinate of image coordinate 0.
    private let perPixel: Float, origin: Float
    private let level: Float

    static let none = QuietDirections(normals: [], maxAngleDeg: 0, lines: Plane(width: 0, height: 0),
                                      working: WorkingScale(1), level: 0)

    /// `normals`: angles in radians (the first two are used); `maxAngleDeg` 0 silences nothing.
    init(normals: [Double], maxAngleDeg: Double, lines: Plane, working: WorkingScale, level: Double) {
        let units = normals.prefix(2).map { SIMD2<Float>(Float(cos($0)), Float(sin($0))) }
        count = maxAngleDeg > 0 && lines.width > 0 ? units.count : 0
        self.normals = (units.first ?? .zero, units.dropFirst().first ?? .zero)
        minCos = Float(cos(maxAngleDeg * .pi / 180))
        self.lines = lines.data
        width = lines.width
        height = lines.height
        perPixel = Float(1 / working.factor)
        origin = Float(working.toWorking(0))
        self.level = Float(level)
    }

    /// Whether the pixel at image position (px, py) with unit gradient direction (ux, uy) stays silent.
    @inline(__always) func silences(_ ux: Float, _ uy: Float, _ px: Float, _ py: Float) -> Bool {
        guard count > 0 else { return false }
        guard abs(normals.0.x * ux + normals.0.y * uy) >= minCos
            || (count > 1 && abs(normals.1.x * ux + normals.1.y * uy) >= minCos) else { return false }
        // The nearest working sample: the line map is smooth at the scale of a working pixel.
        let wx = min(max(Int(px * perPixel + origin + 0.5), 0), width - 1)
        let wy = min(max(Int(py * perPixel + origin + 0.5), 0), height - 1)
        return lines[wy &* width &+ wx] >= level
    }
}

/// `scratch.grey` (the window at (x0, y0)) minus the mean of the same window `step` away in
/// either direction; unchanged when either copy would reach past the image. Grey values are
/// integers, so the difference is exact and the Sobel sums of it as well.
private func subtractCopies(_ image: Image, x0: Int, y0: Int, width: Int, height: Int, step: PixelStep,
                            scratch: inout VoteScratch, wide: Bool) {
    let ax = abs(step.dx), ay = abs(step.dy)
    guard x0 - ax >= 0, y0 - ay >= 0, x0 + width + ax <= image.width, y0 + height + ay <= image.height else { return }
    let n = width * height
    VoteScratch.reserve(&scratch.shifted, 2 * n)
    scratch.shifted.withUnsafeMutableBufferPointer { copies in
        let ahead = copies.baseAddress!, behind = copies.baseAddress! + n
        greyWindow(image, x0: x0 + step.dx, y0: y0 + step.dy, width: width, height: height, into: ahead, wide: wide)
        greyWindow(image, x0: x0 - step.dx, y0: y0 - step.dy, width: width, height: height, into: behind, wide: wide)
        scratch.grey.withUnsafeMutableBufferPointer { g in
            for i in 0..<n { g[i] -= 0.5 * (ahead[i] + behind[i]) }
        }
    }
}

/// The voting geometry of one `voteCentre` call, for the vector path: four steps of one
/// gradient line per iteration, each vote scattered without a branch (a vote outside the
/// accumulator goes to a spare bin).
private struct VoteBallot {
    /// Accumulator origin, image pixels (within `vectorRoundingLimit`).
    let originX: Int32, originY: Int32
    /// Accumulator side in bins, and the index of the first of four spare bins (side * side).
    let side: Int32, spare: Int32
    /// Vote distance of step 0 and between steps, pixels; the last step's index.
    let inner: Float, dstep: Float, steps: Int
    /// 1 / dstep, rounded.
    var perStep: Float { 1 / dstep }

    /// Casts the votes of pixel (px, py) along direction (ux, uy) at distances
    /// `inner + s * dstep` whose position lies near the search disc: `closest` is the distance
    /// along the direction of the disc centre's foot point, `root` half the chord. Same
    /// positions and rounding as the scalar `px + d * ux` (lane-wise, no fused operations).
    @inline(__always)
    func cast(_ a: UnsafeMutablePointer<Float>, weight: Float, px: Float, py: Float, ux: Float, uy: Float,
              closest: Float, root: Float) {
        // The chord is that of radius sr + 2.5, votes beyond sr + 2.13 are never read: each
        // end carries at least 0.37 px (0.37 steps, dstep <= 1) of slack, so truncating (floor
        // for ends >= 0; a negative end means step 0) after multiplying by the rounded
        // reciprocal still covers every step that can change the result.
        let first = max(0, Int((closest - root - inner) * perStep))
        let last = min(steps, Int((closest + root - inner) * perStep))
        guard first <= last else { return }
        if floatIndices {
            castFloat(a, weight: weight, px: px, py: py, ux: ux, uy: uy, first: first, last: last)
            return
        }
        let lanes = SIMD4<Float>(0, 1, 2, 3), laneSteps = SIMD4<Int32>(0, 1, 2, 3)
        let startX = SIMD4<Float>(repeating: px), startY = SIMD4<Float>(repeating: py)
        let ox = SIMD4<Int32>(repeating: originX), oy = SIMD4<Int32>(repeating: originY)
        let side32 = SIMD4<UInt32>(repeating: UInt32(bitPattern: side))
        let sideV = SIMD4<Int32>(repeating: side), spareV = SIMD4<Int32>(repeating: spare) &+ laneSteps
        let last32 = SIMD4<Int32>(repeating: Int32(truncatingIfNeeded: last))
        var s = first
        while s <= last {
            // Float(s) + lane is the exact integer s + lane: d is bit for bit inner + Float(s') * dstep.
            let d = (SIMD4<Float>(repeating: Float(s)) + lanes) * dstep + inner
            let bx = roundedHalfAway(startX + d * ux) &- ox
            let by = roundedHalfAway(startY + d * uy) &- oy
            let inside = (unsafeBitCast(bx, to: SIMD4<UInt32>.self) .< side32)
                .& (unsafeBitCast(by, to: SIMD4<UInt32>.self) .< side32)
                .& (SIMD4<Int32>(repeating: Int32(truncatingIfNeeded: s)) &+ laneSteps .<= last32)
            let index = spareV.replacing(with: by &* sideV &+ bx, where: inside)
            a[Int(index[0])] += weight
            a[Int(index[1])] += weight
            a[Int(index[2])] += weight
            a[Int(index[3])] += weight
            s &+= 4
        }
    }

    /// Bin indices (spare ones included) are exact in Float and below 2^23.
    var floatIndices: Bool { Int(spare) + 4 < 1 << 23 }

    /// `cast` over steps `first ... last` with the bin arithmetic in Float: every value is an
    /// integer below 2^24 in magnitude (exact), the rounding is `roundedHalfAway`'s (nearest
    /// by the 1.5 * 2^23 trick, ties away from zero), and the index is converted to an integer
    /// once, through the low mantissa bits of index + 2^23.
    @inline(__always)
    private func castFloat(_ a: UnsafeMutablePointer<Float>, weight: Float, px: Float, py: Float, ux: Float, uy: Float,
                           first: Int, last: Int) {
        typealias V = SIMD4<Float>
        let lanes = V(0, 1, 2, 3)
        let startX = V(repeating: px), startY = V(repeating: py)
        let ox = V(repeating: Float(originX)), oy = V(repeating: Float(originY))
        let sideF = V(repeating: Float(side)), spareF = V(repeating: Float(spare)) + lanes
        let lastF = V(repeating: Float(last))
        let magic = V(repeating: 12_582_912), two23 = V(repeating: 8_388_608)
        let signBit = SIMD4<UInt32>(repeating: 0x8000_0000), magnitude = SIMD4<UInt32>(repeating: 0x7fff_ffff)
        let halfBits = SIMD4<UInt32>(repeating: Float(0.5).bitPattern)
        @inline(__always) func rounded(_ v: V) -> V {
            let nearest = (v + magic) - magic
            let bits = unsafeBitCast(v, to: SIMD4<UInt32>.self)
            // v - nearest is exact; a tie goes away from zero: v + copysign(0.5, v), exact too.
            let off = unsafeBitCast(unsafeBitCast(v - nearest, to: SIMD4<UInt32>.self) & magnitude, to: V.self)
            let away = v + unsafeBitCast((bits & signBit) | halfBits, to: V.self)
            return nearest.replacing(with: away, where: off .== 0.5)
        }
        var s = first
        while s <= last {
            // Float(s) + lane is the exact integer s + lane: d is bit for bit inner + Float(s') * dstep.
            let step = V(repeating: Float(s)) + lanes
            let d = step * dstep + inner
            let bx = rounded(startX + d * ux) - ox
            let by = rounded(startY + d * uy) - oy
            let inside = (bx .>= 0) .& (bx .< sideF) .& (by .>= 0) .& (by .< sideF) .& (step .<= lastF)
            let index = spareF.replacing(with: by * sideF + bx, where: inside)
            let bins = unsafeBitCast(index + two23, to: SIMD4<Int32>.self) &- Int32(bitPattern: Float(8_388_608).bitPattern)
            a[Int(bins[0])] += weight
            a[Int(bins[1])] += weight
            a[Int(bins[2])] += weight
            a[Int(bins[3])] += weight
            s &+= 4
        }
    }
}

/// tan(67.5 deg): a gradient steeper than this against one axis is nearer that axis than a
/// diagonal (`isEdgeRidge`, `ridgeVoters`).
private let ridgeAxisSlope: Float = 2.4142135

/// Whether pixel (x, y) of a `width x height` gradient-magnitude window is a ridge of its
/// edge (Canny's non-maximum suppression): its magnitude is no smaller than that of either
/// neighbour along the gradient direction, quantised to the nearest of 0, 45, 90 and 135
/// degrees. A neighbour outside the window does not suppress.
///
/// - Parameters:
///   - mags: gradient magnitudes, row-major, `width * height`.
///   - gx, gy: the pixel's gradient (any scale; only the direction is used).
@inline(__always)
func isEdgeRidge(_ mags: UnsafePointer<Float>, gx: Float, gy: Float, x: Int, y: Int, width: Int, height: Int) -> Bool {
    let ax = abs(gx), ay = abs(gy)
    let steep = ridgeAxisSlope
    let dx: Int, dy: Int
    if ax > steep * ay {
        dx = 1; dy = 0
    } else if ay > steep * ax {
        dx = 0; dy = 1
    } else {
        dx = (gx > 0) == (gy > 0) ? 1 : -1; dy = 1
    }
    let m = mags[y &* width &+ x]
    let ax1 = x &+ dx, ay1 = y &+ dy, bx1 = x &- dx, by1 = y &- dy
    if ax1 >= 0, ax1 < width, ay1 < height, mags[ay1 &* width &+ ax1] > m { return false }
    if bx1 >= 0, bx1 < width, by1 >= 0, mags[by1 &* width &+ bx1] > m { return false }
    return true
}

/// `isEdgeRidge` and the floor test (m > floor, m > 0) for eight neighbouring pixels of a
/// window none of which lies on its border, as a bit mask (bit i: pixel i votes); the same
/// comparisons on the same samples.
///
/// - Parameters:
///   - mags, gx, gy: the first pixel's magnitude and gradient; rows `width` apart.
@inline(__always)
func ridgeVoters(_ mags: UnsafePointer<Float>, gx: UnsafePointer<Float>, gy: UnsafePointer<Float>,
                 width: Int, floor: Float) -> UInt32 {
    typealias V = SIMD8<Float>
    @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
    let m = load(mags), gxv = load(gx), gyv = load(gy)
    let candidates = (m .> V(repeating: floor)) .& (m .> 0)
    guard any(candidates) else { return 0 }
    let magnitude = SIMD8<UInt32>(repeating: 0x7fff_ffff)
    let ax = unsafeBitCast(unsafeBitCast(gxv, to: SIMD8<UInt32>.self) & magnitude, to: V.self)
    let ay = unsafeBitCast(unsafeBitCast(gyv, to: SIMD8<UInt32>.self) & magnitude, to: V.self)
    let steep = V(repeating: ridgeAxisSlope)
    let alongX = ax .> steep * ay
    let alongY = .!alongX .& (ay .> steep * ax)
    let diagonal = .!alongX .& .!alongY
    // (gx > 0) == (gy > 0): the diagonal through (x + 1, y + 1), else through (x - 1, y + 1).
    let falling = .!((gxv .> 0) .^ (gyv .> 0))
    let up = mags - width, down = mags + width
    var suppressed = alongX .& ((load(mags + 1) .> m) .| (load(mags - 1) .> m))
    suppressed .|= alongY .& ((load(down) .> m) .| (load(up) .> m))
    suppressed .|= diagonal .& falling .& ((load(down + 1) .> m) .| (load(up - 1) .> m))
    suppressed .|= diagonal .& .!falling .& ((load(down - 1) .> m) .| (load(up + 1) .> m))
    let voters = candidates .& .!suppressed
    let lanes = unsafeBitCast(voters, to: SIMD8<Int32>.self) & SIMD8<Int32>(1, 2, 4, 8, 16, 32, 64, 128)
    return UInt32(truncatingIfNeeded: lanes.wrappedSum())
}
