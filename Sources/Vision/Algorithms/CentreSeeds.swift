import CKernels
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
    centreVoteMap(plane, minRadius: minRadius, maxRadius: maxRadius, threshold: threshold, gridNormals: gridNormals,
                  wide: wideGrey)
}

/// `centreVoteMap`; `wide` casts the votes with `ck_centre_votes_avx2` (only where the CPU
/// runs AVX2: eight steps of a gradient line at a time, with the float-to-integer conversion
/// the default target lacks) instead of the Swift loop, for the tests that compare the two.
func centreVoteMap(_ plane: Plane, minRadius: Double, maxRadius: Double, threshold: Float,
                   gridNormals: [Double], wide: Bool) -> Plane {
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
    // One spare bin past the plane takes the votes that fall outside it, so a vote is cast
    // without a branch; it is never read. Every vote adds 1 to an integer-valued count, so
    // the counts are exact whatever the order.
    let spare = w * h
    var votes = [Float](repeating: 0, count: spare + 1)
    let fw = Float(w), fh = Float(h)
    if wide && wideGrey && spare < Int(Int32.max) {
        let pairs = normals.flatMap { [$0.0, $0.1] }
        plane.data.withUnsafeBufferPointer { d in
            votes.withUnsafeMutableBufferPointer { acc in
                pairs.withUnsafeBufferPointer { n in
                    ck_centre_votes_avx2(d.baseAddress!, w, h, t2, n.baseAddress, normals.count, alignedCos, inner, dstep,
                                         steps, acc.baseAddress!)
                }
            }
        }
    } else {
        plane.data.withUnsafeBufferPointer { d in
            votes.withUnsafeMutableBufferPointer { acc in
                let a = acc.baseAddress!
                @inline(__always) func vote(_ vx: Float, _ vy: Float) {
                    // Int(v) truncates, which is the floor for v >= 0: in the plane exactly when
                    // 0 <= v < size. Clamped first, so that the bin of a vote outside is formed
                    // without a trap and without a branch, then not taken.
                    let inside = vx >= 0 && vy >= 0 && vx < fw && vy < fh
                    let bin = Int(min(max(vy, 0), fh)) &* w &+ Int(min(max(vx, 0), fw))
                    a[inside ? bin : spare] += 1
                }
                @inline(__always) func cast(_ x: Int, _ y: Int, gx: Float, gy: Float, g2: Float) {
                    let g = g2.squareRoot()
                    if normals.contains(where: { abs($0.0 * gx + $0.1 * gy) >= alignedCos * g }) { return }
                    let ux = gx / g, uy = gy / g
                    let px = Float(x) + 0.5, py = Float(y) + 0.5
                    for s in 0...steps {
                        let dist = inner + Float(s) * dstep
                        // Both ways: the polarity of a rim (dark or clear) is unknown. (-dist) * u
                        // is -(dist * u) exactly, and adding it subtracting dist * u.
                        let ax = dist * ux, ay = dist * uy
                        vote(px + ax, py + ay)
                        vote(px - ax, py - ay)
                    }
                }
                typealias V = SIMD8<Float>
                @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
                let t2v = V(repeating: t2)
                for y in 1..<(h - 1) {
                    var x = 1
                    // Most pixels lie below the threshold: eight at a time are ruled out on their
                    // squared gradients (the same expressions, lane by lane).
                    while x &+ 8 <= w &- 1 {
                        let p = d.baseAddress! + (y &* w &+ x)
                        let gxv = (load(p + 1) - load(p - 1)) * 0.5, gyv = (load(p + w) - load(p - w)) * 0.5
                        let g2v = gxv * gxv + gyv * gyv
                        let above = g2v .> t2v
                        if any(above) {
                            for lane in 0..<8 where above[lane] {
                                cast(x &+ lane, y, gx: gxv[lane], gy: gyv[lane], g2: g2v[lane])
                            }
                        }
                        x &+= 8
                    }
                    while x < w &- 1 {
                        let i = y &* w &+ x
                        let gx = (d[i &+ 1] - d[i &- 1]) * 0.5, gy = (d[i &+ w] - d[i &- w]) * 0.5
                        let g2 = gx * gx + gy * gy
                        if g2 > t2 { cast(x, y, gx: gx, gy: gy, g2: g2) }
                        x &+= 1
                    }
                }
            }
        }
    }
    votes.withUnsafeBufferPointer { v in
        summed.data.withUnsafeMutableBufferPointer { out in
            typealias V = SIMD8<Float>
            @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
            for y in 1..<(h - 1) {
                var x = 1
                // Eight outputs at a time, the nine terms added in the same order.
                while x &+ 8 <= w &- 1 {
                    let c = v.baseAddress! + (y &* w &+ x), up = c - w, down = c + w
                    let sum = load(up - 1) + load(up) + load(up + 1) + load(c - 1) + load(c) + load(c + 1)
                        + load(down - 1) + load(down) + load(down + 1)
                    UnsafeMutableRawPointer(out.baseAddress! + (y &* w &+ x)).storeBytes(of: sum, as: V.self)
                    x &+= 8
                }
                while x < w &- 1 {
                    let i = y &* w &+ x
                    out[i] = v[i &- w &- 1] + v[i &- w] + v[i &- w &+ 1] + v[i &- 1] + v[i] + v[i &+ 1]
                        + v[i &+ w &- 1] + v[i &+ w] + v[i &+ w &+ 1]
                    x &+= 1
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
                guard isPlateauPeak(m, at: i, width: w) else { continue }
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

/// Whether sample `i` of a plane of `width` (not on its border) is a local maximum of its
/// 3 x 3 neighbourhood, strict on the previous neighbours and non-strict on the next: one
/// peak per plateau, the first in raster order.
@inline(__always)
func isPlateauPeak(_ d: UnsafeBufferPointer<Float>, at i: Int, width w: Int) -> Bool {
    let v = d[i]
    return !(v <= d[i - 1] || v < d[i + 1] || v <= d[i - w - 1] || v <= d[i - w] || v <= d[i - w + 1]
        || v < d[i + w - 1] || v < d[i + w] || v < d[i + w + 1])
}
