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
    private static let directions: [(dx: Double, dy: Double)] = (0..<rays).map { k in
        let a = Double(k) * 2 * .pi / Double(rays)
        return (cos(a), sin(a))
    }

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
        guard x.isFinite, y.isFinite, r.isFinite, r > 0, plane.width > 1, plane.height > 1 else { return nil }
        let maxX = Double(plane.width - 1), maxY = Double(plane.height - 1)
        var radii: [Double] = []
        radii.reserveCapacity(Self.rays)
        var leastDark = -Float.infinity
        for (dx, dy) in Self.directions {
            let ex = x + 1.2 * r * dx, ey = y + 1.2 * r * dy
            guard ex >= 0, ex <= maxX, ey >= 0, ey <= maxY else { continue }
            var darkest = Float.infinity, at = 0.0
            for i in 0..<Self.steps {
                let rho = (0.3 + 1.5 * Double(i) / Double(Self.steps - 1)) * r
                let px = x + rho * dx, py = y + rho * dy
                guard px >= 0, px <= maxX, py >= 0, py <= maxY else { break }
                let v = plane.bilinear(px, py)
                if v < darkest {
                    darkest = v
                    at = rho
                }
            }
            radii.append(at / r)
            leastDark = max(leastDark, darkest)
        }
        guard radii.count * 2 >= Self.rays else { return nil }
        let median = Self.median(radii)
        spread = Self.median(radii.map { abs($0 - median) })
        self.leastDark = leastDark
    }

    /// The rim is not one ring round the centre: scattered by more than `maxSpread` radii
    /// and, somewhere round it, open onto the background.
    func isScattered(maxSpread: Double) -> Bool { spread > maxSpread && leastDark >= 0 }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }
}
