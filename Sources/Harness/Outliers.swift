/// A fixture whose metric lies far from the others by the robust z-score.
public struct Outlier: Sendable, Equatable {
    public var fixture: String
    /// "f1", "absRelCountError", or "stage.<name>.wallMs".
    public var metric: String
    public var value: Double
    public var z: Double
    /// Median of the metric over the fixtures compared.
    public var median: Double
}

/// Robust-z outliers across fixtures: per scored fixture with labelled cells its F1 and
/// |relative count error|, and per fixture that ran its median wall time of each stage (over
/// repeats). A fixture is listed when |z| > `cut`, on either side. Output ordered by metric (F1, count error, then stages in
/// pipeline order) and fixture order within a metric.
/// - Parameters:
///   - outcomes: the run's fixtures in report order.
///   - cut: robust z cut, dimensionless (3.5 by default).
public func findOutliers(_ outcomes: [FixtureOutcome], cut: Double = 3.5) -> [Outlier] {
    var result: [Outlier] = []
    func scan(_ metric: String, _ values: [(fixture: String, value: Double)]) {
        let numbers = values.map(\.value)
        let z = Statistics.robustZScores(numbers)
        let median = Statistics.median(numbers) ?? 0
        for (k, entry) in values.enumerated() where z[k].magnitude > cut {
            result.append(Outlier(fixture: entry.fixture, metric: metric, value: entry.value, z: z[k], median: median))
        }
    }
    let scored = outcomes.compactMap { o in o.score.map { (o.fixture.path, $0) } }
    // F1 of a fixture without labelled cells is 0 or 1 (see `DetectionCounts`); leave those out.
    scan("f1", scored.filter { $0.1.total.labelled > 0 }.map { ($0.0, $0.1.detection.f1) })
    scan("absRelCountError", scored.compactMap { s in s.1.total.absRelativeError.map { (s.0, $0) } })
    var stageOrder: [String] = []
    for o in outcomes {
        for sample in o.samples {
            for t in sample where !stageOrder.contains(t.name) { stageOrder.append(t.name) }
        }
    }
    for stage in stageOrder {
        let values: [(fixture: String, value: Double)] = outcomes.compactMap { o in
            let times = o.samples.flatMap { $0.filter { $0.name == stage }.map { $0.wallSeconds * 1000 } }
            return Statistics.median(times).map { (o.fixture.path, $0) }
        }
        scan("stage.\(stage).wallMs", values)
    }
    return result
}
