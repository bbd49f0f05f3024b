import Foundation

/// Fraction of `sectors` angular sectors around a candidate that hold a boundary pointing at
/// its centre: a pixel between 0.3 r and 1.6 r from the centre whose gradient exceeds
/// `threshold` and points along the ray from the centre (within about 25 degrees, either
/// polarity).
///
/// A cell's rim, clear or dark, faces its centre all the way round: coverage near 1. A straight
/// line (or a triple line, or a crossing) near the centre faces it only from the rays close to
/// the line's normal: at most about 30% (55% at a crossing). Noise and specks smaller than the
/// annulus give scattered, unaligned gradients.
/// - Parameters:
///   - plane: smoothed log luminance.
///   - x, y, r: candidate centre and radius, pixels of `plane`.
///   - threshold: gradient magnitude, plane units per pixel (e.g. 3 x `gradientNoise`).
///   - gridNormals: directions (radians) of the ruling's line normals, if known.
/// - Returns: the coverage, the median distance of the facing boundary pixels from the centre
///   (the boundary radius; a debris speck's is far below a cell's) and the share of facing
///   boundary pixels whose gradient lies within 10 degrees of a grid normal (a cell's boundary
///   turns through every direction, about 22% of it near the four normals; the inside of a
///   small ruling square faces its centre only from its four sides, close to 100%); and which
///   sectors hold such a pixel (`sectors` flags from angle 0 on, empty when nothing was measured).
public func radialEdgeCoverage(_ plane: Plane, x: Double, y: Double, r: Double, threshold: Float,
                               sectors: Int = 16, gridNormals: [Double] = [])
    -> (coverage: Double, edgeRadius: Double, gridAligned: Double, sectorHits: [Bool]) {
    let w = plane.width, h = plane.height
    guard w >= 3, h >= 3, r > 0, sectors > 0 else { return (0, 0, 0, []) }
    let inner = 0.3 * r, outer = 1.6 * r
    let x0 = max(1, Int((x - outer).rounded(.down))), x1 = min(w - 2, Int((x + outer).rounded(.up)))
    let y0 = max(1, Int((y - outer).rounded(.down))), y1 = min(h - 2, Int((y + outer).rounded(.up)))
    guard x0 <= x1, y0 <= y1 else { return (0, 0, 0, []) }
    var hit = [Bool](repeating: false, count: sectors)
    var distances: [Float] = []
    var aligned = 0, facing = 0
    // Grid normals as unit vectors; alignment is |cos| >= cos 10 degrees (either sign).
    let normals = gridNormals.map { (Float(cos($0)), Float(sin($0))) }
    let alignedCos: Float = 0.985
    let cosLimit: Float = 0.9
    let t2 = threshold * threshold
    let sectorOf = SectorLocator(sectors: sectors)
    // Column offsets from the centre and their squares, formed once (same bits as per pixel).
    let cols = x1 - x0 + 1
    var columns = [Double](repeating: 0, count: 2 * cols)
    let innerSq = inner * inner, outerSq = outer * outer
    plane.data.withUnsafeBufferPointer { d in
        columns.withUnsafeMutableBufferPointer { cb in
            let dxs = cb.baseAddress!, dx2s = dxs + cols
            for k in 0..<cols {
                let dx = Double(x0 + k) - x
                dxs[k] = dx
                dx2s[k] = dx * dx
            }
            for py in y0...y1 {
                let dy = Double(py) - y
                let dy2 = dy * dy
                // dx * dx + dy * dy >= dy * dy in floating point too: nothing within reach.
                guard dy2 <= outerSq else { continue }
                let fdy = Float(dy)
                let row = d.baseAddress! + py &* w
                for k in 0..<cols {
                    let dist2 = dx2s[k] + dy2
                    guard dist2 >= innerSq, dist2 <= outerSq else { continue }
                    let i = x0 &+ k
                    let gx = (row[i &+ 1] - row[i &- 1]) * 0.5, gy = (row[i &+ w] - row[i &- w]) * 0.5
                    let g2 = gx * gx + gy * gy
                    guard g2 > t2 else { continue }
                    let dist = Float(dist2.squareRoot())
                    let dx = dxs[k]
                    let along = (gx * Float(dx) + gy * fdy) / dist
                    guard along * along >= cosLimit * cosLimit * g2 else { continue }
                    hit[sectorOf(dx: dx, dy: dy)] = true
                    distances.append(dist)
                    facing += 1
                    let g = g2.squareRoot()
                    for n in normals where abs(n.0 * gx + n.1 * gy) >= alignedCos * g {
                        aligned += 1
                        break
                    }
                }
            }
        }
    }
    // Distances are square roots (no NaN, no -0): rank selection on the short lists gives
    // quickselect's value without its mispredicted partitions.
    let edgeRadius = distances.isEmpty ? 0 : Double(distances.withUnsafeMutableBufferPointer { d in
        d.count <= rankSelectLimit ? selectKthByRank(d, d.count / 2) : selectKth(d, d.count / 2)
    })
    return (Double(hit.filter { $0 }.count) / Double(sectors), edgeRadius,
            facing > 0 ? Double(aligned) / Double(facing) : 0, hit)
}

/// The angular sector of a direction, `min(sectors - 1, Int(a / 2 pi * sectors))` with `a` its
/// `atan2` angle in [0, 2 pi), without a libm call for all but the directions within about
/// 1e-9 rad of a sector boundary.
///
/// Why exact: a cheap polynomial guesses the sector; two cross products with the sector's
/// boundary directions confirm it with a margin far above their rounding error (and above
/// atan2's), so a confirmed direction lies inside the sector whichever way it is rounded, and
/// any other goes through the original `atan2` formula.
struct SectorLocator {
    let sectors: Int
    /// Boundary directions (cos, sin) of k * 2 pi / sectors, k = 0 ... sectors.
    private let boundaries: [(Double, Double)]

    init(sectors: Int) {
        self.sectors = sectors
        boundaries = (0...sectors).map { k in
            let a = 2 * Double.pi * Double(k) / Double(sectors)
            return (cos(a), sin(a))
        }
    }

    /// The sector the original formula gives for the direction (dx, dy).
    @inline(__always)
    func callAsFunction(dx: Double, dy: Double) -> Int {
        let length = abs(dx) + abs(dy)
        // Sectors of half a turn or more are no cone for the cross-product test.
        if sectors >= 3, length > 0, length.isFinite {
            let guess = sectors == 16 ? sixteenth(dx: dx, dy: dy)
                : min(sectors - 1, max(0, Int(approximateTurns(dx: dx, dy: dy) * Double(sectors))))
            let lower = boundaries[guess], upper = boundaries[guess + 1]
            // |cross| <= |b| |d| <= length; 1e-9 is many orders above the rounding of both.
            let margin = 1e-9 * length
            if lower.0 * dy - lower.1 * dx > margin, upper.0 * dy - upper.1 * dx < -margin { return guess }
        }
        var a = atan2(dy, dx)
        if a < 0 { a += 2 * .pi }
        return min(sectors - 1, Int(a / (2 * .pi) * Double(sectors)))
    }

    /// The sixteenth of a turn the direction lies in, from its quadrant and two comparisons
    /// with tan(22.5 degrees) (no division or polynomial: the boundary test runs this for every
    /// pixel facing a candidate). Only a guess; `callAsFunction` confirms it.
    @inline(__always)
    private func sixteenth(dx: Double, dy: Double) -> Int {
        let ax = abs(dx), ay = abs(dy)
        let slope = 0.414_213_562_373_095_1
        // Sixteenths into the quadrant, counted from the x axis.
        let q = ay < slope * ax ? 0 : ay < ax ? 1 : ax > slope * ay ? 2 : 3
        if dy >= 0 { return dx >= 0 ? q : 7 - q }
        return dx >= 0 ? 15 - q : 8 + q
    }

    /// The direction's angle in turns (0 ..< 1) to about 1e-5: a polynomial arctangent on the
    /// octant's slope. Only a guess; `callAsFunction` confirms it.
    @inline(__always)
    private func approximateTurns(dx: Double, dy: Double) -> Double {
        let ax = abs(dx), ay = abs(dy)
        let t = min(ax, ay) / max(ax, ay), t2 = t * t
        var a = t * (0.999_866 + t2 * (-0.330_299_5 + t2 * (0.180_141 + t2 * (-0.085_133 + t2 * 0.020_835_1))))
        if ay > ax { a = .pi / 2 - a }
        if dx < 0 { a = .pi - a }
        if dy < 0 { a = 2 * .pi - a }
        return a / (2 * .pi)
    }
}

/// Robust noise of the central-difference x-derivative of a plane (plane units per pixel):
/// the 25th percentile of |d/dx| over every `stride`-th sample, scaled to a standard deviation.
public func gradientNoise(_ plane: Plane, stride: Int = 7) -> Float {
    let w = plane.width
    guard w >= 3, plane.height >= 1 else { return 0 }
    var samples: [Float] = []
    samples.reserveCapacity(plane.count / max(1, stride) + 1)
    plane.data.withUnsafeBufferPointer { d in
        var i = 1
        while i < d.count - 1 {
            let x = i % w
            if x > 0 && x < w - 1 { samples.append(abs(d[i + 1] - d[i - 1]) * 0.5) }
            i += max(1, stride)
        }
    }
    return sigmaFromMagnitudes(samples)
}

/// The gradient a boundary pixel must exceed (`radialEdgeCoverage`, plane units per pixel):
/// `noiseMultiple` x `gradientNoise`, but never below `floor`. Blur leaves a JPEG's block edges
/// as nearly the only texture, so the noise estimate sinks and the blocks would pass for
/// boundaries.
public func boundaryThreshold(_ plane: Plane, noiseMultiple: Double, floor: Double) -> Float {
    max(Float(noiseMultiple) * gradientNoise(plane), Float(floor))
}

/// Share of `sectors` angular sectors (numbered as in `radialEdgeCoverage`) whose rim point,
/// `r` from the centre on the sector's middle ray, lies where the boundary tests can read a
/// gradient (one pixel inside the plane's edge), but never below 0.625 (10 of 16): a cell
/// cut by the image border shows only that part of its boundary, and its centre (which
/// labels place inside the image) keeps at least about half of it in view; the floor keeps a
/// sliver of rim from standing for a whole cell.
/// - Parameters:
///   - x, y, r: candidate centre and radius, pixels of a `width` x `height` plane.
public func visibleSectorShare(x: Double, y: Double, r: Double, width: Int, height: Int,
                               sectors: Int = 16) -> Double {
    guard sectors > 0 else { return 1 }
    let maxX = Double(width - 2), maxY = Double(height - 2)
    // Nearly every candidate's whole circle is in view: no rim point to test.
    if x - r >= 1, x + r <= maxX, y - r >= 1, y + r <= maxY { return 1 }
    var visible = 0
    for k in 0..<sectors {
        let a = (Double(k) + 0.5) * 2 * Double.pi / Double(sectors)
        let px = x + r * cos(a), py = y + r * sin(a)
        if px >= 1, px <= maxX, py >= 1, py <= maxY { visible += 1 }
    }
    return max(0.625, Double(visible) / Double(sectors))
}
