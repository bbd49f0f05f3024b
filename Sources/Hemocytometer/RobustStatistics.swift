/// Median-based statistics that tolerate outliers, shared by the counting rule and the
/// harness's outlier report.
public enum RobustStatistics {
    /// The constant making MAD-based z-scores comparable to standard z-scores for normal data
    /// (the 0.75 quantile of the standard normal distribution).
    public static let madScale = 0.6745

    /// The median; the mean of the two middle values for an even count; nil when empty.
    /// Non-finite values are ordered as Swift's `<` orders them, so callers should pass
    /// finite data.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[mid] }
        return (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Median absolute deviation from the median (unscaled); nil when empty.
    public static func medianAbsoluteDeviation(_ values: [Double]) -> Double? {
        guard let m = median(values) else { return nil }
        return median(values.map { ($0 - m).magnitude })
    }

    /// Robust z-score of each value: 0.6745 * (x - median) / MAD. All zeros when MAD is 0
    /// (more than half the values are equal, so none can be called an outlier).
    public static func robustZScores(_ values: [Double]) -> [Double] {
        guard let m = median(values), let mad = medianAbsoluteDeviation(values), mad > 0 else {
            return [Double](repeating: 0, count: values.count)
        }
        return values.map { madScale * ($0 - m) / mad }
    }
}

/// The MAD outlier rule: a value is rejected when its robust z-score exceeds the cut in
/// magnitude (strictly). With MAD 0 every value is kept.
public struct MADOutlierRule: Sendable, Equatable {
    /// Largest |robust z| still accepted; dimensionless.
    public var cut: Double

    public init(cut: Double = 2.5) {
        self.cut = cut
    }

    /// One verdict per value, in input order.
    public func evaluate(_ values: [Double]) -> [(z: Double, rejected: Bool)] {
        RobustStatistics.robustZScores(values).map { z in (z, z.magnitude > cut) }
    }
}
