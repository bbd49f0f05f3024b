import Foundation
import Testing
@testable import Vision

/// `radialEdgeCoverage` against its first, plain version (atan2 per facing pixel, Double
/// offsets per pixel), kept here verbatim as the reference: the optimised kernel must return
/// the same bits.
@Suite("Ring evidence reference")
struct RingEvidenceReferenceTests {
    /// A smoothed log-luminance-like plane: rings (cells) and straight lines (a ruling) on noise.
    static func ringPlane() -> Plane {
        var plane = KernelReferenceTests.noisePlane(width: 90, height: 70, seed: 9)
        for y in 0..<plane.height {
            for x in 0..<plane.width {
                let d1 = ((Double(x) - 30.3) * (Double(x) - 30.3) + (Double(y) - 33.7) * (Double(y) - 33.7)).squareRoot()
                let d2 = ((Double(x) - 62.8) * (Double(x) - 62.8) + (Double(y) - 20.1) * (Double(y) - 20.1)).squareRoot()
                var v = 0.2 * plane[x, y]
                if abs(d1 - 9) < 1.5 { v -= 1 }
                if abs(d2 - 5.5) < 1.2 { v += 0.8 }
                if abs(Double(y) - 0.3 * Double(x) - 48) < 1 { v -= 0.7 }
                plane[x, y] = Float(v)
            }
        }
        return gaussianBlur(plane, sigma: 1)
    }

    /// `gradientNoise` against its plain version (quickselect over the samples), on planes of
    /// every shape from a single column to the ring plane, and a flat plane (all zeros).
    @Test func gradientNoiseMatchesPlainVersion() {
        var planes = [Self.ringPlane(), Plane(width: 40, height: 30), Plane(width: 1, height: 5), Plane(width: 3, height: 1)]
        for (w, h) in [(3, 3), (7, 9), (64, 2), (203, 117)] {
            planes.append(KernelReferenceTests.noisePlane(width: w, height: h, seed: UInt64(w * 31 + h)))
        }
        for plane in planes {
            for stride in [1, 3, 7] {
                let got = gradientNoise(plane, stride: stride)
                let want = Self.referenceGradientNoise(plane, stride: stride)
                #expect(got.bitPattern == want.bitPattern, "\(plane.width)x\(plane.height) stride \(stride)")
            }
        }
    }

    static func referenceGradientNoise(_ plane: Plane, stride: Int) -> Float {
        let w = plane.width
        guard w >= 3, plane.height >= 1 else { return 0 }
        var samples: [Float] = []
        var i = 1
        while i < plane.count - 1 {
            let x = i % w
            if x > 0 && x < w - 1 { samples.append(abs(plane.data[i + 1] - plane.data[i - 1]) * 0.5) }
            i += max(1, stride)
        }
        return (selectKth(&samples, samples.count / 4) ?? 0) / 0.3186
    }

    @Test func optimisedCoverageMatchesPlainVersion() {
        let plane = Self.ringPlane()
        var sequence = TestSequence(state: 21)
        func next() -> Double { sequence.next() }
        var covered = 0
        for i in 0..<500 {
            var x = -8 + 106 * next(), y = -8 + 86 * next()
            // Whole and half pixel centres put facing pixels exactly on sector boundaries.
            if i % 5 == 0 { x = (2 * x).rounded() / 2; y = (2 * y).rounded() / 2 }
            let r = 0.5 + 20 * next() * next()
            let threshold = Float(0.002 + 0.05 * next())
            let sectors = [16, 16, 16, 1, 2, 3, 7, 12][i % 8]
            let normals = i % 3 == 0 ? [] : [0.29 + 0.1 * next(), 0.29 + .pi / 2]
            let got = radialEdgeCoverage(plane, x: x, y: y, r: r, threshold: threshold, sectors: sectors, gridNormals: normals)
            let want = Self.referenceCoverage(plane, x: x, y: y, r: r, threshold: threshold, sectors: sectors, gridNormals: normals)
            #expect(got.coverage.bitPattern == want.coverage.bitPattern && got.edgeRadius.bitPattern == want.edgeRadius.bitPattern
                        && got.gridAligned.bitPattern == want.gridAligned.bitPattern,
                    "centre (\(x), \(y)) r \(r) t \(threshold) sectors \(sectors): \(got) vs \(want)")
            if want.coverage > 0.5 { covered += 1 }
        }
        #expect(covered > 20)
    }

    /// `RadialEdgeField.evidence` (gradients formed once per plane) against the plain version,
    /// on the same centres, radii, thresholds, sector counts (up to more than a word's bits) and
    /// grid normals, including none and three.
    @Test func edgeFieldMatchesPlainVersion() {
        let plane = Self.ringPlane()
        let field = RadialEdgeField(plane)
        var sequence = TestSequence(state: 34)
        func next() -> Double { sequence.next() }
        var covered = 0
        for i in 0..<600 {
            var x = -8 + 106 * next(), y = -8 + 86 * next()
            if i % 5 == 0 { x = (2 * x).rounded() / 2; y = (2 * y).rounded() / 2 }
            let r = 0.5 + 20 * next() * next()
            let threshold = Float(0.002 + 0.05 * next())
            let sectors = [16, 16, 16, 1, 2, 3, 7, 12, 64, 65, 100][i % 11]
            let tilt: Double = 0.29 + 0.1 * next()
            let choices: [[Double]] = [[], [tilt, tilt + Double.pi / 2], [1.1], [0.2, 0.2 + Double.pi / 2, 0.2 + Double.pi / 4]]
            let normals = choices[i % 4]
            let got = field.evidence(x: x, y: y, r: r, threshold: threshold, sectors: sectors, gridNormals: normals)
            let want = Self.referenceCoverage(plane, x: x, y: y, r: r, threshold: threshold, sectors: sectors, gridNormals: normals)
            #expect(got.coverage.bitPattern == want.coverage.bitPattern && got.gridAligned.bitPattern == want.gridAligned.bitPattern,
                    "centre (\(x), \(y)) r \(r) t \(threshold) sectors \(sectors): \(got) vs \(want)")
            if want.coverage > 0.5 { covered += 1 }
        }
        #expect(covered > 20)
        for (w, h) in [(1, 1), (2, 9), (3, 3)] {
            let small = KernelReferenceTests.noisePlane(width: w, height: h, seed: 5)
            let got = RadialEdgeField(small).evidence(x: 1, y: 1, r: 2, threshold: 0.01)
            let want = Self.referenceCoverage(small, x: 1, y: 1, r: 2, threshold: 0.01)
            #expect(got.coverage == want.coverage && got.gridAligned == want.gridAligned)
        }
    }

    /// Directions on, next to and between the sector boundaries, and the axes.
    @Test func sectorLocatorMatchesAtan2() {
        for sectors in [3, 4, 7, 16, 360] {
            let locate = SectorLocator(sectors: sectors)
            var directions: [(Double, Double)] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1e-300), (-1, -1e-300), (-1, 1e-300),
                                                  (3, 4), (-0.5, 0.5), (1e-300, 1), (0, 1e300)]
            for k in 0...sectors {
                let a = 2 * Double.pi * Double(k) / Double(sectors)
                for da in [-1e-6, -1e-12, 0, 1e-12, 1e-6, 0.3 * 2 * .pi / Double(sectors)] {
                    for length in [1e-3, 1.0, 7.5, 1e4] { directions.append((length * cos(a + da), length * sin(a + da))) }
                }
            }
            // Pixel offsets from a centre between pixels, as the boundary tests form them.
            for k in 0..<4000 {
                let t = Double(k)
                directions.append((Double(k % 61 - 30) - 0.37 * sin(t), Double(k / 61 - 32) - 0.29 * cos(t)))
            }
            for (dx, dy) in directions {
                var a = atan2(dy, dx)
                if a < 0 { a += 2 * .pi }
                let want = min(sectors - 1, Int(a / (2 * .pi) * Double(sectors)))
                #expect(locate(dx: dx, dy: dy) == want, "sectors \(sectors) direction (\(dx), \(dy))")
            }
        }
    }

    static func referenceCoverage(_ plane: Plane, x: Double, y: Double, r: Double, threshold: Float,
                                   sectors: Int = 16, gridNormals: [Double] = [])
        -> (coverage: Double, edgeRadius: Double, gridAligned: Double) {
        let w = plane.width, h = plane.height
        guard w >= 3, h >= 3, r > 0, sectors > 0 else { return (0, 0, 0) }
        let inner = 0.3 * r, outer = 1.6 * r
        let x0 = max(1, Int((x - outer).rounded(.down))), x1 = min(w - 2, Int((x + outer).rounded(.up)))
        let y0 = max(1, Int((y - outer).rounded(.down))), y1 = min(h - 2, Int((y + outer).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return (0, 0, 0) }
        var hit = [Bool](repeating: false, count: sectors)
        var distances: [Float] = []
        var aligned = 0, facing = 0
        // Grid normals as unit vectors; alignment is |cos| >= cos 10 degrees (either sign).
        let normals = gridNormals.map { (Float(cos($0)), Float(sin($0))) }
        let alignedCos: Float = 0.985
        let cosLimit: Float = 0.9
        let t2 = threshold * threshold
        plane.data.withUnsafeBufferPointer { d in
            for py in y0...y1 {
                let dy = Double(py) - y
                for px in x0...x1 {
                    let dx = Double(px) - x
                    let dist2 = dx * dx + dy * dy
                    guard dist2 >= inner * inner, dist2 <= outer * outer else { continue }
                    let i = py * w + px
                    let gx = (d[i + 1] - d[i - 1]) * 0.5, gy = (d[i + w] - d[i - w]) * 0.5
                    let g2 = gx * gx + gy * gy
                    guard g2 > t2 else { continue }
                    let dist = Float(dist2.squareRoot())
                    let along = (gx * Float(dx) + gy * Float(dy)) / dist
                    guard along * along >= cosLimit * cosLimit * g2 else { continue }
                    var a = atan2(dy, dx)
                    if a < 0 { a += 2 * .pi }
                    hit[min(sectors - 1, Int(a / (2 * .pi) * Double(sectors)))] = true
                    distances.append(dist)
                    facing += 1
                    let g = g2.squareRoot()
                    if normals.contains(where: { abs($0.0 * gx + $0.1 * gy) >= alignedCos * g }) { aligned += 1 }
                }
            }
        }
        let edgeRadius = Double(selectKth(&distances, distances.count / 2) ?? 0)
        return (Double(hit.filter { $0 }.count) / Double(sectors), edgeRadius,
                facing > 0 ? Double(aligned) / Double(facing) : 0)
    }
}
