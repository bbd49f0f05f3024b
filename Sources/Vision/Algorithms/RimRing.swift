import Foundation

/// How closely the rays from a centre meet one dark ring: where each ray is darkest, and
/// whether every ray gets darker than the background at all.
///
/// Why: a cell's rim is one ring round its own centre, at one radius give or take its
/// outline's wobble. A spot of background between cells (a gap in a clump, the corner a cell
/// leaves with a ruling line) meets its neighbours' rims at whatever distance they happen to
/// lie, and some of its rays run out between two neighbours without getting darker than the
/// background. The boundary test counts sectors holding an edge that faces the centre, which
/// the neighbours' rims supply, and cannot tell the two apart: such spots were most of the
/// independent synthetic set's false detections with no labelled cell near.
struct RimRing {
    /// Rays round the centre.
    static let rays = 32
    /// Samples along each ray, from 0.3 to 1.8 radii (the boundary test's annulus reaches
    /// 1.6 r; a rim found there may be darkest a little further out).
    static let steps = 31
    private static let directions = rayDirections(rays)

    /// Median absolute deviation of the rays' darkest radii from their median, in radii.
    let spread: Double
    /// The largest of the rays' darkest values (0 or above: some ray never gets darker than the
    /// background).
    let leastDark: Float

    /// - Parameters:
    ///   - plane: smoothed log luminance, background 0 (the flattened luminance's `logPlane`).
    ///   - x, y, r: centre and radius, pixels of `plane`.
    /// - Returns: nil when fewer than half the rays reach 1.2 r inside the plane (a ray that
    ///   leaves the image before the rim shows none: a cell cut by the border is judged by the
    ///   rays that stay inside) or the centre or radius is not usable.
    init?(_ plane: Plane, x: Double, y: Double, r: Double) {
        guard Self.usable(plane, x: x, y: y, r: r) else { return nil }
        var radii: [Double] = []
        radii.reserveCapacity(Self.rays)
        var leastDark = -Float.infinity
        for k in 0..<Self.rays {
            guard let ray = Self.darkest(plane, x: x, y: y, r: r, ray: k, below: nil) else { continue }
            radii.append(ray.at / r)
            leastDark = max(leastDark, ray.value)
        }
        guard radii.count * 2 >= Self.rays else { return nil }
        let median = Self.median(radii)
        spread = Self.median(radii.map { abs($0 - median) })
        self.leastDark = leastDark
    }

    /// Whether some ray inside the plane gets no darker than `level` (the background, 0, or a
    /// noise margin below it): `leastDark >= level` without the spread. Most candidates have a
    /// dark rim on every ray, and a ray is done at its first sample below `level`, so the
    /// stage asks this first (the full measurement on every candidate cost 5 % of a
    /// `standard` image's pipeline instructions).
    static func hasOpenRay(_ plane: Plane, x: Double, y: Double, r: Double, level: Float = 0) -> Bool {
        guard usable(plane, x: x, y: y, r: r) else { return false }
        let maxX = Double(plane.width - 1), maxY = Double(plane.height - 1)
        func inside(_ px: Double, _ py: Double) -> Bool { px >= 0 && px <= maxX && py >= 0 && py <= maxY }
        return plane.data.withUnsafeBufferPointer { d in
            (0..<rays).contains { k in
                let (dx, dy) = directions[k]
                guard inside(x + 1.2 * r * dx, y + 1.2 * r * dy) else { return false }
                // With both ends inside, so is every sample (the image is convex), and whether
                // one sample is below `level` does not depend on the order they are read in:
                // nearest the rim first, where a closed ray is darkest.
                guard inside(x + 0.3 * r * dx, y + 0.3 * r * dy), inside(x + 1.8 * r * dx, y + 1.8 * r * dy) else {
                    return darkest(plane, x: x, y: y, r: r, ray: k, below: level).map { $0.value >= level } ?? false
                }
                return !rimFirst.contains { i in sample(d, plane.width, plane.height, x: x, y: y, rho: radius(i, r), dx: dx, dy: dy) < level }
            }
        }
    }

    /// Sample indices nearest 1.0 r first.
    private static let rimFirst: [Int] = (0..<steps).sorted { (abs(radius($0, 1) - 1), $0) < (abs(radius($1, 1) - 1), $1) }

    private static func radius(_ i: Int, _ r: Double) -> Double { (0.3 + 1.5 * Double(i) / Double(steps - 1)) * r }

    /// `Plane.bilinear` at `rho` along the ray, inside the plane.
    @inline(__always)
    private static func sample(_ d: UnsafeBufferPointer<Float>, _ w: Int, _ h: Int, x: Double, y: Double, rho: Double,
                               dx: Double, dy: Double) -> Float {
        Plane.bilinear(d, width: w, height: h, x + rho * dx, y + rho * dy)
    }

    private static func usable(_ plane: Plane, x: Double, y: Double, r: Double) -> Bool {
        x.isFinite && y.isFinite && r.isFinite && r > 0 && plane.width > 1 && plane.height > 1
    }

    /// Ray `k`'s darkest sample and its distance from the centre, or nil when the ray leaves
    /// the plane before 1.2 r (a ray that leaves the image before the rim shows none: a cell
    /// cut by the border is judged by the rays that stay inside). The scan stops at the
    /// border, or at the first sample under `below` when one is given. Samples are
    /// `Plane.bilinear`'s, read through a pointer (thousands of candidates, a thousand samples each).
    private static func darkest(_ plane: Plane, x: Double, y: Double, r: Double, ray k: Int,
                                below: Float?) -> (value: Float, at: Double)? {
        let w = plane.width, h = plane.height
        let maxX = Double(w - 1), maxY = Double(h - 1)
        let (dx, dy) = directions[k]
        let ex = x + 1.2 * r * dx, ey = y + 1.2 * r * dy
        guard ex >= 0, ex <= maxX, ey >= 0, ey <= maxY else { return nil }
        let limit = below ?? -.infinity
        return plane.data.withUnsafeBufferPointer { d in
            var darkest = Float.infinity, at = 0.0
            for i in 0..<steps {
                let rho = radius(i, r)
                let px = x + rho * dx, py = y + rho * dy
                guard px >= 0, px <= maxX, py >= 0, py <= maxY else { break }
                let v = sample(d, w, h, x: x, y: y, rho: rho, dx: dx, dy: dy)
                if v < darkest {
                    darkest = v
                    at = rho
                }
                if v < limit { break }
            }
            return (darkest, at)
        }
    }

    /// The rim is not one ring round the centre: scattered by more than `maxSpread` radii
    /// and, somewhere round it, open onto the background (some ray no darker than
    /// `openLevel`: 0, or a noise margin below it).
    func isScattered(maxSpread: Double, openLevel: Float = 0) -> Bool { spread > maxSpread && leastDark >= openLevel }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }
}
