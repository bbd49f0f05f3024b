/// How far a registration (image pixels to chamber µm) puts a view from where another puts it:
/// the largest distance, chamber µm, between the two maps' images of the view's centre and the
/// centres of its four quarters, the first map taken as the nearest of its images under the
/// ruled area's eight symmetries.
///
/// Why the symmetries: the Neubauer-improved ruling looks the same turned a quarter or mirrored
/// about either middle line, so a registration that is one of those images of the true one
/// finds the same kinds of square in the same places (corner squares on corner squares, the
/// central square on itself), and a view cannot tell them apart. Why five points: a map right at
/// the centre can still be turned or scaled wrong away from it.
///
/// - Parameters:
///   - map: the registration judged, image pixels to chamber µm.
///   - truth: the reference registration (a label's grid corners), image pixels to chamber µm.
///   - width, height: the view, image pixels.
/// - Returns: µm, or nil when a point maps to infinity under either map.
public func registrationErrorUm(_ map: Homography, against truth: Homography, width: Int, height: Int) -> Double? {
    let w = Double(width), h = Double(height)
    let points = [(0.5, 0.5), (0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)].map { Point(x: $0.0 * w, y: $0.1 * h) }
    var pairs: [(mapped: Point, true: Point)] = []
    for p in points {
        guard let a = map.apply(p), let b = truth.apply(p) else { return nil }
        pairs.append((a, b))
    }
    let side = NeubauerGeometry.ruledAreaUm
    var best = Double.infinity
    for swapped in [false, true] {
        for mirrorU in [false, true] {
            for mirrorV in [false, true] {
                var worst = 0.0
                for (a, b) in pairs {
                    var u = swapped ? a.y : a.x, v = swapped ? a.x : a.y
                    if mirrorU { u = side - u }
                    if mirrorV { v = side - v }
                    worst = max(worst, ((u - b.x) * (u - b.x) + (v - b.y) * (v - b.y)).squareRoot())
                }
                best = min(best, worst)
            }
        }
    }
    return best
}
