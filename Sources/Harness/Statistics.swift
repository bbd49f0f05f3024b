import Foundation

/// Descriptive and robust statistics over samples of `Double`. All functions are pure; empty
/// input gives nil (or an empty result), never a trap. Callers pass finite values.
public enum Statistics {
    /// Arithmetic mean; nil when empty.
    public static func mean(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        return values.reduce(0, +) / Double(values.count)
    }

    /// The median: the middle value, or the mean of the two middle values for an even count.
    public static func median(_ values: [Double]) -> Double? {
        percentile(sorted: values.sorted(), 50)
    }

    /// The `p`-th percentile (0...100) of an ascending sample, by linear interpolation between
    /// closest ranks (Hyndman & Fan type 7, the default of numpy and R): with n values,
    /// position h = (n - 1) * p / 100, result x[floor h] + (h - floor h) * (x[floor h + 1] -
    /// x[floor h]). So p 0 is the minimum, 100 the maximum, 50 the median.
    public static func percentile(sorted: [Double], _ p: Double) -> Double? {
        guard !sorted.isEmpty, p.isFinite else { return nil }
        let clamped = min(max(p, 0), 100)
        let h = Double(sorted.count - 1) * clamped / 100
        let lo = Int(h.rounded(.down))
        let hi = min(lo + 1, sorted.count - 1)
        let fraction = h - Double(lo)
        if fraction == 0 { return sorted[lo] }
        return sorted[lo] + fraction * (sorted[hi] - sorted[lo])
    }

    /// Median absolute deviation from the median, unscaled; nil when empty.
    public static func medianAbsoluteDeviation(_ values: [Double]) -> Double? {
        guard let m = median(values) else { return nil }
        return median(values.map { ($0 - m).magnitude })
    }

    /// Scale making MAD-based z comparable to a standard z for normal data (Iglewicz & Hoaglin).
    public static let robustZScale = 0.6745

    /// Robust z-score of each value: 0.6745 * (x - median) / MAD; all 0 when MAD is 0 (more
    /// than half the values are equal: nothing can be called an outlier).
    public static func robustZScores(_ values: [Double]) -> [Double] {
        guard let m = median(values), let mad = medianAbsoluteDeviation(values), mad > 0 else {
            return [Double](repeating: 0, count: values.count)
        }
        return values.map { robustZScale * ($0 - m) / mad }
    }

    /// Indices whose robust z-score exceeds `cut` in magnitude (strictly), ascending.
    /// - Parameter cut: dimensionless; 3.5 is the usual choice (Iglewicz & Hoaglin).
    public static func outlierIndices(_ values: [Double], cut: Double = 3.5) -> [Int] {
        robustZScores(values).enumerated().filter { $0.element.magnitude > cut }.map(\.offset)
    }
}

/// Count, extremes, centre and tail of a sample; the shape every timing table uses.
public struct SampleSummary: Sendable, Equatable {
    public var count: Int
    public var min: Double
    public var median: Double
    public var mean: Double
    public var p90: Double
    public var p99: Double
    public var max: Double
    public var sum: Double

    /// nil when `values` is empty. Percentiles as in `Statistics.percentile`.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        count = sorted.count
        min = sorted[0]
        max = sorted[sorted.count - 1]
        sum = sorted.reduce(0, +)
        mean = sum / Double(sorted.count)
        median = Statistics.percentile(sorted: sorted, 50) ?? min
        p90 = Statistics.percentile(sorted: sorted, 90) ?? max
        p99 = Statistics.percentile(sorted: sorted, 99) ?? max
    }
}

/// SplitMix64 (Steele, Lea & Flood 2014): a tiny, fast, seedable generator. Reports use it so
/// that resampling gives the same numbers on every run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform integer in 0..<bound (bound > 0), by Lemire's multiply-shift with rejection.
    public mutating func nextIndex(below bound: Int) -> Int {
        let b = UInt64(bound)
        while true {
            let m = next().multipliedFullWidth(by: b)
            if m.low >= b || m.low >= (0 &- b) % b { return Int(m.high) }
        }
    }
}

/// A bootstrap estimate with its percentile confidence interval.
public struct BootstrapInterval: Sendable, Equatable {
    /// The statistic on the original sample.
    public var estimate: Double
    public var lower: Double
    public var upper: Double
    public var confidence: Double
    public var resamples: Int
}

public enum Bootstrap {
    /// Percentile bootstrap over `sampleCount` paired units (for example fixtures scored by two
    /// runs): each resample draws `sampleCount` unit indices with replacement and evaluates
    /// `statistic` on them; the interval is the (1-confidence)/2 and (1+confidence)/2
    /// percentiles of those values. Deterministic for a seed.
    /// - Parameters:
    ///   - sampleCount: number of units (> 0).
    ///   - resamples: number of bootstrap resamples (issue 5 asks for at least 2000).
    ///   - confidence: e.g. 0.95.
    ///   - seed: SplitMix64 seed.
    ///   - statistic: evaluated on an index multiset; it must treat repeated indices as
    ///     repeated units. Called once on 0..<sampleCount for the estimate.
    /// - Returns: nil when `sampleCount` or `resamples` is not positive.
    public static func interval(sampleCount: Int, resamples: Int = 2000, confidence: Double = 0.95,
                                seed: UInt64 = 0x5EED, statistic: ([Int]) -> Double) -> BootstrapInterval? {
        guard sampleCount > 0, resamples > 0 else { return nil }
        var rng = SplitMix64(seed: seed)
        var values: [Double] = []
        values.reserveCapacity(resamples)
        var indices = [Int](repeating: 0, count: sampleCount)
        for _ in 0..<resamples {
            for k in 0..<sampleCount { indices[k] = rng.nextIndex(below: sampleCount) }
            values.append(statistic(indices))
        }
        values.sort()
        let tail = (1 - confidence) / 2 * 100
        return BootstrapInterval(estimate: statistic(Array(0..<sampleCount)),
                                 lower: Statistics.percentile(sorted: values, tail) ?? .nan,
                                 upper: Statistics.percentile(sorted: values, 100 - tail) ?? .nan,
                                 confidence: confidence, resamples: resamples)
    }

    /// Paired bootstrap of mean(b) - mean(a) over units present in both samples (same length).
    /// nil when the lengths differ or the samples are empty.
    public static func pairedMeanDifference(_ a: [Double], _ b: [Double], resamples: Int = 2000,
                                            confidence: Double = 0.95, seed: UInt64 = 0x5EED) -> BootstrapInterval? {
        guard a.count == b.count else { return nil }
        return interval(sampleCount: a.count, resamples: resamples, confidence: confidence, seed: seed) { idx in
            var sum = 0.0
            for i in idx { sum += b[i] - a[i] }
            return sum / Double(idx.count)
        }
    }
}

/// The Mann-Whitney U test of two independent samples.
public struct MannWhitneyResult: Sendable, Equatable {
    /// U of the first sample: the number of (x, y) pairs with x > y, ties counting one half.
    public var u: Double
    /// Normal approximation z (tie-corrected variance, continuity correction 0.5); 0 when the
    /// variance is 0 (all values equal).
    public var z: Double
    /// Two-sided p-value from z.
    public var pValue: Double
}

public enum MannWhitney {
    /// Mann-Whitney U with midranks for ties, the normal approximation with tie correction
    /// sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))) and a continuity
    /// correction of 0.5 toward the mean (as scipy's `mannwhitneyu(method="asymptotic")`).
    /// - Returns: nil when either sample is empty.
    public static func test(_ x: [Double], _ y: [Double]) -> MannWhitneyResult? {
        let n1 = x.count, n2 = y.count
        guard n1 > 0, n2 > 0 else { return nil }
        var all: [(value: Double, first: Bool)] = x.map { ($0, true) } + y.map { ($0, false) }
        all.sort { $0.value < $1.value }
        let n = all.count
        var rankSumX = 0.0
        var tieTerm = 0.0
        var i = 0
        while i < n {
            var j = i + 1
            while j < n && all[j].value == all[i].value { j += 1 }
            let midrank = Double(i + j + 1) / 2 // ranks i+1 ... j
            for k in i..<j where all[k].first { rankSumX += midrank }
            let t = Double(j - i)
            tieTerm += t * t * t - t
            i = j
        }
        let dn1 = Double(n1), dn2 = Double(n2), dn = Double(n)
        let u = rankSumX - dn1 * (dn1 + 1) / 2
        let meanU = dn1 * dn2 / 2
        let variance = dn1 * dn2 / 12 * ((dn + 1) - (n > 1 ? tieTerm / (dn * (dn - 1)) : 0))
        guard variance > 0 else { return MannWhitneyResult(u: u, z: 0, pValue: 1) }
        let deviation = u - meanU
        let corrected = deviation.magnitude > 0.5 ? deviation - (deviation > 0 ? 0.5 : -0.5) : 0
        let z = corrected / variance.squareRoot()
        return MannWhitneyResult(u: u, z: z, pValue: min(1, erfc(z.magnitude / 2.0.squareRoot())))
    }
}

extension Bootstrap {
    /// Percentile bootstrap like `interval`, for statistics that can be undefined on a resample
    /// (a resample of blank controls has no recall): undefined resamples are skipped and
    /// counted. nil when the statistic is undefined on the original sample or on every resample.
    /// - Returns: the interval (its `resamples` = the defined ones) and the number skipped.
    public static func intervalSkippingUndefined(sampleCount: Int, resamples: Int = 2000, confidence: Double = 0.95,
                                                 seed: UInt64 = 0x5EED,
                                                 statistic: ([Int]) -> Double?) -> (interval: BootstrapInterval, skipped: Int)? {
        guard sampleCount > 0, resamples > 0, let estimate = statistic(Array(0..<sampleCount)), estimate.isFinite else { return nil }
        var rng = SplitMix64(seed: seed)
        var values: [Double] = []
        values.reserveCapacity(resamples)
        var indices = [Int](repeating: 0, count: sampleCount)
        for _ in 0..<resamples {
            for k in 0..<sampleCount { indices[k] = rng.nextIndex(below: sampleCount) }
            if let v = statistic(indices), v.isFinite { values.append(v) }
        }
        guard !values.isEmpty else { return nil }
        values.sort()
        let tail = (1 - confidence) / 2 * 100
        return (BootstrapInterval(estimate: estimate, lower: Statistics.percentile(sorted: values, tail) ?? .nan,
                                  upper: Statistics.percentile(sorted: values, 100 - tail) ?? .nan,
                                  confidence: confidence, resamples: values.count), resamples - values.count)
    }
}

/// The sign test: of `wins + losses` non-tied pairs, is the split compatible with a fair coin?
public enum SignTest {
    /// Exact two-sided binomial p-value (as scipy's `binomtest(wins, wins + losses, 0.5)`):
    /// the probability, under p = 1/2, of a split at least as uneven as the one seen. 1 when
    /// there is no untied pair. Computed in log space, so any count works.
    public static func pValue(wins: Int, losses: Int) -> Double {
        let n = wins + losses
        guard n > 0, wins >= 0, losses >= 0 else { return 1 }
        let k = min(wins, losses)
        // P(X <= k) for X ~ Bin(n, 1/2); by symmetry the two-sided p is twice that (capped at 1).
        let logHalfN = Double(n) * log(0.5)
        var logTerms: [Double] = []
        logTerms.reserveCapacity(k + 1)
        var logChoose = 0.0 // log C(n, 0)
        for i in 0...k {
            if i > 0 { logChoose += log(Double(n - i + 1)) - log(Double(i)) }
            logTerms.append(logChoose + logHalfN)
        }
        let top = logTerms.max() ?? 0
        let tail = exp(top) * logTerms.reduce(0) { $0 + exp($1 - top) }
        return min(1, 2 * tail)
    }
}
