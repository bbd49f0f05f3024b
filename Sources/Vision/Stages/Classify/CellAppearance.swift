import Foundation
import Imaging

/// Colour and brightness of one candidate measured on the full-resolution image.
public struct CellAppearance: Sendable, Equatable {
    /// Hue (degrees), saturation and brightness ratio of the cell interior after dividing by the
    /// local background colour (white balance), so colour casts of the lamp cancel.
    public var hueDeg: Double
    public var saturation: Double
    /// Interior linear luminance over the background's, minus 1 (Weber contrast).
    public var interiorContrast: Double
    /// Brightest centre pixel's Weber contrast (the refractile spot of a live cell).
    public var centreContrast: Double
    /// Mean Weber contrast of the centre disc (0.35 r) over that of the rim annulus
    /// (0.6 r ... 1.1 r), as a difference: well above 0 for a ring (a clear cell's dark rim
    /// around a centre at background level), at or below 0 for a filled dark blob.
    public var ringContrast: Double = 0
    /// Linear luminance of the background annulus, the contrasts' reference.
    public var backgroundLuminance: Double = 0

    /// The same measurement with its contrasts taken against `reference` (a linear luminance)
    /// instead of the background annulus. Hue and saturation are kept.
    public func relative(to reference: Double) -> CellAppearance {
        let eps = 1e-3
        let factor = (backgroundLuminance + eps) / (reference + eps)
        var a = self
        a.interiorContrast = (interiorContrast + 1) * factor - 1
        a.centreContrast = (centreContrast + 1) * factor - 1
        a.ringContrast = ringContrast * factor
        a.backgroundLuminance = reference
        return a
    }
}

/// Measures a candidate: interior disc (0.6 r), centre disc (0.35 r), rim annulus
/// (0.6 r ... 1.1 r), background annulus (1.5 r ... 2.2 r), subsampled so a big cell costs no
/// more than a small one (every `max(1, r / 6)`-th row and column; the background annulus on
/// every other one of those).
///
/// - Parameters:
///   - x, y, r: candidate centre and radius, image pixels.
public func measureAppearance(_ image: Image, x: Double, y: Double, r: Double) -> CellAppearance {
    let w = image.width
    let zones = AppearanceZones(image, x: x, y: y, r: r)
    let (step, x0, x1, y0, y1) = (zones.step, zones.x0, zones.x1, zones.y0, zones.y1)
    let (ri2, rc2, rr2, ra2, rb2) = (zones.ri2, zones.rc2, zones.rr2, zones.ra2, zones.rb2)
    var inner = (r: 0.0, g: 0.0, b: 0.0, lum: 0.0, n: 0.0)
    var ring = (r: 0.0, g: 0.0, b: 0.0, lum: 0.0, n: 0.0)
    var centreMax = 0.0, centreSum = 0.0, centreCount = 0.0, rimSum = 0.0, rimCount = 0.0
    guard x0 <= x1, y0 <= y1 else { return CellAppearance(hueDeg: 0, saturation: 0, interiorContrast: 0, centreContrast: 0) }
    // Along a row d2 = dx * dx + dy * dy falls, then rises (it grows with |dx|, in floating
    // point too), so the samples with d2 at or below any level are one run: each zone is one
    // run or two, found once per row, and its samples are summed without a test each (the
    // zones' boundaries are where a branch per sample mispredicted). Every sum takes its
    // samples in row order, left to right, as the per-sample tests did: the same sums.
    let columns = (x1 - x0) / step + 1
    var d2s = [Double](repeating: 0, count: columns)
    let centreLevel = min(ri2, rc2)
    image.pixels.withUnsafeBufferPointer { px in
        srgbToLinear.withUnsafeBufferPointer { lut in
            d2s.withUnsafeMutableBufferPointer { d2b in
                let table = lut.baseAddress!, d2 = d2b.baseAddress!
                for (row, yy) in stride(from: y0, through: y1, by: step).enumerated() {
                    let dy = Double(yy) - y
                    // The background annulus is sampled on every other row and column of the
                    // lattice: it holds over half the samples, and its mean is the contrasts'
                    // reference, not a feature of its own. An odd row that reaches no nearer
                    // zone than the annulus has nothing to add.
                    let ringRow = row & 1 == 0
                    if !ringRow && dy * dy >= ra2 { continue }
                    for k in 0..<columns {
                        let dx = Double(x0 &+ k &* step) - x
                        d2[k] = dx * dx + dy * dy
                    }
                    // The run of samples at or below `level` inside `lo ..< hi` (which holds it).
                    @inline(__always) func run(_ level: Double, _ lo: Int, _ hi: Int, strict: Bool = false) -> (Int, Int) {
                        @inline(__always) func within(_ k: Int) -> Bool { strict ? d2[k] < level : d2[k] <= level }
                        var lo = lo, hi = hi
                        while lo < hi && !within(lo) { lo &+= 1 }
                        while hi > lo && !within(hi &- 1) { hi &-= 1 }
                        return (lo, hi)
                    }
                    let reach = run(rb2, 0, columns)
                    guard reach.0 < reach.1 else { continue }
                    // Nested runs (ri2 <= rr2 <= rb2); the background ring is what lies in
                    // reach outside both d2 < ra2 and the rim (for r > 0 the first holds the
                    // second).
                    let near = run(ra2, reach.0, reach.1, strict: true)
                    let rim = run(rr2, reach.0, reach.1)
                    let interior = run(ri2, rim.0, rim.1)
                    let centre = run(centreLevel, interior.0, interior.1)
                    let gap = near.0 == near.1 ? rim : rim.0 == rim.1 ? near : (min(near.0, rim.0), max(near.1, rim.1))
                    let row = px.baseAddress! + (yy &* w &+ x0) &* 3
                    let advance = step &* 3
                    @inline(__always) func linear(_ k: Int) -> (r: Double, g: Double, b: Double, lum: Double) {
                        let p = row + k &* advance
                        let lr = Double(table[Int(p[0])]), lg = Double(table[Int(p[1])]), lb = Double(table[Int(p[2])])
                        return (lr, lg, lb, 0.2126 * lr + 0.7152 * lg + 0.0722 * lb)
                    }
                    @inline(__always) func addRing(_ from: Int, _ to: Int) {
                        guard ringRow else { return }
                        for k in stride(from: from &+ (from & 1), to: to, by: 2) {
                            let v = linear(k)
                            ring.r += v.r; ring.g += v.g; ring.b += v.b; ring.lum += v.lum; ring.n += 1
                        }
                    }
                    @inline(__always) func addRim(_ from: Int, _ to: Int) {
                        for k in from..<to {
                            rimSum += linear(k).lum
                            rimCount += 1
                        }
                    }
                    addRing(reach.0, gap.0)
                    addRim(rim.0, interior.0)
                    for k in interior.0..<interior.1 {
                        let v = linear(k)
                        inner.r += v.r; inner.g += v.g; inner.b += v.b; inner.lum += v.lum; inner.n += 1
                    }
                    for k in centre.0..<centre.1 {
                        let lum = linear(k).lum
                        centreMax = max(centreMax, lum)
                        centreSum += lum
                        centreCount += 1
                    }
                    addRim(interior.1, rim.1)
                    addRing(gap.1, reach.1)
                }
            }
        }
    }
    return appearance(inner: inner, ring: ring, centreMax: centreMax, centreSum: centreSum, centreCount: centreCount,
                      rimSum: rimSum, rimCount: rimCount)
}

/// The window and the zones of a measurement (`measureAppearance`): the lattice's step and
/// inclusive pixel bounds (empty when `x0 > x1` or `y0 > y1`), and the squared radii of the
/// interior (0.6 r), centre (0.35 r, at least 1 px), rim (1.1 r) and background annulus
/// (1.5 r ... 2.2 r).
struct AppearanceZones {
    let step: Int
    let x0: Int, x1: Int, y0: Int, y1: Int
    let ri2: Double, rc2: Double, rr2: Double, ra2: Double, rb2: Double

    init(_ image: Image, x: Double, y: Double, r: Double) {
        step = max(1, Int(r / 6))
        let outer = 2.2 * r
        x0 = max(0, Int((x - outer).rounded(.down)))
        x1 = min(image.width - 1, Int((x + outer).rounded(.up)))
        y0 = max(0, Int((y - outer).rounded(.down)))
        y1 = min(image.height - 1, Int((y + outer).rounded(.up)))
        ri2 = (0.6 * r) * (0.6 * r)
        rc2 = max(1, (0.35 * r) * (0.35 * r))
        rr2 = (1.1 * r) * (1.1 * r)
        ra2 = (1.5 * r) * (1.5 * r)
        rb2 = outer * outer
    }
}

/// Sums of linear red, green, blue and luminance over a zone's samples, and their number.
typealias ZoneSums = (r: Double, g: Double, b: Double, lum: Double, n: Double)

/// A measurement's fields from its zone sums (`measureAppearance`): the interior (0.6 r),
/// the background annulus, the centre disc's brightest, summed and counted luminance, and
/// the rim annulus's summed and counted luminance.
func appearance(inner: ZoneSums, ring: ZoneSums, centreMax: Double, centreSum: Double, centreCount: Double,
                rimSum: Double, rimCount: Double) -> CellAppearance {
    guard inner.n > 0 else { return CellAppearance(hueDeg: 0, saturation: 0, interiorContrast: 0, centreContrast: 0) }
    let eps = 1e-3
    let bg = ring.n > 0 ? (ring.r / ring.n, ring.g / ring.n, ring.b / ring.n, ring.lum / ring.n)
                        : (inner.r / inner.n, inner.g / inner.n, inner.b / inner.n, inner.lum / inner.n)
    // White-balanced interior colour.
    let cr = (inner.r / inner.n + eps) / (bg.0 + eps)
    let cg = (inner.g / inner.n + eps) / (bg.1 + eps)
    let cb = (inner.b / inner.n + eps) / (bg.2 + eps)
    let hsv = hsvFrom(r: cr, g: cg, b: cb)
    let centreMean = centreCount > 0 ? centreSum / centreCount : inner.lum / inner.n
    let rimMean = rimCount > 0 ? rimSum / rimCount : centreMean
    return CellAppearance(hueDeg: hsv.h, saturation: hsv.s,
                          interiorContrast: (inner.lum / inner.n + eps) / (bg.3 + eps) - 1,
                          centreContrast: (centreMax + eps) / (bg.3 + eps) - 1,
                          ringContrast: (centreMean - rimMean) / (bg.3 + eps), backgroundLuminance: bg.3)
}

/// Hue (degrees 0 ..< 360), saturation (0 ... 1) and value of non-negative RGB.
public func hsvFrom(r: Double, g: Double, b: Double) -> (h: Double, s: Double, v: Double) {
    let mx = max(r, g, b), mn = min(r, g, b), d = mx - mn
    guard mx > 0 else { return (0, 0, 0) }
    var hue = 0.0
    if d > 0 {
        if mx == r { hue = 60 * ((g - b) / d).truncatingRemainder(dividingBy: 6) }
        else if mx == g { hue = 60 * ((b - r) / d + 2) }
        else { hue = 60 * ((r - g) / d + 4) }
    }
    if hue < 0 { hue += 360 }
    return (hue, d / mx, mx)
}

/// A candidate's appearance against the ruling line it lies on (`Candidate.lineStep`): the
/// mean interior luminance of the same disc a step along the line on either side (the one
/// side inside the image, at its border). A clear cell on a dark line is as dark as the line,
/// far darker than the open background that the debris rule otherwise compares it with.
/// Unchanged for a candidate on no line.
func lineRelative(_ a: CellAppearance, of c: Candidate, in image: Image) -> CellAppearance {
    guard let step = c.lineStep else { return a }
    let sides = [1.0, -1.0].compactMap { sign in
        interiorLuminance(image, x: c.x + sign * Double(step.dx), y: c.y + sign * Double(step.dy), r: c.r)
    }
    guard !sides.isEmpty else { return a }
    return a.relative(to: sides.reduce(0, +) / Double(sides.count))
}

/// Mean linear luminance of a measurement's interior disc (0.6 r) at a point, image pixels;
/// nil when the disc leaves the image or holds no pixel centre.
func interiorLuminance(_ image: Image, x: Double, y: Double, r: Double) -> Double? {
    let ri = 0.6 * r
    var sum = 0.0, n = 0.0
    guard forEachLuminance(image, x: x, y: y, reach: ri, { dx, dy, luminance in
        guard dx * dx + dy * dy <= ri * ri else { return }
        sum += luminance
        n += 1
    }) else { return nil }
    return n > 0 ? sum / n : nil
}
