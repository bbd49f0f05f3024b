import Foundation

/// How far the log luminance between two points falls below the darker of the two: the
/// darkest of nine samples over the middle of the segment (0.3 ... 0.7 of the way) minus the
/// darker end's value. Negative when something darker than either point lies between them.
///
/// Why: two touching cells meet along their rims, which are darker than either centre (a clear
/// cell's refractile body, a dead cell's filled disc); two points inside one cell see the
/// cell's own body between them, as bright or as dark as the points themselves.
///
/// - Parameters:
///   - flat: luminance divided by the background (1 = background), working pixels.
///   - scale: image pixels per working pixel.
///   - a, b: the two points, image pixels.
/// - Returns: a difference of natural logs (−0.3: the darkest sample about 26 % darker than the
///   darker end); 0 for an empty plane.
func junctionDip(_ flat: Plane, scale: Int, from a: (x: Double, y: Double), to b: (x: Double, y: Double)) -> Double {
    guard flat.width > 0, flat.height > 0 else { return 0 }
    let working = WorkingScale(scale)
    func logSample(_ t: Double) -> Double {
        let x = working.toWorking(a.x + t * (b.x - a.x)), y = working.toWorking(a.y + t * (b.y - a.y))
        return log(max(1e-3, Double(flat.bilinear(x, y))))
    }
    let darkerEnd = min(logSample(0), logSample(1))
    let darkestBetween = (6...14).lazy.map { logSample(Double($0) / 20) }.min() ?? darkerEnd
    return darkestBetween - darkerEnd
}
