import Foundation

/// Where the boundary gradients of the whole plane meet: a circle Hough transform over the
/// image with the radius unknown within a range, summed over 3x3 bins.
///
/// Why: a multi-scale blob detector sees a clump of touching cells, or a chain of them, as
/// one larger blob and reports one centre for three or four cells. Each cell's rim still faces
/// its own centre, so rays along the rim's gradients meet there. Gradients within 10 degrees of
/// a ruling normal do not vote: a ruling line's edges would pile votes into bands along it,
/// and a cell keeps most of its rim.
///
/// - Parameters:
///   - plane: smoothed log luminance (working scale).
///   - minRadius, maxRadius: cell radius range, pixels of `plane`.
///   - threshold: gradient magnitude a boundary pixel needs, plane units per pixel.
///   - gridNormals: ruling line normals, radians.
/// - Returns: per pixel, the votes of its 3x3 neighbourhood (one vote per boundary pixel
///   whose gradient line passes, per step along it); 0 on the border.
public func centreVoteMap(_ plane: Plane, minRadius: Double, maxRadius: Double, threshold: Float,
                          gridNormals: [Double] = []) -> Plane {
    let w = plane.width, h = plane.height
    var summed = Plane(width: w, height: h)
    guard w >= 5, h >= 5, minRadius > 0, maxRadius >= minRadius else { return summed }
    // A speck's own edges, nearer its centre than this, do not vote for it.
    let inner = Float(0.6 * minRadius), outer = Float(1.4 * maxRadius)
    let steps = max(1, Int((outer - inner).rounded(.up)))
    let dstep = (outer - inner) / Float(steps)
    let normals = gridNormals.map { (Float(cos($0)), Float(sin($0))) }
    let alignedCos: Float = 0.985
    let t2 = threshold * threshold
    var votes = [Float](repeating: 0, count: w * h)
    plane.data.withUnsafeBufferPointer { d in
        votes.withUnsafeMutableBufferPointer { acc in
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y &* w &+ x
                    let gx = (d[i &+ 1] - d[i &- 1]) * 0.5, gy = (d[i &+ w] - d[i &- w]) * 0.5
                    let g2 = gx * gx + gy * gy
                    guard g2 > t2 else { continue }
                    let g = g2.squareRoot()
                    if normals.contains(where: { abs($0.0 * gx + $0.1 * gy) >= alignedCos * g }) { continue }
                    let ux = gx / g, uy = gy / g
                    let px = Float(x) + 0.5, py = Float(y) + 0.5
                    for s in 0...steps {
                        let dist = inner + Float(s) * dstep
                        // Both ways: the polarity of a rim (dark or clear) is unknown.
                        for sign: Float in [1, -1] {
                            let vx = px + sign * dist * ux, vy = py + sign * dist * uy
                            guard vx >= 0, vy >= 0 else { continue }
                            let bx = Int(vx), by = Int(vy)
                            guard bx < w, by < h else { continue }
                            acc[by &* w &+ bx] += 1
                        }
                    }
                }
            }
        }
    }
    votes.withUnsafeBufferPointer { v in
        summed.data.withUnsafeMutableBufferPointer { out in
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y &* w &+ x
                    out[i] = v[i &- w &- 1] + v[i &- w] + v[i &- w &+ 1] + v[i &- 1] + v[i] + v[i &+ 1]
                        + v[i &+ w &- 1] + v[i &+ w] + v[i &+ w &+ 1]
                }
            }
        }
    }
    return summed
}

/// Cell centres in a `centreVoteMap`: its local maxima holding at least `minVotes` times the
/// smallest cell's circumference (`2 pi minRadius`, plane pixels).
/// - Returns: plane pixels, strongest first, each with its votes over that circumference.
public func centreSeeds(_ map: Plane, minRadius: Double, minVotes: Double) -> [(x: Int, y: Int, votes: Double)] {
    let w = map.width, h = map.height
    guard w >= 5, h >= 5, minRadius > 0, minVotes > 0 else { return [] }
    let circumference = 2 * Double.pi * minRadius
    let floor = Float(minVotes * circumference)
    var seeds: [(x: Int, y: Int, votes: Double)] = []
    map.data.withUnsafeBufferPointer { m in
        for y in 2..<(h - 2) {
            for x in 2..<(w - 2) {
                let i = y * w + x
                let v = m[i]
                guard v >= floor else { continue }
                // Strict on the previous neighbours, non-strict on the next: one peak per plateau.
                if v <= m[i - 1] || v < m[i + 1] || v <= m[i - w - 1] || v <= m[i - w]
                    || v <= m[i - w + 1] || v < m[i + w - 1] || v < m[i + w] || v < m[i + w + 1] { continue }
                seeds.append((x, y, Double(v) / circumference))
            }
        }
    }
    return seeds.sorted { ($0.votes, $1.y, $1.x) > ($1.votes, $0.y, $0.x) }
}

/// Candidates from `centreSeeds` that no detector candidate already stands for (none within
/// half the smallest radius). They carry score 0 (no detector response), and are tested and
/// vote at the geometric mean of the radius range (the boundary tests correct it).
func seedCandidates(_ voteMap: Plane, besides found: [Candidate], minR: Double, maxR: Double,
                    minVotes: Double) -> [Candidate] {
    let near = 0.5 * minR
    let bucket = max(1, near)
    func key(_ x: Double, _ y: Double) -> Int64 { Int64((y / bucket).rounded(.down)) << 32 | Int64(UInt32(truncatingIfNeeded: Int((x / bucket).rounded(.down)))) }
    var index: [Int64: [(Double, Double)]] = [:]
    for c in found { index[key(c.x, c.y), default: []].append((c.x, c.y)) }
    let r = (minR * maxR).squareRoot()
    var seeds: [Candidate] = []
    for seed in centreSeeds(voteMap, minRadius: minR, minVotes: minVotes) {
        let x = Double(seed.x), y = Double(seed.y)
        var taken = false
        for dy in -1...1 {
            for dx in -1...1 {
                for (cx, cy) in index[key(x + Double(dx) * bucket, y + Double(dy) * bucket)] ?? []
                where (cx - x) * (cx - x) + (cy - y) * (cy - y) < near * near { taken = true }
            }
        }
        if taken { continue }
        index[key(x, y), default: []].append((x, y))
        seeds.append(Candidate(x: x, y: y, r: r, score: 0, contrast: 0, seeded: true))
    }
    return seeds
}
