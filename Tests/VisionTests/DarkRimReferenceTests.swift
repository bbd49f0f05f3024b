import Testing
@testable import Vision

/// `darkRimDepth`'s one-buffer rings against the array-per-ring version written out here.
@Suite("Dark rim reference")
struct DarkRimReferenceTests {
    /// The depth as first written: every ring's samples appended to an array of its own.
    static func referenceDepth(_ plane: Plane, x: Double, y: Double, innerRadius: Double, outerRadius: Double,
                               quantile: Double = 0.3) -> Float {
        let w = plane.width, h = plane.height
        guard w > 0, h > 0, x.isFinite, y.isFinite, outerRadius.isFinite, outerRadius > innerRadius, innerRadius >= 0 else { return 0 }
        let rings = max(1, Int((outerRadius - innerRadius).rounded(.up)))
        var samples = [[Float]](repeating: [], count: rings)
        let x0 = max(0, Int((x - outerRadius).rounded(.down))), x1 = min(w - 1, Int((x + outerRadius).rounded(.up)))
        let y0 = max(0, Int((y - outerRadius).rounded(.down))), y1 = min(h - 1, Int((y + outerRadius).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return 0 }
        for py in y0...y1 {
            let dy = Double(py) - y
            for px in x0...x1 {
                let dx = Double(px) - x
                let ring = Int(((dx * dx + dy * dy).squareRoot() - innerRadius).rounded(.down))
                guard ring >= 0, ring < rings else { continue }
                samples[ring].append(plane.data[py * w + px])
            }
        }
        var deepest: Float = .infinity
        for var ring in samples where !ring.isEmpty {
            ring.sort()
            let k = min(ring.count - 1, Int(quantile * Double(ring.count - 1)))
            deepest = min(deepest, ring[k])
        }
        return deepest.isFinite ? deepest : 0
    }

    @Test func oneBufferMatchesArraysPerRing() {
        // Signed samples with repeats and both zeros, so ties and their order count.
        var plane = KernelReferenceTests.noisePlane(width: 71, height: 53, seed: 7)
        for i in 0..<plane.count {
            let v = (plane.data[i] * 8).rounded() / 8 - 0.5
            plane.data[i] = i % 17 == 0 ? -0.0 : v
        }
        var state: UInt64 = 99
        @inline(__always) func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 40) / Double(1 << 24)
        }
        for trial in 0..<2000 {
            let x = next() * 90 - 10, y = next() * 70 - 8
            let inner = trial % 10 == 0 ? 0 : next() * 12
            let outer = inner + (trial % 7 == 0 ? 0.3 : next() * 14)
            let q = trial % 5 == 0 ? 0.3 : next()
            let want = Self.referenceDepth(plane, x: x, y: y, innerRadius: inner, outerRadius: outer, quantile: q)
            let got = darkRimDepth(plane, x: x, y: y, innerRadius: inner, outerRadius: outer, quantile: q)
            #expect(got.bitPattern == want.bitPattern, "x \(x) y \(y) radii \(inner) \(outer) q \(q)")
        }
    }
}
