import Testing
@testable import Vision

/// The AVX kernels (used where the CPU has AVX) against the portable Swift paths they stand
/// in for: the same results, bit for bit.
@Suite("Wide kernels")
struct WideKernelTests {
    /// Edge evidence with the facing pixels found in C and in Swift: the same centres, radii
    /// (windows narrower and wider than eight pixels, clipped by the plane's edges),
    /// thresholds, sector counts and grid normals as the reference test.
    @Test func edgeEvidenceMatchesPortable() {
        let plane = RingEvidenceReferenceTests.ringPlane()
        let field = RadialEdgeField(plane)
        var sequence = TestSequence(state: 71)
        func next() -> Double { sequence.next() }
        var covered = 0
        for i in 0..<800 {
            var x = -8 + 106 * next(), y = -8 + 86 * next()
            if i % 5 == 0 { x = (2 * x).rounded() / 2; y = (2 * y).rounded() / 2 }
            let r = 0.5 + 20 * next() * next()
            let threshold = Float(0.002 + 0.05 * next())
            let sectors = [16, 16, 16, 1, 3, 7, 64, 65][i % 8]
            let tilt: Double = 0.29 + 0.1 * next()
            let choices: [[Double]] = [[], [tilt, tilt + Double.pi / 2], [1.1], [0.2, 0.2 + Double.pi / 2, 0.2 + Double.pi / 4]]
            let normals = choices[i % 4]
            let wide = field.evidence(x: x, y: y, r: r, threshold: threshold, sectors: sectors, gridNormals: normals, wide: true)
            let portable = field.evidence(x: x, y: y, r: r, threshold: threshold, sectors: sectors, gridNormals: normals,
                                          wide: false)
            #expect(wide.coverage.bitPattern == portable.coverage.bitPattern
                        && wide.gridAligned.bitPattern == portable.gridAligned.bitPattern,
                    "centre (\(x), \(y)) r \(r) t \(threshold) sectors \(sectors): \(wide) vs \(portable)")
            if portable.coverage > 0.5 { covered += 1 }
        }
        #expect(covered > 20)
    }
}
