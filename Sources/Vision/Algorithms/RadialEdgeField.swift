import CKernels
import Foundation

/// The boundary test that runs on thousands of candidates of one image
/// (`radialEdgeCoverage`'s coverage and grid share), with what all of them share formed once.
///
/// Why: each candidate's annulus collected its facing distances for a median the candidates
/// stage never reads, and built its sector lookup (34 libm calls). Here the central-difference
/// gradients of eight pixels are formed at a time, most fall below the threshold on one
/// vector comparison, and every value that decides a result is the same expression on the
/// same samples, so the results are `radialEdgeCoverage`'s bits. The gradients are not kept
/// in planes of their own: three more planes to read cost more in cache misses than the
/// differences cost to form.
struct RadialEdgeField {
    let width: Int
    let height: Int
    private let samples: [Float]
    /// The sector lookup of the stage's sector count, formed once.
    private let sixteenSectors = SectorLocator(sectors: 16)

    init(_ plane: Plane) {
        width = plane.width
        height = plane.height
        samples = plane.data
    }

    /// `radialEdgeCoverage(plane, ...)` without the edge radius: the same coverage and grid share.
    func evidence(x: Double, y: Double, r: Double, threshold: Float, sectors: Int = 16,
                  gridNormals: [Double] = []) -> (coverage: Double, gridAligned: Double) {
        evidence(x: x, y: y, r: r, threshold: threshold, sectors: sectors, gridNormals: gridNormals,
                 wide: wideConvolution)
    }

    /// `evidence`; `wide` finds the facing pixels with `ck_facing_edges_avx` (only where the
    /// CPU runs AVX) or the portable loop, for the tests that compare the two.
    func evidence(x: Double, y: Double, r: Double, threshold: Float, sectors: Int = 16,
                  gridNormals: [Double] = [], wide: Bool) -> (coverage: Double, gridAligned: Double) {
        let w = width, h = height
        guard w >= 3, h >= 3, r > 0, sectors > 0 else { return (0, 0) }
        let inner = 0.3 * r, outer = 1.6 * r
        let x0 = max(1, Int((x - outer).rounded(.down))), x1 = min(w - 2, Int((x + outer).rounded(.up)))
        let y0 = max(1, Int((y - outer).rounded(.down))), y1 = min(h - 2, Int((y + outer).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return (0, 0) }
        // One bit per sector, in as many words as the sectors need.
        // The first word in a variable of its own: with the stage's 16 sectors no array is
        // allocated, and marking a sector is one OR (thousands of calls, up to hundreds of
        // facing pixels each).
        var hit = UInt64(0)
        var moreHits = [UInt64](repeating: 0, count: (sectors - 1) / 64)
        var aligned = 0, facing = 0
        let n0 = gridNormals.count > 0 ? (Float(cos(gridNormals[0])), Float(sin(gridNormals[0]))) : (0, 0)
        let n1 = gridNormals.count > 1 ? (Float(cos(gridNormals[1])), Float(sin(gridNormals[1]))) : (0, 0)
        let extraNormals = gridNormals.count > 2 ? gridNormals[2...].map { (Float(cos($0)), Float(sin($0))) } : []
        let normalCount = gridNormals.count
        let alignedCos: Float = 0.985
        let cosLimit: Float = 0.9
        let t2 = threshold * threshold
        let sectorOf = sectors == 16 ? sixteenSectors : SectorLocator(sectors: sectors)
        let innerSq = inner * inner, outerSq = outer * outer
        typealias V = SIMD8<Float>
        let t2v = V(repeating: t2)
        // A pixel that faces the centre: its sector is covered, and it may run along the grid.
        @inline(__always) func tally(dx: Double, dy: Double, gx: Float, gy: Float, g2: Float) {
            let sector = sectorOf(dx: dx, dy: dy)
            if sector < 64 {
                hit |= 1 &<< UInt64(sector)
            } else {
                moreHits[(sector >> 6) - 1] |= 1 &<< UInt64(sector & 63)
            }
            facing &+= 1
            guard normalCount > 0 else { return }
            let g = g2.squareRoot()
            if abs(n0.0 * gx + n0.1 * gy) >= alignedCos * g
                || (normalCount > 1 && abs(n1.0 * gx + n1.1 * gy) >= alignedCos * g)
                || extraNormals.contains(where: { abs($0.0 * gx + $0.1 * gy) >= alignedCos * g }) {
                aligned &+= 1
            }
        }
        // The facing test is most of the work (thousands of candidates, a few hundred strong
        // gradients each), and the default target has four-lane vectors only: where the CPU
        // runs AVX, eight pixels at a time in C, the same operations in the same order.
        if wide && wideConvolution {
            let capacity = (x1 - x0 + 1) * (y1 - y0 + 1)
            let cos2 = cosLimit * cosLimit
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * capacity) { positions in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * capacity) { gradients in
                    let xs = positions.baseAddress!, ys = xs + capacity
                    let gxs = gradients.baseAddress!, gys = gxs + capacity, g2s = gys + capacity
                    let n = samples.withUnsafeBufferPointer { d in
                        ck_facing_edges_avx(d.baseAddress!, w, x0, x1, y0, y1, x, y, innerSq, outerSq, t2, cos2,
                                            xs, ys, gxs, gys, g2s)
                    }
                    for i in 0..<n {
                        tally(dx: Double(xs[i]) - x, dy: Double(ys[i]) - y, gx: gxs[i], gy: gys[i], g2: g2s[i])
                    }
                }
            }
        } else {
            samples.withUnsafeBufferPointer { d in
                let base = d.baseAddress!
                @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
                for py in y0...y1 {
                    let dy = Double(py) - y
                    let dy2 = dy * dy
                    guard dy2 <= outerSq else { continue }
                    let fdy = Float(dy)
                    let row = py &* w
                    @inline(__always) func visit(_ px: Int, gx: Float, gy: Float, g2: Float) {
                        guard g2 > t2 else { return }
                        let dx = Double(px) - x
                        let dist2 = dx * dx + dy2
                        guard dist2 >= innerSq, dist2 <= outerSq else { return }
                        let dist = Float(dist2.squareRoot())
                        let along = (gx * Float(dx) + gy * fdy) / dist
                        guard along * along >= cosLimit * cosLimit * g2 else { return }
                        tally(dx: dx, dy: dy, gx: gx, gy: gy, g2: g2)
                    }
                    // Below the threshold is below it wherever the pixel lies: eight pixels at a
                    // time are ruled out on their squared gradients alone.
                    var px = x0
                    while px &+ 8 <= x1 &+ 1 {
                        let p = base + (row &+ px)
                        let gxv = (load(p + 1) - load(p - 1)) * 0.5, gyv = (load(p + w) - load(p - w)) * 0.5
                        let g2v = gxv * gxv + gyv * gyv
                        let above = g2v .> t2v
                        if any(above) {
                            for lane in 0..<8 where above[lane] { visit(px &+ lane, gx: gxv[lane], gy: gyv[lane], g2: g2v[lane]) }
                        }
                        px &+= 8
                    }
                    while px <= x1 {
                        let i = row &+ px
                        let gx = (d[i &+ 1] - d[i &- 1]) * 0.5, gy = (d[i &+ w] - d[i &- w]) * 0.5
                        visit(px, gx: gx, gy: gy, g2: gx * gx + gy * gy)
                        px &+= 1
                    }
                }
            }
        }
        let covered = moreHits.reduce(hit.nonzeroBitCount) { $0 + $1.nonzeroBitCount }
        // `aligned` counts facing pixels only: with none facing it is 0 too, and so the share.
        // (A conditional here drew a spurious "will never be executed" from the debug build's
        // module emission.)
        return (Double(covered) / Double(sectors), Double(aligned) / Double(max(facing, 1)))
    }
}
