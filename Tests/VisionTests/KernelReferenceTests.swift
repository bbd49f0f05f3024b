import Testing
import Imaging
@testable import Vision

/// The optimised kernels against plain reference implementations written out here: the
/// speed-ups must not change a single result bit.
@Suite("Kernel references")
struct KernelReferenceTests {
    /// Deterministic pseudo-random samples in 0 ..< 1.
    static func noisePlane(width: Int, height: Int, seed: UInt64) -> Plane {
        var state = seed
        var plane = Plane(width: width, height: height)
        for i in 0..<plane.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            plane.data[i] = Float(state >> 40) / Float(1 << 24)
        }
        return plane
    }

    static func identical(_ a: Plane, _ b: Plane) -> Bool {
        a.width == b.width && a.height == b.height
            && a.data.elementsEqual(b.data) { $0.bitPattern == $1.bitPattern }
    }

    /// Separable convolution the plain way: per sample, taps in kernel order (each after the
    /// first a fused multiply-add), borders clamped.
    static func referenceConvolution(_ plane: Plane, kernel: [Float]) -> Plane {
        let w = plane.width, h = plane.height, radius = kernel.count / 2
        var temp = Plane(width: w, height: h), out = Plane(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                var s = kernel[0] * plane[min(max(x - radius, 0), w - 1), y]
                for t in 1..<kernel.count { s = s.addingProduct(kernel[t], plane[min(max(x + t - radius, 0), w - 1), y]) }
                temp[x, y] = s
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var s: Float = 0 + kernel[0] * temp[x, min(max(y - radius, 0), h - 1)]
                for t in 1..<kernel.count { s = s.addingProduct(kernel[t], temp[x, min(max(y + t - radius, 0), h - 1)]) }
                out[x, y] = s
            }
        }
        return out
    }

    /// Widths on both sides of the 16-sample SIMD block (and the AVX kernel's 8- and 32-sample
    /// blocks), tiny and tall planes, short and long kernels (wider than the plane too); the
    /// portable and, where the CPU has AVX, the eight-lane row kernel, with signed zeros in
    /// the plane (0 + -0 is +0: the vertical sums start from 0 in both).
    @Test(arguments: [(1, 1), (5, 3), (16, 4), (17, 9), (37, 23), (64, 2), (3, 40), (71, 5), (130, 7)])
    func convolutionMatchesReference(size: (Int, Int)) {
        var plane = Self.noisePlane(width: size.0, height: size.1, seed: UInt64(size.0 * 100 + size.1))
        for i in 0..<plane.count where i % 7 == 3 { plane.data[i] = i % 2 == 0 ? -0.0 : 0.0 }
        for sigma in [0.5, 1.0, 2.3, 6.0] {
            let kernel = gaussianKernel(sigma: sigma)
            let want = Self.referenceConvolution(plane, kernel: kernel)
            for wide in [false, true] {
                #expect(Self.identical(convolveSeparable(plane, kernel: kernel, wide: wide), want),
                        "size \(size) sigma \(sigma) wide \(wide) (AVX and FMA available: \(fusedConvolution))")
            }
            #expect(Self.identical(convolveSeparable(plane, kernel: kernel), want), "size \(size) sigma \(sigma)")
        }
    }

    @Test func roundingMatchesLibm() {
        var state: UInt64 = 3
        var values: [Float] = [0, -0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 8_388_607.5,
                               -8_388_607.5, 16_777_216, 1e9, -1e9, Float(0.5).nextUp, Float(1.5).nextDown]
        for _ in 0..<200_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let whole = Float(Int(state >> 44) - (1 << 19))
            let frac = Float(state >> 40 & 0xF) / 8 - 1   // includes the exact halves
            values.append(whole + frac)
            values.append(Float(bitPattern: UInt32(truncatingIfNeeded: state >> 8) & 0x4AFF_FFFF))
        }
        let mismatches = values.filter { roundedHalfAway($0) != Int($0.rounded()) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        // The vector version within its range (values above it are cut off).
        let inRange = values.filter { abs($0) < vectorRoundingLimit } + [3_999_999.5, -3_999_999.5, 2_097_152.5, -0.5]
        var vectorMismatches = 0
        for i in stride(from: 0, to: inRange.count - 3, by: 4) {
            let v = SIMD4<Float>(inRange[i], inRange[i + 1], inRange[i + 2], inRange[i + 3])
            let r = roundedHalfAway(v)
            for lane in 0..<4 where Int(r[lane]) != Int(v[lane].rounded()) { vectorMismatches += 1 }
        }
        #expect(inRange.count > 300_000 && vectorMismatches == 0)
    }

    /// Histogram selection returns the k-th order statistic of a sort: many ties and zeros,
    /// values spread over many octaves, subnormals, infinity; negatives, -0 and NaN fall back.
    @Test func nonNegativeSelectionMatchesSorting() {
        var state: UInt64 = 5
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 20
        }
        var bucket: [Float] = []
        var sharedCounts: [Int32] = []
        for n in [1, 2, 3, 10, 100, 1_500, 5_000, 40_000, 300, 20_000, 64, 2_000] {
            for kind in 0..<6 {
                var values: [Float] = (0..<n).map { _ in
                    switch kind {
                    case 0: return Float(next() % 8)                                   // ties
                    case 1: let g = Float(Int(next() % 41) - 20); return (g * g + 9).squareRoot() * Float(next() % 3)
                    case 2: return Float(bitPattern: UInt32(truncatingIfNeeded: next()) & 0x7F7F_FFFF)  // any finite
                    case 3: return Float(bitPattern: UInt32(next() % 1000))               // subnormals
                    case 4: return next() % 5 == 0 ? .infinity : Float(next() % 100)
                    default: return 7.25                                               // all equal
                    }
                }
                if kind == 1 && n > 3 { values[1] = 0; values[2] = 0 }
                let sorted = values.sorted()
                for k in Set([0, n / 4, n / 2, n - 1]) {
                    let got = values.withUnsafeBufferPointer { selectKthNonNegative($0, k, scratch: &bucket) }
                    #expect(got == sorted[k], "n \(n) kind \(kind) k \(k)")
                    // The histogram kept across calls of other sizes (fewer buckets for fewer
                    // values): what a larger call counted must not reach a smaller one.
                    let reused = values.withUnsafeBufferPointer {
                        selectKthNonNegative($0, k, scratch: &bucket, counts: &sharedCounts)
                    }
                    #expect(reused == sorted[k], "n \(n) kind \(kind) k \(k), reused counts")
                }
            }
        }
        for special: Float in [-1, -0.0, .nan] {
            let values: [Float] = [4, 1, special, 3, 2]
            var copy = values
            let want = selectKth(&copy, 2) ?? 0
            let got = values.withUnsafeBufferPointer { selectKthNonNegative($0, 2, scratch: &bucket) }
            #expect(got.bitPattern == want.bitPattern, "with \(special)")
        }
    }

    @Test func quantileAbsoluteMatchesSorting() {
        var plane = Self.noisePlane(width: 97, height: 61, seed: 8)
        for i in 0..<plane.count { plane.data[i] = (plane.data[i] - 0.5) * Float(i % 7) }
        var scratch: [Float] = []
        for (q, stride) in [(0.25, 13), (0.5, 1), (0.0, 3), (1.0, 5), (0.9, 2)] {
            var samples: [Float] = []
            for i in Swift.stride(from: 0, to: plane.count, by: stride) { samples.append(abs(plane.data[i])) }
            samples.sort()
            let want = samples[Int(Double(samples.count - 1) * q)]
            #expect(quantileAbsolute(plane, q, stride: stride, scratch: &scratch) == want, "q \(q) stride \(stride)")
        }
    }
}
