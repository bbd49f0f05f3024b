import Foundation
import Testing
@testable import Vision

/// `centreVoteMap`'s pre-filtered, branch-free voting (Swift and AVX2) against the plain per-pixel version
/// written out here: the same map, bit for bit.
@Suite("Centre vote map reference")
struct CentreVoteMapReferenceTests {
    /// The vote map as first written: every pixel tested, every vote bounds-checked.
    static func referenceMap(_ plane: Plane, minRadius: Double, maxRadius: Double, threshold: Float,
                             gridNormals: [Double] = []) -> Plane {
        let w = plane.width, h = plane.height
        var summed = Plane(width: w, height: h)
        guard w >= 5, h >= 5, minRadius > 0, maxRadius >= minRadius else { return summed }
        let inner = Float(0.6 * minRadius), outer = Float(1.4 * maxRadius)
        let steps = max(1, Int((outer - inner).rounded(.up)))
        let dstep = (outer - inner) / Float(steps)
        let normals = gridNormals.map { (Float(cos($0)), Float(sin($0))) }
        let alignedCos: Float = 0.985
        let t2 = threshold * threshold
        var votes = [Float](repeating: 0, count: w * h)
        let d = plane.data
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y * w + x
                let gx = (d[i + 1] - d[i - 1]) * 0.5, gy = (d[i + w] - d[i - w]) * 0.5
                let g2 = gx * gx + gy * gy
                guard g2 > t2 else { continue }
                let g = g2.squareRoot()
                if normals.contains(where: { abs($0.0 * gx + $0.1 * gy) >= alignedCos * g }) { continue }
                let ux = gx / g, uy = gy / g
                let px = Float(x) + 0.5, py = Float(y) + 0.5
                for s in 0...steps {
                    let dist = inner + Float(s) * dstep
                    for sign: Float in [1, -1] {
                        let vx = px + sign * dist * ux, vy = py + sign * dist * uy
                        guard vx >= 0, vy >= 0 else { continue }
                        let bx = Int(vx), by = Int(vy)
                        guard bx < w, by < h else { continue }
                        votes[by * w + bx] += 1
                    }
                }
            }
        }
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y * w + x
                summed.data[i] = votes[i - w - 1] + votes[i - w] + votes[i - w + 1] + votes[i - 1] + votes[i]
                    + votes[i + 1] + votes[i + w - 1] + votes[i + w] + votes[i + w + 1]
            }
        }
        return summed
    }

    @Test func sameMapAsThePlainLoop() {
        for (width, height, threshold) in [(61, 47, 0.0), (64, 40, 0.2), (33, 29, 0.05), (8, 7, 0.1)] {
            sameMap(width: width, height: height, threshold: threshold)
        }
    }

    func sameMap(width: Int, height: Int, threshold: Double) {
        let plane = KernelReferenceTests.noisePlane(width: width, height: height, seed: UInt64(width * height))
        for (minR, maxR) in [(2.5, 6.0), (1.0, 1.0), (4.0, 15.0)] {
            for normals in [[], [0.1, 0.1 + .pi / 2], [0.7]] {
                let want = Self.referenceMap(plane, minRadius: minR, maxRadius: maxR, threshold: Float(threshold),
                                             gridNormals: normals)
                for wide in [false, true] {
                    let got = centreVoteMap(plane, minRadius: minR, maxRadius: maxR, threshold: Float(threshold),
                                            gridNormals: normals, wide: wide)
                    #expect(KernelReferenceTests.identical(got, want),
                            "\(width)x\(height) t \(threshold) r \(minR)-\(maxR) wide \(wide)")
                }
            }
        }
    }
}
