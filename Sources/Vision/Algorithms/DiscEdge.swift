import Foundation
import Imaging

/// The edge a dark disc draws round a centre: along each of 32 rays, the first point (beyond
/// 0.2 r) where the smoothed grey value climbs halfway from the centre's to the background's.
///
/// Why: a live cell far out of focus loses its bright centre and its ring and shows as a grey
/// disc, which the debris rule takes for a dark unstained blob. Blur moves a disc's
/// half-contrast edge hardly at all (a Gaussian's half level sits on the original edge), so
/// the edge still says how large and how round the object is: a cell is round and at least a
/// cell wide; debris is ragged, elongated or smaller than any cell.
struct DiscEdge: Equatable {
    /// Rays round the centre.
    static let rays = 32
    /// Sampling step along a ray, pixels.
    static let step = 0.25
    /// A ray agrees with the disc when its edge lies within this fraction of `radius`.
    static let tolerance = 0.2
    /// Near the image's border: the fewest rays that must show the edge (five eighths of the
    /// circle), and that must reach the background.
    static let minRays = 20
    static let minBackgroundRays = 8

    private static let directions = rayDirections(rays)

    /// Median distance of the rays' edges from the centre, image pixels.
    let radius: Double
    /// Share of the rays whose edge lies within `tolerance` of `radius` (0 ... 1).
    let roundShare: Double
    /// The largest of the outline's harmonics 3 ... 8 (the edge's distance along the rays as a
    /// Fourier series round the centre), as a fraction of `radius`: lobes, corners, a ragged
    /// outline. An ellipse is harmonic 2 alone.
    let lobes: Double
    /// Median over the rays of the distance from 10 % to 90 % of the way up from the centre's
    /// level to the background's, as a fraction of `radius`: under about 1 a disc wider than
    /// its blur (a plateau inside the edge); a speck blurred to a cell's size rises all the
    /// way from its middle (a Gaussian's 1.4).
    let edgeWidth: Double

    /// - Parameters:
    ///   - image: the decoded image: its grey value R + 2G + B, smoothed
    ///     (`withSmoothedGreyWindow`).
    ///   - x, y, r: the centre and the candidate's radius, image pixels. The background is the
    ///     median of the rays' samples 2.0 ... 2.6 r out, the centre's level the median of
    ///     those within 0.3 r.
    /// - Returns: nil when r is not usable, the centre is not darker than the background, or,
    ///   near the image's border, fewer than `minRays` rays show their edge or fewer than
    ///   `minBackgroundRays` reach the background. A ray the border cuts before its edge says
    ///   nothing: the shares are of the rays that do (a cell the border cuts is still a disc
    ///   where it shows), and in the harmonics it stands at the median radius.
    init?(_ image: Image, x: Double, y: Double, r: Double) {
        guard x.isFinite, y.isFinite, r.isFinite, r > 0, r < 1e4 else { return nil }
        let reach = 2.6 * r
        let measured: (radii: [Double?], rise: Double)? = withSmoothedGreyWindow(image, x: x, y: y, reach: reach,
                                                                                partial: true) {
            smooth, width, height, cx, cy in
            // (Inside the image, the reach is bounded.)
            let steps = Int(reach / Self.step)
            return withUnsafeTemporaryAllocation(of: Float.self, capacity: Self.rays * steps) { buffer in
                let profiles = buffer.baseAddress!
                // Good samples lie from 2 to size - 4 in the window (`withSmoothedGreyWindow`).
                let xMax = Double(width - 4), yMax = Double(height - 4)
                func sample(_ px: Double, _ py: Double) -> Float {
                    let ix = Int(px), iy = Int(py)
                    let fx = Float(px - Double(ix)), fy = Float(py - Double(iy))
                    let p = smooth + iy * width + ix
                    let top = p[0] + fx * (p[1] - p[0])
                    let bottom = p[width] + fx * (p[width + 1] - p[width])
                    return top + fy * (bottom - top)
                }
                var inner: [Float] = [], outer: [Float] = []
                var lengths = [Int](repeating: 0, count: Self.rays)
                var reachingBackground = 0
                for (k, (dx, dy)) in Self.directions.enumerated() {
                    var n = 0
                    while n < steps {
                        let t = Double(n) * Self.step
                        let px = cx + t * dx, py = cy + t * dy
                        guard px >= 2, py >= 2, px <= xMax, py <= yMax else { break }
                        let v = sample(px, py)
                        profiles[k * steps + n] = v
                        if t <= 0.3 * r { inner.append(v) } else if t >= 2 * r { outer.append(v) }
                        n += 1
                    }
                    lengths[k] = n
                    if n == steps { reachingBackground += 1 }
                }
                guard reachingBackground >= Self.minBackgroundRays, let centre = median(inner),
                      let background = median(outer), centre < background else { return nil }
                func firstStep(_ k: Int, from: Double, reaching level: Float) -> Int? {
                    let profile = profiles + k * steps
                    return (0..<lengths[k]).first { Double($0) * Self.step >= from && profile[$0] >= level }
                }
                let contrast = background - centre
                var radii: [Double?] = [], rises: [Float] = []
                for k in 0..<Self.rays {
                    let half = firstStep(k, from: 0.2 * r, reaching: centre + 0.5 * contrast)
                    // A ray that ran its length without the edge lies off the disc; one the border
                    // cut short says nothing.
                    radii.append(half.map { Double($0) * Self.step } ?? (lengths[k] == steps ? reach : nil))
                    if let low = firstStep(k, from: 0, reaching: centre + 0.1 * contrast),
                       let high = firstStep(k, from: 0, reaching: centre + 0.9 * contrast) {
                        rises.append(Float(high - low) * Float(Self.step))
                    }
                }
                return (radii, median(rises).map(Double.init) ?? .infinity)
            }
        } ?? nil
        guard let measured else { return nil }
        let known = measured.radii.compactMap { $0 }
        guard known.count >= Self.minRays, let radius = median(known.map { Float($0) }).map(Double.init), radius > 0
        else { return nil }
        self.radius = radius
        roundShare = Double(known.filter { abs($0 - radius) <= Self.tolerance * radius }.count) / Double(known.count)
        let filled = measured.radii.map { $0 ?? radius }
        lobes = (3...8).map { harmonic(filled, $0) }.max()! / radius
        edgeWidth = measured.rise / radius
    }

    /// Whether the edge is a cell's seen out of focus: at least `minRadius` wide, `roundShare`
    /// at least `minShare`, `lobes` at most `maxLobes` and `edgeWidth` at most `maxEdgeWidth`.
    func isDefocusedCell(minRadius: Double, minShare: Double, maxLobes: Double, maxEdgeWidth: Double) -> Bool {
        radius >= minRadius && roundShare >= minShare && lobes <= maxLobes && edgeWidth <= maxEdgeWidth
    }

    /// Whether the outline is ragged, as mottled debris's is: `roundShare` under `maxShare`
    /// and `lobes` above `minLobes`.
    func isRagged(maxShare: Double, minLobes: Double) -> Bool {
        roundShare < maxShare && lobes > minLobes
    }
}

/// Amplitude of harmonic `k` of `values` taken round a circle (evenly spaced angles): the
/// magnitude of their discrete Fourier coefficient, times 2 / count.
private func harmonic(_ values: [Double], _ k: Int) -> Double {
    var re = 0.0, im = 0.0
    for (j, v) in values.enumerated() {
        let a = 2 * Double.pi * Double(k * j) / Double(values.count)
        re += v * cos(a)
        im -= v * sin(a)
    }
    return 2 * (re * re + im * im).squareRoot() / Double(values.count)
}

/// Median of `values` (nil when empty; the upper middle of an even count).
private func median(_ values: [Float]) -> Float? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}
