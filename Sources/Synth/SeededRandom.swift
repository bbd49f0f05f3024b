import Foundation

/// xoshiro256** seeded through SplitMix64: a small, fast, well-tested generator whose output
/// depends only on the seed, so a fixture is the same on every machine and Swift version
/// (Swift's own `random(in:using:)` algorithms are not guaranteed stable across releases,
/// which is why every draw below is implemented here).
struct SeededRandom {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// - Parameter seed: any 64-bit value; SplitMix64 spreads it over the 256-bit state, so
    ///   neighbouring seeds give unrelated streams.
    init(seed: UInt64) {
        var sm = seed
        s0 = SeededRandom.splitMix(&sm)
        s1 = SeededRandom.splitMix(&sm)
        s2 = SeededRandom.splitMix(&sm)
        s3 = SeededRandom.splitMix(&sm)
    }

    /// Derives an independent stream for a sub-task (e.g. one fixture of a batch).
    init(seed: UInt64, stream: UInt64) {
        var sm = seed ^ (stream &* 0xD1B5_4A32_D192_ED03)
        self.init(seed: SeededRandom.splitMix(&sm))
    }

    static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// Uniform in [0, 1) with 53 random bits.
    @inline(__always)
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in [lower, upper).
    mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
        lower + (upper - lower) * unit()
    }

    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        uniform(range.lowerBound, range.upperBound)
    }

    /// Uniform integer in the closed range (Lemire-free modulo: the bias is below 2^-40 for
    /// the small ranges used here).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % span)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        unit() < p
    }

    /// Standard normal deviate (Box-Muller, one value per call; not for hot loops).
    mutating func normal() -> Double {
        let u1 = max(unit(), 1e-300)
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Normal with mean and standard deviation.
    mutating func normal(mean: Double, sd: Double) -> Double {
        mean + sd * normal()
    }

    /// An approximately standard normal Float from one 64-bit draw: the sum of four 16-bit
    /// uniforms (Irwin-Hall), rescaled to unit variance. Tails stop at about ±3.5 sigma,
    /// which is fine for sensor noise and keeps the per-pixel cost to one generator step.
    @inline(__always)
    mutating func fastNormal() -> Float {
        let r = next()
        let sum = Float(r & 0xFFFF) + Float((r >> 16) & 0xFFFF) + Float((r >> 32) & 0xFFFF) + Float(r >> 48)
        // Mean 4 * 32767.5, variance 4 * 65536^2 / 12.
        return (sum - 131_070) * (1 / 37_837.23)
    }
}
