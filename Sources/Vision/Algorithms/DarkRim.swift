import Foundation

/// Depth of the darkest ring around a point: for each one-pixel-wide ring between `innerRadius`
/// and `outerRadius`, the `quantile` of its samples (a ring is dark where a good part of it is
/// dark: a faint rim broken by noise or a neighbour still counts, a ruling line crossing the
/// ring covers too little of it); returns the smallest.
///
/// A cell's refractive boundary shows as a dark rim in either direction of defocus; a bright
/// speck of debris or glare has none, so around it every ring stays at the background (0).
///
/// - Parameters:
///   - logLuminance: log of the flattened luminance (background 0), smoothed.
///   - x, y: centre, pixels of the plane.
///   - innerRadius, outerRadius: ring radii searched, pixels (rings start at `innerRadius`).
///   - quantile: 0 ... 1 (0.3: 30% of the ring must be at least this dark; measured on the
///     Goldens, it separates defocused cells from bright specks better than 0.5 or 0.75).
/// - Returns: the darkest ring's quantile (negative = darker than the background); 0 when no
///   ring lies inside the plane.
public func darkRimDepth(_ logLuminance: Plane, x: Double, y: Double, innerRadius: Double, outerRadius: Double,
                         quantile: Double = 0.3) -> Float {
    let w = logLuminance.width, h = logLuminance.height
    guard w > 0, h > 0, x.isFinite, y.isFinite, outerRadius.isFinite, outerRadius > innerRadius, innerRadius >= 0 else { return 0 }
    let rings = max(1, Int((outerRadius - innerRadius).rounded(.up)))
    var samples = [[Float]](repeating: [], count: rings)
    let x0 = max(0, Int((x - outerRadius).rounded(.down))), x1 = min(w - 1, Int((x + outerRadius).rounded(.up)))
    let y0 = max(0, Int((y - outerRadius).rounded(.down))), y1 = min(h - 1, Int((y + outerRadius).rounded(.up)))
    guard x0 <= x1, y0 <= y1 else { return 0 }
    logLuminance.data.withUnsafeBufferPointer { d in
        for py in y0...y1 {
            let dy = Double(py) - y
            for px in x0...x1 {
                let dx = Double(px) - x
                let ring = Int(((dx * dx + dy * dy).squareRoot() - innerRadius).rounded(.down))
                guard ring >= 0, ring < rings else { continue }
                samples[ring].append(d[py * w + px])
            }
        }
    }
    var deepest: Float = .infinity
    for var ring in samples where !ring.isEmpty {
        ring.sort()
        let k = min(ring.count - 1, Int(quantile * Double(ring.count - 1)))
        deepest = min(deepest, ring[k])
    }
    return deepest.isFinite ? deepest : 0
}
