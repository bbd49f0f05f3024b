/// Moves a blob centre to the weighted centroid of `plane` (a non-negative contrast map)
/// inside a disc of `fraction * r`, repeated `iterations` times. A symmetric cell (a ring, a
/// filled disc) pulls the centre onto its axis; the small disc keeps touching neighbours out.
///
/// - Parameters:
///   - x, y, r: start centre and radius, pixels of `plane`.
/// - Returns: the refined centre; the start when the disc holds no weight or the move exceeds
///   half the radius (a neighbour took over).
public func refineCentre(_ plane: Plane, x: Double, y: Double, r: Double, fraction: Double = 0.8,
                         iterations: Int = 2) -> (x: Double, y: Double) {
    let (cx, cy) = weightedCentroid(plane, x: x, y: y, radius: max(1, fraction * r), floor: 0,
                                    iterations: max(0, iterations))
    let moved = ((cx - x) * (cx - x) + (cy - y) * (cy - y)).squareRoot()
    return moved <= 0.5 * r ? (cx, cy) : (x, y)
}

/// The centroid of `plane - floor` over the samples above `floor` within `radius` of the
/// centre, the centre moved there `iterations` times from (x, y); it stays where the disc holds
/// no weight. Non-finite inputs return (x, y).
func weightedCentroid(_ plane: Plane, x: Double, y: Double, radius: Double, floor: Float,
                      iterations: Int) -> (x: Double, y: Double) {
    let w = plane.width, h = plane.height
    guard w > 0, h > 0, x.isFinite, y.isFinite, radius.isFinite, radius > 0 else { return (x, y) }
    var cx = x, cy = y
    for _ in 0..<max(0, iterations) {
        let x0 = max(0, Int((cx - radius).rounded(.down))), x1 = min(w - 1, Int((cx + radius).rounded(.up)))
        let y0 = max(0, Int((cy - radius).rounded(.down))), y1 = min(h - 1, Int((cy + radius).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { break }
        var sum = 0.0, sx = 0.0, sy = 0.0
        for py in y0...y1 {
            let dy = Double(py) - cy
            for px in x0...x1 {
                let dx = Double(px) - cx
                guard dx * dx + dy * dy <= radius * radius else { continue }
                let v = plane.data[py * w + px] - floor
                guard v > 0 else { continue }
                sum += Double(v)
                sx += Double(v) * Double(px)
                sy += Double(v) * Double(py)
            }
        }
        guard sum > 0 else { break }
        cx = sx / sum
        cy = sy / sum
    }
    return (cx, cy)
}
