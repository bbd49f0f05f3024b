import Foundation

/// Settings of `coreSeeds`.
public struct CoreSeedSettings: Sendable, Equatable {
    /// Least contrast of the core over its ring (disc means, natural-log units), and of the
    /// core over each ray's darkest point.
    public var minContrast: Float
    /// How far below the background (0) a ray's darkest point must lie, log units.
    public var rimDepth: Float
    /// Rays of 16 that must find such a rim.
    public var minRays: Int
    /// Cores are sought within this many radii of a standing candidate...
    public var reach: Double = 2.2
    /// ...and no nearer than this many radii to one.
    public var clearance: Double = 0.7

    public init(minContrast: Float, rimDepth: Float, minRays: Int) {
        self.minContrast = minContrast
        self.rimDepth = rimDepth
        self.minRays = minRays
    }
}

/// Bright cores inside a closed dark ring beside the candidates already found: the cells of a
/// clump that the blob detector merged into one.
///
/// Why: a clump of touching live cells is one dark blob to the detector, more so when blurred
/// (rims and the gaps between them smear together), and a blurred rim gives the centre seeds
/// no edges to vote with. Each cell still shows its refractile core, a spot brighter than the
/// rim that closes round it. A core is a local maximum of the plane within `reach` radii of a
/// standing candidate and not within `clearance` of one, whose mean over the disc of
/// max(1, 0.4 r) stands `minContrast` above its mean over the ring from 0.75 r to 1.15 r
/// (`DiscSums`; r over the cell range in steps of 1.25x, no larger than the candidate it lies
/// beside: a core inside a merged blob is smaller than the blob), and from which at least
/// `minRays` of 16 rays (sampled a pixel apart from 0.6 r to 1.4 r) reach a point `rimDepth`
/// below the background and `minContrast` below the core. A spot of background between cells
/// opens onto the background in some direction; the boundary test still judges every seed.
///
/// - Parameters:
///   - plane: smoothed log luminance, background 0 (working scale).
///   - standing: the candidates found so far (working scale).
///   - minR, maxR: cell radius range, pixels of `plane`.
/// - Returns: seeds (`Candidate.seeded`, score 0, contrast = the core's ring contrast), in
///   raster order.
func coreSeeds(_ plane: Plane, besides standing: [Candidate], minR: Double, maxR: Double,
               settings: CoreSeedSettings) -> [Candidate] {
    let w = plane.width, h = plane.height
    guard w >= 8, h >= 8, minR > 0, maxR >= minR, !standing.isEmpty,
          minR.isFinite, maxR.isFinite else { return [] }
    // Ring radii over the cell range; none whose ring would not fit in half the plane (the
    // disc table grows with the square of the largest).
    var radii: [Double] = []
    var r = minR
    while r <= maxR * 1.0001 && 1.15 * r <= Double(min(w, h)) / 2 && radii.count < 32 { radii.append(r); r *= 1.25 }
    guard !radii.isEmpty else { return [] }
    // Per pixel: how many of the radii fit the largest standing candidate within reach (0:
    // none within reach; `taken`: one within clearance). A byte a pixel: the plane is formed
    // per image, and a quarter of a Float plane's pages are a quarter of the faults.
    let taken = UInt8.max
    var host = [UInt8](repeating: 0, count: w * h)
    host.withUnsafeMutableBufferPointer { hp in
        // A candidate larger than the plane stands beside nothing in particular.
        let usable = standing.filter { $0.x.isFinite && $0.y.isFinite && $0.r > 0 && $0.r <= Double(w + h) }
        for c in usable {
            let fits = UInt8(radii.prefix { $0 <= c.r }.count)
            guard fits > 0 else { continue }
            forEachRowSpan(width: w, height: h, x: c.x, y: c.y, radius: settings.reach * c.r) { row, x0, x1 in
                for i in (row + x0)...(row + x1) { hp[i] = max(hp[i], fits) }
            }
        }
        for c in usable {
            forEachRowSpan(width: w, height: h, x: c.x, y: c.y, radius: settings.clearance * c.r) { row, x0, x1 in
                for i in (row + x0)...(row + x1) { hp[i] = taken }
            }
        }
    }
    let discs = DiscSums(maxRadius: 1.15 * radii.last!)
    // Per radius: the offsets (sorted by distance) in its core, within its ring's inner edge
    // and within its outer edge.
    let rings = radii.map { r in
        (r: r, core: discs.count(within: max(1, 0.4 * r)), inner: discs.count(within: 0.75 * r),
         outer: discs.count(within: 1.15 * r))
    }
    var sums = [Float](repeating: 0, count: discs.offsets.count + 1)
    // Opposite rays first, then the quarters between them, and so on.
    let rays = rayDirections(16)
    let directions = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15].map { rays[$0] }
    var seeds: [Candidate] = []
    plane.data.withUnsafeBufferPointer { d in
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y &* w &+ x
                let fits = Int(host[i])
                guard fits > 0, fits != Int(taken) else { continue }
                // A core is brightest where it stands.
                guard isPlateauPeak(d, at: i, width: w) else { continue }
                let v = d[i]
                // Running sums of the samples in order of distance: every disc's mean in one pass.
                discs.runningSums(d, width: w, height: h, x: x, y: y, count: rings[fits - 1].outer, into: &sums)
                var best = -Float.infinity, bestR = 0.0
                for ring in rings.prefix(fits) {
                    let core = sums[ring.core] / Float(ring.core)
                    let around = (sums[ring.outer] - sums[ring.inner]) / Float(ring.outer - ring.inner)
                    if core - around > best { best = core - around; bestR = ring.r }
                }
                guard best >= settings.minContrast else { continue }
                let px = Double(x), py = Double(y)
                // Rays in an order that looks opposite ways first, so a spot open on one side
                // fails after a few; each stops at the first point dark enough.
                let reach = 1.4 * bestR + 1
                let inside = px >= reach && py >= reach && px <= Double(w - 1) - reach && py <= Double(h - 1) - reach
                let allowedMisses = directions.count - settings.minRays
                var misses = 0
                for (ux, uy) in directions {
                    var dark = false
                    var t = 0.6 * bestR
                    while t <= 1.4 * bestR + 1e-9 {
                        let sample = inside ? Plane.bilinear(d, width: w, height: h, px + t * ux, py + t * uy)
                            : plane.bilinear(px + t * ux, py + t * uy)
                        if sample <= -settings.rimDepth && v - sample >= settings.minContrast { dark = true; break }
                        t += 1.0
                    }
                    if !dark { misses += 1; if misses > allowedMisses { break } }
                }
                guard misses <= allowedMisses else { continue }
                seeds.append(Candidate(x: px, y: py, r: bestR, score: 0, contrast: Double(best), seeded: true))
            }
        }
    }
    return seeds
}

/// Calls `body(rowStart, x0, x1)` for each row of a `width` x `height` plane that the disc of
/// `radius` round (x, y) crosses, with the first and last column inside the disc.
private func forEachRowSpan(width: Int, height: Int, x: Double, y: Double, radius: Double,
                            _ body: (Int, Int, Int) -> Void) {
    // Clamped as doubles before any conversion: an integer conversion of a far-off
    // coordinate traps.
    guard radius >= 0, width > 0, height > 0, y + radius >= 0, y - radius <= Double(height - 1),
          x + radius >= 0, x - radius <= Double(width - 1) else { return }
    let y0 = Int(max(0, (y - radius).rounded(.up))), y1 = Int(min(Double(height - 1), (y + radius).rounded(.down)))
    guard y0 <= y1 else { return }
    for yy in y0...y1 {
        let dy = Double(yy) - y
        let half = max(0, radius * radius - dy * dy).squareRoot()
        let x0 = Int(max(0, (x - half).rounded(.up))), x1 = Int(min(Double(width - 1), (x + half).rounded(.down)))
        if x0 <= x1 { body(yy * width, x0, x1) }
    }
}

/// The pixel offsets of a disc sorted by distance from its centre, so that the sum over any
/// smaller disc round a point is a prefix of one pass over them.
struct DiscSums {
    /// (dx, dy, squared distance), nearest first (ties in raster order).
    let offsets: [(dx: Int, dy: Int, d2: Int)]

    init(maxRadius: Double) {
        let reach = max(0, Int(maxRadius.rounded(.down)))
        var offsets: [(dx: Int, dy: Int, d2: Int)] = []
        let limit = maxRadius * maxRadius
        for dy in -reach...reach {
            for dx in -reach...reach where Double(dx * dx + dy * dy) <= limit { offsets.append((dx, dy, dx * dx + dy * dy)) }
        }
        self.offsets = offsets.enumerated().sorted { ($0.element.d2, $0.offset) < ($1.element.d2, $1.offset) }.map(\.element)
    }

    /// How many offsets lie within `radius` (inclusive).
    func count(within radius: Double) -> Int {
        let limit = radius * radius
        return offsets.prefix { Double($0.d2) <= limit }.count
    }

    /// `sums[k]` = the sum of the first k offsets' samples round (x, y) (`sums[0]` = 0), for
    /// k up to `count`; samples past the plane's edge repeat the edge.
    func runningSums(_ d: UnsafeBufferPointer<Float>, width: Int, height: Int, x: Int, y: Int, count: Int,
                     into sums: inout [Float]) {
        let reach = offsets[count - 1].d2
        let inside = x * x >= reach && y * y >= reach && (width - 1 - x) * (width - 1 - x) >= reach
            && (height - 1 - y) * (height - 1 - y) >= reach && x >= 0 && y >= 0 && x < width && y < height
        sums.withUnsafeMutableBufferPointer { s in
            var total: Float = 0
            s[0] = 0
            for k in 0..<count {
                let o = offsets[k]
                let xx = inside ? x &+ o.dx : min(max(x + o.dx, 0), width - 1)
                let yy = inside ? y &+ o.dy : min(max(y + o.dy, 0), height - 1)
                total += d[yy &* width &+ xx]
                s[k &+ 1] = total
            }
        }
    }
}
