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
    let x0 = max(0, Int((x - outerRadius).rounded(.down))), x1 = min(w - 1, Int((x + outerRadius).rounded(.up)))
    let y0 = max(0, Int((y - outerRadius).rounded(.down))), y1 = min(h - 1, Int((y + outerRadius).rounded(.up)))
    guard x0 <= x1, y0 <= y1 else { return 0 }
    // The rings' samples side by side in one buffer, each ring's in window order (as appending
    // to an array per ring put them): a ring index per pixel and the rings' sizes first, then
    // every sample at its ring's next place. Thousands of candidates each grew a dozen arrays
    // append by append before.
    let columns = x1 - x0 + 1, pixels = columns * (y1 - y0 + 1)
    return withUnsafeTemporaryAllocation(of: Int32.self, capacity: pixels + rings) { ints in
        withUnsafeTemporaryAllocation(of: Float.self, capacity: pixels) { values in
            let ringOf = ints.baseAddress!, next = ringOf + pixels
            next.initialize(repeating: 0, count: rings)
            for py in y0...y1 {
                let dy = Double(py) - y
                let row = ringOf + (py - y0) * columns
                for px in x0...x1 {
                    let dx = Double(px) - x
                    // floor of a non-negative value is its truncation; below zero is no ring.
                    let t = (dx * dx + dy * dy).squareRoot() - innerRadius
                    let ring = t >= 0 && t < Double(rings) ? Int(t) : -1
                    row[px - x0] = Int32(truncatingIfNeeded: ring)
                    if ring >= 0 { next[ring] &+= 1 }
                }
            }
            // Sizes to starts; `next` then advances through each ring's place.
            var start: Int32 = 0
            for ring in 0..<rings {
                let size = next[ring]
                next[ring] = start
                start &+= size
            }
            let buffer = values.baseAddress!
            logLuminance.data.withUnsafeBufferPointer { d in
                for py in y0...y1 {
                    let row = ringOf + (py - y0) * columns
                    for px in x0...x1 {
                        let ring = Int(row[px - x0])
                        guard ring >= 0 else { continue }
                        (buffer + Int(next[ring])).initialize(to: d[py * w + px])
                        next[ring] &+= 1
                    }
                }
            }
            // `next` now holds each ring's end, the previous ring's end its start.
            var deepest: Float = .infinity
            var from = 0
            for ring in 0..<rings {
                let end = Int(next[ring])
                defer { from = end }
                guard end > from else { continue }
                var samples = UnsafeMutableBufferPointer(start: buffer + from, count: end - from)
                samples.sort()
                let k = min(samples.count - 1, Int(quantile * Double(samples.count - 1)))
                deepest = min(deepest, samples[k])
            }
            return deepest.isFinite ? deepest : 0
        }
    }
}
