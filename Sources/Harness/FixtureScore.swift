import Hemocytometer
import Vision

/// Live/dead confusion on matched pairs whose label is known. Rows: truth, columns: call.
public struct ClassConfusion: Sendable, Equatable {
    public var liveAsLive = 0
    public var liveAsDead = 0
    public var deadAsLive = 0
    public var deadAsDead = 0
    public init(liveAsLive: Int = 0, liveAsDead: Int = 0, deadAsLive: Int = 0, deadAsDead: Int = 0) {
        self.liveAsLive = liveAsLive
        self.liveAsDead = liveAsDead
        self.deadAsLive = deadAsLive
        self.deadAsDead = deadAsDead
    }
    public var known: Int { liveAsLive + liveAsDead + deadAsLive + deadAsDead }
    public var correct: Int { liveAsLive + deadAsDead }
    /// Correct / known; nil when no matched pair has a known label.
    public var accuracy: Double? { known == 0 ? nil : Double(correct) / Double(known) }
    public static func + (a: ClassConfusion, b: ClassConfusion) -> ClassConfusion {
        ClassConfusion(liveAsLive: a.liveAsLive + b.liveAsLive, liveAsDead: a.liveAsDead + b.liveAsDead,
                       deadAsLive: a.deadAsLive + b.deadAsLive, deadAsDead: a.deadAsDead + b.deadAsDead)
    }
}

/// Predicted against labelled count of one kind (total, live or dead).
public struct CountComparison: Sendable, Equatable {
    public var predicted: Int
    public var labelled: Int
    /// predicted - labelled.
    public var error: Int { predicted - labelled }
    /// |predicted - labelled| / labelled; nil when the label has no such cell (avoid /0).
    public var absRelativeError: Double? {
        labelled == 0 ? nil : Double(abs(predicted - labelled)) / Double(labelled)
    }
    public init(predicted: Int, labelled: Int) {
        self.predicted = predicted
        self.labelled = labelled
    }
}

/// Predicted against labelled concentration (cells/mL), both by the Neubauer rules (counted
/// large squares, or the density over the field when none is in view) and at the label's
/// dilution.
public struct ConcentrationComparison: Sendable, Equatable {
    public var predictedPerML: Double?
    public var labelledPerML: Double
    /// (predicted - labelled) / labelled; nil when the pipeline gave no concentration or the
    /// labelled one is 0.
    public var relativeError: Double? {
        guard let predictedPerML, labelledPerML > 0 else { return nil }
        return (predictedPerML - labelledPerML) / labelledPerML
    }
}

/// The grid stage's calibration against the label's: µm per pixel.
public struct CalibrationComparison: Sendable, Equatable {
    public var predictedUmPerPixel: Double
    public var labelledUmPerPixel: Double
    /// (predicted - labelled) / labelled: a scale error; the area, and a concentration taken
    /// from it, is off by (1 + this)² - 1.
    public var relativeError: Double { (predictedUmPerPixel - labelledUmPerPixel) / labelledUmPerPixel }
}

/// Where the grid stage placed the view in the chamber against where the label's grid corners
/// place it (`registrationErrorUm`: the view's centre and its quarters' centres, up to the
/// ruling's symmetries). The scale can be right and the placement a large square or two off:
/// the ruling repeats, and which squares are counted depends on it.
public struct RegistrationComparison: Sendable, Equatable {
    /// The largest distance between the two placements of the five points, chamber µm.
    public var positionErrorUm: Double
    public init(positionErrorUm: Double) { self.positionErrorUm = positionErrorUm }
    /// Half a 50 µm small square: further off, a cell on the ruling's finest squares is
    /// counted in the wrong one. (Nearly all the stand-in sets' placements are within 10 µm or
    /// 100 µm and more off: the ruling repeats by whole squares.)
    public static let toleranceUm = NeubauerGeometry.smallSquareUm / 2
    /// Further off than `toleranceUm`.
    public var isMisplaced: Bool { positionErrorUm > Self.toleranceUm }
    /// `toleranceUm` as the reports print it ("25").
    static var toleranceText: String { Show.fixed(toleranceUm, 0) }

    /// How many of `placements` were compared and how many of them are misplaced.
    static func tally(_ placements: [RegistrationComparison]) -> (registered: Int, misplaced: Int) {
        (placements.count, placements.filter(\.isMisplaced).count)
    }

    /// "k of n" misplaced, or "n/a" when no placement was compared (summary.md, sweep.md).
    static func summaryText(misplaced: Int, registered: Int) -> String {
        registered > 0 ? "\(misplaced) of \(registered)" : "n/a"
    }
}

/// Centre distance of the matched pairs, in pixels and, for calibrated fixtures, micrometres.
public struct LocalisationError: Sendable, Equatable {
    public var pairs: Int
    public var meanPixels: Double
    public var medianPixels: Double
    public var p90Pixels: Double
    /// Pairs whose fixture is calibrated (label `umPerPixel`); the µm figures cover these.
    public var calibratedPairs: Int
    public var meanUm: Double?
    public var medianUm: Double?
    public var p90Um: Double?

    /// nil when `pixelDistances` is empty. `umDistances` holds the distances of the
    /// calibrated pairs in micrometres (may be empty).
    public init?(pixelDistances: [Double], umDistances: [Double]) {
        guard let px = SampleSummary(pixelDistances) else { return nil }
        pairs = px.count
        meanPixels = px.mean
        medianPixels = px.median
        p90Pixels = px.p90
        let um = SampleSummary(umDistances)
        calibratedPairs = um?.count ?? 0
        meanUm = um?.mean
        medianUm = um?.median
        p90Um = um?.p90
    }
}

/// One `expect` range of a label checked against the predicted count.
public struct ExpectCheck: Sendable, Equatable {
    /// "total", "live" or "dead".
    public var key: String
    public var range: GroundTruth.CountRange
    public var actual: Int
    public var passed: Bool { range.contains(Double(actual)) }
}

/// Precision, recall and F1 from detection counts.
///
/// Edge cases: precision is nil without predictions (tp + fp = 0) and recall nil without
/// labelled cells (tp + fn = 0); such fixtures drop out of the macro means of P and R. F1 is
/// 2tp / (2tp + fp + fn), which needs no special case except tp = fp = fn = 0 (nothing to
/// find and nothing claimed, e.g. a clean blank control): F1 = 1.
public struct DetectionCounts: Sendable, Equatable {
    public var tp: Int
    public var fp: Int
    public var fn: Int
    public init(tp: Int, fp: Int, fn: Int) {
        self.tp = tp
        self.fp = fp
        self.fn = fn
    }
    public var precision: Double? { tp + fp == 0 ? nil : Double(tp) / Double(tp + fp) }
    public var recall: Double? { tp + fn == 0 ? nil : Double(tp) / Double(tp + fn) }
    public var f1: Double {
        let denominator = 2 * tp + fp + fn
        return denominator == 0 ? 1 : Double(2 * tp) / Double(denominator)
    }
    public static func + (a: DetectionCounts, b: DetectionCounts) -> DetectionCounts {
        DetectionCounts(tp: a.tp + b.tp, fp: a.fp + b.fp, fn: a.fn + b.fn)
    }
}

/// Everything measured on one labelled fixture.
public struct FixtureScore: Sendable, Equatable {
    public var matching: Matching
    public var detection: DetectionCounts
    public var classes: ClassConfusion
    public var total: CountComparison
    /// nil when some labelled cell has no live/dead label (the labelled count is unknown).
    public var live: CountComparison?
    public var dead: CountComparison?
    /// Predicted minus labelled viability, percentage points; nil when either is undefined
    /// (no cells, or labels without live/dead).
    public var viabilityErrorPoints: Double?
    /// nil unless the label has a grid.
    public var concentration: ConcentrationComparison?
    /// nil unless the label is calibrated and the pipeline found a grid.
    public var calibration: CalibrationComparison? = nil
    /// nil unless the label's grid is the whole ruled area (3000 x 3000 µm) and the pipeline
    /// found a grid.
    public var registration: RegistrationComparison? = nil
    /// nil without matched pairs.
    public var localisation: LocalisationError?
    /// Detections on a blank control (tag `blank-control`); nil for other fixtures.
    public var blankDetections: Int?
    public var expectChecks: [ExpectCheck]
    /// Copied from the label, for grouping.
    public var tags: [String]
    /// Copied from the label: micrometres per pixel, when calibrated.
    public var umPerPixel: Double?
}

/// Scores one image's pipeline output against its label.
/// - Parameters:
///   - result: the pipeline's detections, count and grid.
///   - truth: the label.
///   - rule: matching rule (labels-v1 default).
///   - countSettings: the counting settings the pipeline used (squares, MAD cut), applied to
///     the labelled centres to get the labelled concentration.
///   - pipelineDilution: the dilution the pipeline's concentration assumed (its config's); the
///     comparison rescales it to the label's, the sample's own.
public func scoreFixture(result: PipelineResult, truth: GroundTruth, rule: MatchRule = .standard,
                         countSettings: CountSettings = CountSettings(), pipelineDilution: Double = 1) -> FixtureScore {
    let detections = result.detections
    let matching = matchCentres(predicted: detections.map { Point(x: $0.x, y: $0.y) },
                                labelled: truth.matchTargets, rule: rule)
    var classes = ClassConfusion()
    for pair in matching.pairs {
        guard let truthClass = truth.cells[pair.label].cellClass else { continue }
        switch (truthClass, detections[pair.prediction].cellClass) {
        case (.live, .live): classes.liveAsLive += 1
        case (.live, .dead): classes.liveAsDead += 1
        case (.dead, .live): classes.deadAsLive += 1
        case (.dead, .dead): classes.deadAsDead += 1
        }
    }

    let predictedDead = detections.filter { $0.cellClass == .dead }.count
    let predictedLive = detections.count - predictedDead
    let allKnown = truth.cells.allSatisfy { $0.cellClass != nil }
    let labelledDead = truth.cells.filter { $0.cellClass == .dead }.count
    let labelledLive = truth.cells.filter { $0.cellClass == .live }.count
    let live = allKnown ? CountComparison(predicted: predictedLive, labelled: labelledLive) : nil
    let dead = allKnown ? CountComparison(predicted: predictedDead, labelled: labelledDead) : nil

    var viabilityError: Double?
    if allKnown, !truth.cells.isEmpty, !detections.isEmpty {
        let predicted = Double(predictedLive) / Double(detections.count) * 100
        let labelled = Double(labelledLive) / Double(truth.cells.count) * 100
        viabilityError = predicted - labelled
    }

    // By the counting rules where the label's grid shows a whole large square; otherwise (high
    // magnification) from the density over the field, as the pipeline falls back to, which
    // makes this the check on the pipeline's calibration.
    var concentration: ConcentrationComparison?
    if let labelledPerML = truth.chamberCount(imageWidth: result.width, imageHeight: result.height,
                                              settings: countSettings)?.concentrationPerML
        ?? truth.areaConcentration(imageWidth: result.width, imageHeight: result.height) {
        let rescale = pipelineDilution > 0 ? truth.dilution / pipelineDilution : 1
        concentration = ConcentrationComparison(predictedPerML: result.count.concentrationPerML.map { $0 * rescale },
                                                labelledPerML: labelledPerML)
    }

    var calibration: CalibrationComparison?
    if let labelled = truth.umPerPixel, labelled > 0, let predicted = result.grid?.umPerPixel, predicted > 0 {
        calibration = CalibrationComparison(predictedUmPerPixel: predicted, labelledUmPerPixel: labelled)
    }

    var registration: RegistrationComparison?
    if let grid = truth.grid, grid.widthUm == NeubauerGeometry.ruledAreaUm, grid.heightUm == NeubauerGeometry.ruledAreaUm,
       let labelled = grid.toChamber, let predicted = result.grid.flatMap({ Homography(matrix: $0.imageToChamber) }),
       let error = registrationErrorUm(predicted, against: labelled, width: result.width, height: result.height) {
        registration = RegistrationComparison(positionErrorUm: error)
    }

    var checks: [ExpectCheck] = []
    for (key, range, actual) in [("total", truth.expect.total, detections.count),
                                 ("live", truth.expect.live, predictedLive),
                                 ("dead", truth.expect.dead, predictedDead)] {
        if let range { checks.append(ExpectCheck(key: key, range: range, actual: actual)) }
    }

    let distances = matching.pairs.map(\.distance)
    return FixtureScore(
        matching: matching,
        detection: DetectionCounts(tp: matching.truePositives, fp: matching.falsePositives, fn: matching.falseNegatives),
        classes: classes,
        total: CountComparison(predicted: detections.count, labelled: truth.cells.count),
        live: live, dead: dead,
        viabilityErrorPoints: viabilityError,
        concentration: concentration,
        calibration: calibration,
        registration: registration,
        localisation: LocalisationError(pixelDistances: distances,
                                        umDistances: truth.umPerPixel.map { scale in distances.map { $0 * scale } } ?? []),
        blankDetections: truth.isBlankControl ? detections.count : nil,
        expectChecks: checks,
        tags: truth.tags,
        umPerPixel: truth.umPerPixel)
}

extension FixtureScore {
    /// Matched-pair distances in micrometres; empty when the label is not calibrated.
    public var calibratedDistancesUm: [Double] {
        guard let scale = umPerPixel else { return [] }
        return matching.pairs.map { $0.distance * scale }
    }
}
