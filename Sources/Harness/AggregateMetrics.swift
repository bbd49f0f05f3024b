/// Metrics over a set of scored fixtures (a whole run, or the fixtures with one tag).
///
/// Micro figures sum the counts first (every cell weighs the same); macro figures average the
/// per-fixture values (every image weighs the same) over the fixtures with labelled cells:
/// a fixture without any (a blank control) has no recall and its F1 only says whether
/// anything was detected, which `blankDetections` already reports. Means skip fixtures where the value is
/// undefined (see `DetectionCounts`, `CountComparison`), and are nil when none is defined.
public struct AggregateMetrics: Sendable, Equatable {
    public var fixtures: Int
    public var detection: DetectionCounts
    public var precision: Double? { detection.precision }
    public var recall: Double? { detection.recall }
    /// Micro F1 (from the summed counts).
    public var f1: Double? { fixtures == 0 ? nil : detection.f1 }
    public var macroPrecision: Double?
    public var macroRecall: Double?
    /// Mean per-fixture F1 over fixtures with labelled cells.
    public var macroF1: Double?
    public var classes: ClassConfusion
    public var liveDeadAccuracy: Double? { classes.accuracy }
    /// Mean of |predicted - labelled| / labelled of the total count, over fixtures with cells.
    public var meanAbsRelCountError: Double?
    public var meanAbsRelLiveCountError: Double?
    public var meanAbsRelDeadCountError: Double?
    /// Mean |viability error|, percentage points.
    public var meanAbsViabilityErrorPoints: Double?
    /// Mean |relative concentration error| over fixtures with a labelled grid.
    public var meanAbsRelConcentrationError: Double?
    /// Mean |relative error of µm per pixel| over calibrated fixtures where a grid was found,
    /// and how many those were.
    public var meanAbsRelCalibrationError: Double?
    public var calibratedFixtures: Int
    /// Fixtures whose placement in the chamber was compared (`RegistrationComparison`), and
    /// of them those placed more than `RegistrationComparison.toleranceUm` off.
    public var registeredFixtures: Int
    public var misplacedFixtures: Int
    /// Over every matched pair of every fixture, pixels.
    public var localisation: LocalisationError?
    /// Blank controls seen, their summed and their largest detection count.
    public var blankControls: Int
    public var blankDetectionsTotal: Int
    public var blankDetectionsMax: Int?
    public var expectChecks: Int
    public var expectFailures: Int

    public init(scores: [FixtureScore]) {
        fixtures = scores.count
        detection = scores.reduce(DetectionCounts(tp: 0, fp: 0, fn: 0)) { $0 + $1.detection }
        macroPrecision = Statistics.mean(scores.compactMap(\.detection.precision))
        macroRecall = Statistics.mean(scores.compactMap(\.detection.recall))
        macroF1 = Statistics.mean(scores.filter { $0.total.labelled > 0 }.map(\.detection.f1))
        classes = scores.reduce(ClassConfusion()) { $0 + $1.classes }
        meanAbsRelCountError = Statistics.mean(scores.compactMap(\.total.absRelativeError))
        meanAbsRelLiveCountError = Statistics.mean(scores.compactMap { $0.live?.absRelativeError })
        meanAbsRelDeadCountError = Statistics.mean(scores.compactMap { $0.dead?.absRelativeError })
        meanAbsViabilityErrorPoints = Statistics.mean(scores.compactMap { $0.viabilityErrorPoints?.magnitude })
        meanAbsRelConcentrationError = Statistics.mean(scores.compactMap { $0.concentration?.relativeError?.magnitude })
        let calibrations = scores.compactMap { $0.calibration?.relativeError.magnitude }
        meanAbsRelCalibrationError = Statistics.mean(calibrations)
        calibratedFixtures = calibrations.count
        (registeredFixtures, misplacedFixtures) = RegistrationComparison.tally(scores.compactMap(\.registration))
        localisation = LocalisationError(pixelDistances: scores.flatMap { $0.matching.pairs.map(\.distance) },
                                         umDistances: scores.flatMap(\.calibratedDistancesUm))
        let blanks = scores.compactMap(\.blankDetections)
        blankControls = blanks.count
        blankDetectionsTotal = blanks.reduce(0, +)
        blankDetectionsMax = blanks.max()
        expectChecks = scores.reduce(0) { $0 + $1.expectChecks.count }
        expectFailures = scores.reduce(0) { $0 + $1.expectChecks.filter { !$0.passed }.count }
    }
}

/// Aggregate metrics of the fixtures carrying one tag.
public struct TagMetrics: Sendable, Equatable {
    public var tag: String
    public var metrics: AggregateMetrics
}

/// One `TagMetrics` per tag present, sorted by tag (byte order) so output never depends on
/// dictionary order.
public func metricsByTag(_ scores: [FixtureScore]) -> [TagMetrics] {
    let tags = Set(scores.flatMap(\.tags)).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    return tags.map { tag in
        TagMetrics(tag: tag, metrics: AggregateMetrics(scores: scores.filter { $0.tags.contains(tag) }))
    }
}
