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
///   small ruling square faces its centre only from its four sides, close to 100%).
public func radialEdgeCoverage(_ plane: Plane, x: Double, y: Double, r: Double, threshold: Float,
                               sectors: Int = 16, gridNormals: [Double] = [])
    -> (coverage: Double, edgeRadius: Double, gridAligned: Double) {
    let w = plane.width, h = plane.height
    guard w >= 3, h >= 3, r > 0, sectors > 0 else { return (0, 0, 0) }
    let inner = 0.3 * r, outer = 1.6 * r
    let x0 = max(1, Int((x - outer).rounded(.down))), x1 = min(w - 2, Int((x + outer).rounded(.up)))
    let y0 = max(1, Int((y - outer).rounded(.down))), y1 = min(h - 2, Int((y + outer).rounded(.up)))
    guard x0 <= x1, y0 <= y1 else { return (0, 0, 0) }
    var hit = [Bool](repeating: false, count: sectors)
    var distances: [Float] = []
    var aligned = 0, facing = 0
    // Grid normals as unit vectors; alignment is |cos| >= cos 10 degrees (either sign).
    let normals = gridNormals.map { (Float(cos($0)), Float(sin($0))) }
    let alignedCos: Float = 0.985
    let cosLimit: Float = 0.9
    let t2 = threshold * threshold
    plane.data.withUnsafeBufferPointer { d in
        for py in y0...y1 {
            let dy = Double(py) - y
            for px in x0...x1 {
                let dx = Double(px) - x
                let dist2 = dx * dx + dy * dy
                guard dist2 >= inner * inner, dist2 <= outer * outer else { continue }
                let i = py * w + px
                let gx = (d[i + 1] - d[i - 1]) * 0.5, gy = (d[i + w] - d[i - w]) * 0.5
                let g2 = gx * gx + gy * gy
                guard g2 > t2 else { continue }
                let dist = Float(dist2.squareRoot())
                let along = (gx * Float(dx) + gy * Float(dy)) / dist
                guard along * along >= cosLimit * cosLimit * g2 else { continue }
                var a = atan2(dy, dx)
                if a < 0 { a += 2 * .pi }
                hit[min(sectors - 1, Int(a / (2 * .pi) * Double(sectors)))] = true
                distances.append(dist)
                facing += 1
                let g = g2.squareRoot()
                if normals.contains(where: { abs($0.0 * gx + $0.1 * gy) >= alignedCos * g }) { aligned += 1 }
            }
        }
    }
    let edgeRadius = Double(selectKth(&distances, distances.count / 2) ?? 0)
    return (Double(hit.filter { $0 }.count) / Double(sectors), edgeRadius,
            facing > 0 ? Double(aligned) / Double(facing) : 0)
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
    return (selectKth(&samples, samples.count / 4) ?? 0) / 0.3186
}
