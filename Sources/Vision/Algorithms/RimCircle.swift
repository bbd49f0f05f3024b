import Foundation
import Imaging

/// The circle a cell's dark rim draws round a centre: where each of 32 rays is darkest on the
/// lightly smoothed full-resolution image, and the circle that best fits those points.
///
/// Why: the centre vote and the detector settle a radius or more off a cell when other edges
/// pull them (the strokes of a ruling line the cell lies on, the rims of the cells it
/// touches, a blurred rim's flanks): on the independent synthetic draws a third of the false
/// detections sat 0.5-1 radius from a cell that was then missed. The rays from such a centre
/// still meet the cell's rim, nearer on one side than on the other, and a circle through
/// their darkest points is the cell's own. Rays that meet a neighbour or a line instead lie off
/// that circle and are left out of the fit.
struct RimCircle: Equatable {
    /// Rays round the centre.
    static let rays = 32
    /// Most samples along each ray, from 0.3 to 1.8 radii (as `RimRing`: a rim a centre is
    /// off by up to 0.8 radii still lies inside).
    static let maxSteps = 31
    /// A ray whose darkest point lies within this many radii of the fitted circle supports it.
    static let tolerance = 0.25
    /// The share of the rays a circle must hold for them to agree on it.
    static let minShare = 0.6

    private static let directions = rayDirections(rays)

    /// Centre of the fitted circle, image pixels.
    let x: Double
    let y: Double
    /// Its radius (the rim's darkest ring), image pixels.
    let radius: Double
    /// Rays whose darkest point lies within `tolerance` radii of it.
    let inliers: Int
    /// Median distance of those rays' darkest points from it, in radii.
    let residual: Double
    /// Whether the rays agree on one circle: the fit, refitted without the rays off it,
    /// settled with at least `minShare` of them on it. When not, the circle is only the last
    /// fit tried.
    let agrees: Bool
    /// Whether the circle found holds at least `minShare` of the rays, settled or not. A spot
    /// between cells or between a line's strokes does not: its rays meet whatever lies around
    /// at scattered distances.
    var holdsMostRays: Bool { holds(share: Self.minShare) }

    /// Whether at least `share` of the rays lie on the circle, settled or not.
    func holds(share: Double) -> Bool { Double(inliers) >= share * Double(Self.rays) }

    /// - Parameters:
    ///   - image: the decoded image: its grey value R + 2G + B, smoothed (`binomialSmooth`: a
    ///     single noisy pixel would otherwise be the darkest of many rays), is sampled.
    ///   - x, y, r: the centre the rays start from and the candidate's radius, image pixels.
    /// - Returns: nil when a ray's reach (1.8 r plus a margin of 3 px) leaves the image or r
    ///   is not usable: nothing measured.
    init?(_ image: Image, x: Double, y: Double, r: Double) {
        guard x.isFinite, y.isFinite, r.isFinite, r > 0 else { return nil }
        let found = withSmoothedGreyWindow(image, x: x, y: y, reach: 1.8 * r) { smooth, width, _, cx, cy in
            // Samples about a pixel apart along each ray; the darkest is placed between its
            // neighbours by the parabola through the three. (Inside the image, r is bounded.)
            let steps = min(Self.maxSteps, max(11, Int(1.5 * r) + 1))
            return withUnsafeTemporaryAllocation(of: Float.self, capacity: steps) { buffer in
                let values = buffer.baseAddress!
                let first = 0.3 * r, step = 1.5 * r / Double(steps - 1)
                return Self.directions.map { dx, dy in
                    // Positions in fixed point (1/65536 px), stepped by integer adds: inside the
                    // window by the margin, so all four neighbours of a sample are there, and no
                    // conversion from floating point (each checked) is needed per sample.
                    let one = 65536.0
                    var px = Int(((cx + first * dx) * one).rounded(.down)), py = Int(((cy + first * dy) * one).rounded(.down))
                    let sx = Int((step * dx * one).rounded()), sy = Int((step * dy * one).rounded())
                    var at = 0
                    for i in 0..<steps {
                        let fx = Float(px & 0xFFFF) * (1 / 65536), fy = Float(py & 0xFFFF) * (1 / 65536)
                        let p = smooth + ((py &>> 16) &* width &+ (px &>> 16))
                        let top = p[0] + fx * (p[1] - p[0])
                        let bottom = p[width] + fx * (p[width &+ 1] - p[width])
                        values[i] = top + fy * (bottom - top)
                        if values[i] < values[at] { at = i }
                        px &+= sx
                        py &+= sy
                    }
                    return first + (Double(at) + Self.vertexOffset(values, at, steps)) * step
                }
            }
        }
        guard let darkest = found, let fit = Self.fit(darkest, r: r) else { return nil }
        self.x = x + fit.dx
        self.y = y + fit.dy
        radius = fit.radius
        inliers = fit.inliers
        residual = fit.residual
        agrees = fit.agrees
    }

    /// Where the parabola through samples `i - 1`, `i`, `i + 1` of `values` has its vertex,
    /// in samples from `i` (within half a sample; 0 at either end or where they lie straight).
    private static func vertexOffset(_ values: UnsafePointer<Float>, _ i: Int, _ count: Int) -> Double {
        guard i > 0, i < count - 1 else { return 0 }
        return parabolaMinimumOffset(Double(values[i - 1]), Double(values[i]), Double(values[i + 1]))
    }

    /// The circle through points at `distances` along the rays (a near-centre circle's
    /// distance along ray k is radius + dx cos + dy sin of its angle: linear least squares),
    /// refitted without the rays more than `tolerance` radii off it until those stay the same
    /// (at most three fits): `agrees` when they did with at least `minShare` of the rays on it.
    /// Otherwise the last fit tried, with the rays on it then. Nil only for a wrong number of
    /// distances (or too few rays left to fit). The rays in use are the bits of a mask (32
    /// rays, one word).
    static func fit(_ distances: [Double], r: Double) -> (dx: Double, dy: Double, radius: Double, inliers: Int,
                                                          residual: Double, agrees: Bool)? {
        guard distances.count == rays else { return nil }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: rays) { residuals in
            var used: UInt32 = .max
            var last: (dx: Double, dy: Double, radius: Double, inliers: Int, residual: Double, agrees: Bool)?
            for _ in 0..<3 {
                guard let (radius, dx, dy) = leastSquares(distances, used: used) else { return last }
                var within: UInt32 = 0
                for k in 0..<rays {
                    residuals[k] = abs(distances[k] - (radius + dx * directions[k].dx + dy * directions[k].dy))
                    if residuals[k] < tolerance * r { within |= 1 << UInt32(k) }
                }
                // The rays on this circle's residuals to the front, sorted: their median.
                var n = 0
                for k in 0..<rays where within & (1 << UInt32(k)) != 0 {
                    residuals[n] = residuals[k]
                    n += 1
                }
                var kept = UnsafeMutableBufferPointer(rebasing: residuals[0..<n])
                kept.sort()
                let median = n == 0 ? .infinity : n % 2 == 1 ? kept[n / 2] : 0.5 * (kept[n / 2 - 1] + kept[n / 2])
                let enough = Double(n) >= minShare * Double(rays)
                last = (dx, dy, radius, n, median / r, enough && within == used)
                if !enough || within == used { return last }
                used = within
            }
            return last
        }
    }

    /// Radius and centre offset minimising the squared distances of the used rays' points, by
    /// the normal equations of the columns (1, cos, sin) solved by Cramer's rule; nil when
    /// they are singular.
    private static func leastSquares(_ distances: [Double], used: UInt32) -> (Double, Double, Double)? {
        var n = 0.0, c = 0.0, s = 0.0, cc = 0.0, ss = 0.0, cs = 0.0, d = 0.0, dc = 0.0, ds = 0.0
        for k in 0..<rays where used & (1 << UInt32(k)) != 0 {
            let (ck, sk) = directions[k], v = distances[k]
            n += 1; c += ck; s += sk; cc += ck * ck; ss += sk * sk; cs += ck * sk
            d += v; dc += v * ck; ds += v * sk
        }
        // The symmetric matrix [[n, c, s], [c, cc, cs], [s, cs, ss]] with one column replaced
        // by (d, dc, ds) at a time.
        func det(_ a: (Double, Double, Double), _ b: (Double, Double, Double), _ e: (Double, Double, Double)) -> Double {
            a.0 * (b.1 * e.2 - b.2 * e.1) - a.1 * (b.0 * e.2 - b.2 * e.0) + a.2 * (b.0 * e.1 - b.1 * e.0)
        }
        let determinant = det((n, c, s), (c, cc, cs), (s, cs, ss))
        guard abs(determinant) > 1e-9 else { return nil }
        return (det((d, c, s), (dc, cc, cs), (ds, cs, ss)) / determinant,
                det((n, d, s), (c, dc, cs), (s, ds, ss)) / determinant,
                det((n, c, d), (c, cc, dc), (s, cs, ds)) / determinant)
    }
}

/// The grey value R + 2G + B of the image round (x, y), `reach` plus a margin of 3 px either
/// way, smoothed (`binomialSmooth`: a single noisy pixel would otherwise stand out of a ray),
/// handed to `body` with the window's size and the centre's position in it. The smoothing
/// leaves the window's two outermost rows and columns unwritten and a bilinear sample reads
/// one pixel on: samples are good from 2 to `width - 4` (`height - 4`) in the window, which
/// takes in everything within `reach` of the centre. Nil when the window leaves the image;
/// with `partial`, the window is cut to the image instead, and nil only when the centre is not
/// among the good samples.
func withSmoothedGreyWindow<T>(_ image: Image, x: Double, y: Double, reach: Double, partial: Bool = false,
                               _ body: (_ smooth: UnsafePointer<Float>, _ width: Int, _ height: Int,
                                        _ cx: Double, _ cy: Double) -> T) -> T? {
    let margin = 3.0
    // Compared as doubles first: an integer conversion of a coordinate far outside traps.
    guard x.isFinite, y.isFinite, reach.isFinite, reach >= 0 else { return nil }
    let inside = x - reach - margin >= 0 && y - reach - margin >= 0 && x + reach + margin <= Double(image.width - 1)
        && y + reach + margin <= Double(image.height - 1)
    guard inside || (partial && x >= 2 && y >= 2 && x <= Double(image.width - 4) && y <= Double(image.height - 4))
    else { return nil }
    // Clamped as doubles first, for the same reason.
    let x0 = Int(max(0, (x - reach - margin).rounded(.down))), y0 = Int(max(0, (y - reach - margin).rounded(.down)))
    let width = Int(min(Double(image.width - 1), (x + reach + margin).rounded(.up))) - x0 + 1
    let height = Int(min(Double(image.height - 1), (y + reach + margin).rounded(.up))) - y0 + 1
    return withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * width * height) { buffer in
        let grey = buffer.baseAddress!, smooth = grey + width * height
        greyWindow(image, x0: x0, y0: y0, width: width, height: height, into: grey)
        binomialSmooth(grey, into: smooth, width: width, height: height)
        return body(smooth, width, height, x - Double(x0), y - Double(y0))
    }
}

/// `source` (`width` x `height`, row-major) smoothed by the binomial kernel (1 4 6 4 1) / 16
/// along rows, then columns: a Gaussian of sigma 1 px within a few percent, in ten
/// multiply-adds a pixel. The two outermost rows and columns of `out` are not written.
func binomialSmooth(_ source: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, width: Int, height: Int) {
    guard width >= 5, height >= 5 else { return }
    withUnsafeTemporaryAllocation(of: Float.self, capacity: width * height) { buffer in
        let rows = buffer.baseAddress!
        for y in 0..<height {
            let s = source + y * width, o = rows + y * width
            for x in 2..<(width - 2) {
                o[x] = (s[x - 2] + s[x + 2] + 4 * (s[x - 1] + s[x + 1]) + 6 * s[x]) * (1 / 16)
            }
        }
        for y in 2..<(height - 2) {
            let a = rows + (y - 2) * width, b = a + width, c = b + width, d = c + width, e = d + width
            let o = out + y * width
            for x in 2..<(width - 2) {
                o[x] = (a[x] + e[x] + 4 * (b[x] + d[x]) + 6 * c[x]) * (1 / 16)
            }
        }
    }
}
