import Hemocytometer
import Testing
import Vision
@testable import Harness

func makeResult(_ detections: [Detection], width: Int = 200, height: Int = 200,
                concentration: Double? = nil) -> PipelineResult {
    let dead = detections.filter { $0.cellClass == .dead }.count
    let count = ChamberCount(total: detections.count, live: detections.count - dead, dead: dead, squares: [],
                             meanPerSquare: nil, concentrationPerML: concentration, viabilityPercent: nil, flags: [])
    return PipelineResult(width: width, height: height, detections: detections, grid: nil, count: count,
                          focusScore: 0, glareRatio: 0, flags: [], timings: [])
}

func det(_ x: Double, _ y: Double, _ c: CellClass = .live) -> Detection {
    Detection(x: x, y: y, r: 8, cellClass: c, score: 1, confidence: 1)
}

@Suite("Metrics")
struct MetricsTests {
    let truth = GroundTruth(cells: [
        GroundTruth.Cell(x: 10, y: 10, r: 10, cellClass: .live),
        GroundTruth.Cell(x: 50, y: 50, r: 10, cellClass: .live),
        GroundTruth.Cell(x: 90, y: 90, r: 10, cellClass: .dead),
    ], umPerPixel: 0.5, tags: ["dense", "a"])

    @Test func perFixtureArithmetic() throws {
        // Matches: (11,10)->cell0 live/live (1 px), (90,92)->cell2 dead called live (2 px);
        // two false positives; cell 1 missed.
        let result = makeResult([det(11, 10), det(150, 150), det(90, 92), det(170, 20, .dead)])
        let s = scoreFixture(result: result, truth: truth)
        #expect(s.detection == DetectionCounts(tp: 2, fp: 2, fn: 1))
        #expect(s.detection.precision == 0.5)
        #expect(s.detection.recall == 2.0 / 3)
        #expect(s.detection.f1 == 4.0 / 7)
        #expect(s.classes == ClassConfusion(liveAsLive: 1, liveAsDead: 0, deadAsLive: 1, deadAsDead: 0))
        #expect(s.classes.accuracy == 0.5)
        #expect(s.total == CountComparison(predicted: 4, labelled: 3))
        #expect(s.total.error == 1 && s.total.absRelativeError == 1.0 / 3)
        #expect(s.live == CountComparison(predicted: 3, labelled: 2))
        #expect(s.live?.absRelativeError == 0.5)
        #expect(s.dead?.error == 0 && s.dead?.absRelativeError == 0)
        let viability = try #require(s.viabilityErrorPoints)
        #expect(abs(viability - (75 - 200.0 / 3)) < 1e-12)
        let loc = try #require(s.localisation)
        #expect(loc.pairs == 2 && loc.meanPixels == 1.5 && loc.medianPixels == 1.5 && abs(loc.p90Pixels - 1.9) < 1e-12)
        #expect(loc.meanUm == 0.75 && loc.calibratedPairs == 2)
        #expect(s.blankDetections == nil && s.expectChecks.isEmpty)
        // Calibrated, no grid: 3 cells over 200 x 200 px at 0.5 µm = 0.01 mm², 3,000,000 per mL;
        // the pipeline gave no concentration, so there is no error to report.
        #expect(s.concentration == ConcentrationComparison(predictedPerML: nil, labelledPerML: 3_000_000))
        #expect(s.concentration?.relativeError == nil)
        #expect(s.matching.unmatchedPredictions == [1, 3] && s.matching.unmatchedLabels == [1])
    }

    @Test func unknownClassesAndUncalibrated() {
        let t = GroundTruth(cells: [GroundTruth.Cell(x: 10, y: 10), GroundTruth.Cell(x: 40, y: 10, cellClass: .dead)])
        let s = scoreFixture(result: makeResult([det(10, 12), det(40, 10, .dead)]), truth: t)
        // No r: 5 px rule. Unknown class: not in the confusion matrix, no live/dead counts.
        #expect(s.detection == DetectionCounts(tp: 2, fp: 0, fn: 0))
        #expect(s.classes.known == 1 && s.classes.accuracy == 1)
        #expect(s.live == nil && s.dead == nil && s.viabilityErrorPoints == nil)
        #expect(s.localisation?.meanUm == nil && s.localisation?.calibratedPairs == 0)
    }

    @Test func blankControlEdgeCases() {
        let blank = GroundTruth(cells: [], tags: [GroundTruth.blankControlTag])
        let clean = scoreFixture(result: makeResult([]), truth: blank)
        #expect(clean.detection.precision == nil && clean.detection.recall == nil && clean.detection.f1 == 1)
        #expect(clean.blankDetections == 0 && clean.total.absRelativeError == nil)
        let dirty = scoreFixture(result: makeResult([det(5, 5), det(9, 9)]), truth: blank)
        #expect(dirty.blankDetections == 2 && dirty.detection.precision == 0 && dirty.detection.f1 == 0)
        // Labels but no predictions: recall 0, precision undefined, F1 0.
        let missed = scoreFixture(result: makeResult([]), truth: truth)
        #expect(missed.detection.precision == nil && missed.detection.recall == 0 && missed.detection.f1 == 0)
        #expect(missed.viabilityErrorPoints == nil)
    }

    @Test func expectRanges() {
        var t = truth
        t.expect = GroundTruth.Expectations(total: .init(min: 2, max: 3), live: .init(min: 3), dead: .init(max: 0))
        let s = scoreFixture(result: makeResult([det(10, 10), det(50, 50), det(90, 90, .dead)]), truth: t)
        #expect(s.expectChecks.map(\.key) == ["total", "live", "dead"])
        #expect(s.expectChecks.map(\.passed) == [true, false, false])
        #expect(s.expectChecks.map(\.actual) == [3, 2, 1])
    }

    @Test func labelledConcentrationThroughTheGrid() throws {
        // Grid corners scaled 0.1 px per µm, offset (5, 7): the ruled area spans 300 x 300 px.
        let corners = [Point(x: 5, y: 7), Point(x: 305, y: 7), Point(x: 305, y: 307), Point(x: 5, y: 307)]
        var cells: [GroundTruth.Cell] = []
        // 10 cells in each corner square (µm centres 100..900 step 100 in x, y 500), one in the
        // central square (not counted by default).
        for (sx, sy) in [(0.0, 0.0), (2000.0, 0.0), (0.0, 2000.0), (2000.0, 2000.0)] {
            for k in 0..<10 {
                cells.append(GroundTruth.Cell(x: 5 + (sx + 50 + Double(k) * 100) / 10, y: 7 + (sy + 500) / 10, r: 5))
            }
        }
        cells.append(GroundTruth.Cell(x: 155, y: 157, r: 5))
        let t = GroundTruth(cells: cells, dilution: 2,
                            grid: GroundTruth.Grid(corners: corners, widthUm: 3000, heightUm: 3000))
        let count = try #require(t.chamberCount(imageWidth: 320, imageHeight: 320))
        #expect(count.meanPerSquare == 10)
        #expect(count.concentrationPerML == 200_000)
        let s = scoreFixture(result: makeResult([], width: 320, height: 320, concentration: 220_000), truth: t,
                             pipelineDilution: 2)
        let c = try #require(s.concentration)
        #expect(c.labelledPerML == 200_000)
        #expect(abs((c.relativeError ?? 0) - 0.1) < 1e-12)
        // Part of the grid outside the image: only the fully visible corner square (0, 0) counts.
        let partial = try #require(t.chamberCount(imageWidth: 200, imageHeight: 200))
        #expect(partial.squares.map(\.square) == [LargeSquare(row: 0, column: 0)])
        #expect(partial.concentrationPerML == 200_000)
        // No grid: no labelled concentration.
        #expect(GroundTruth(cells: cells).chamberCount(imageWidth: 320, imageHeight: 320) == nil)
    }

    @Test func calibrationAgainstTheLabel() throws {
        // The label says 0.5 µm per pixel; a grid stage that took 200 µm squares for 250 µm
        // ones says 0.625: +25%.
        var result = makeResult([])
        result.grid = GridResult(corners: [], umPerPixel: 0.625, angleDegrees: 0, imageToChamber: [1, 0, 0, 0, 1, 0, 0, 0, 1])
        let calibrated = GroundTruth(cells: [GroundTruth.Cell(x: 10, y: 10, r: 5)], umPerPixel: 0.5)
        let s = scoreFixture(result: result, truth: calibrated)
        let c = try #require(s.calibration)
        #expect(c == CalibrationComparison(predictedUmPerPixel: 0.625, labelledUmPerPixel: 0.5))
        #expect(abs(c.relativeError - 0.25) < 1e-12)
        // No grid found, or no calibration in the label: nothing to compare.
        #expect(scoreFixture(result: makeResult([]), truth: calibrated).calibration == nil)
        #expect(scoreFixture(result: result, truth: GroundTruth(cells: [])).calibration == nil)
        // The summary: mean |error| over the fixtures that have one, and how many.
        var exact = result
        exact.grid?.umPerPixel = 0.5
        let metrics = AggregateMetrics(scores: [s, scoreFixture(result: exact, truth: calibrated),
                                                scoreFixture(result: makeResult([]), truth: calibrated)])
        #expect(metrics.calibratedFixtures == 2)
        #expect(abs((metrics.meanAbsRelCalibrationError ?? 0) - 0.125) < 1e-12)
    }

    @Test func placementInTheChamberAgainstTheLabel() throws {
        // The label: a 400 x 300 view at 0.5 µm per pixel of the top-left corner square, its
        // top-left corner at chamber (100, 100): the ruled area's corners lie outside the image.
        let corners = NeubauerGeometry.ruledAreaCorners.map { Point(x: ($0.x - 100) / 0.5, y: ($0.y - 100) / 0.5) }
        let label = GroundTruth(cells: [GroundTruth.Cell(x: 10, y: 10, r: 5)], umPerPixel: 0.5,
                                grid: GroundTruth.Grid(corners: corners, widthUm: 3000, heightUm: 3000))
        func placed(atU u: Double, v: Double) -> PipelineResult {
            var result = makeResult([], width: 400, height: 300)
            result.grid = GridResult(corners: [], umPerPixel: 0.5, angleDegrees: 0, imageToChamber: [0.5, 0, u, 0, 0.5, v, 0, 0, 1])
            return result
        }
        let right = try #require(scoreFixture(result: placed(atU: 100, v: 100), truth: label).registration)
        #expect(right.positionErrorUm < 1e-9 && !right.isMisplaced)
        // The right scale one large square to the right (the top middle square's 250 µm lines
        // look the same): the calibration cannot see it, the placement does.
        let beside = scoreFixture(result: placed(atU: 1100, v: 100), truth: label)
        #expect(abs((beside.calibration?.relativeError ?? 1)) < 1e-12)
        let off = try #require(beside.registration)
        #expect(abs(off.positionErrorUm - 1000) < 1e-6 && off.isMisplaced)
        // Mirrored top to bottom: the same squares in the same places, as far as a view can tell.
        let mirrored = 3000 - 100.0
        var flipped = makeResult([], width: 400, height: 300)
        flipped.grid = GridResult(corners: [], umPerPixel: 0.5, angleDegrees: 0, imageToChamber: [0.5, 0, 100, 0, -0.5, mirrored, 0, 0, 1])
        #expect(try #require(scoreFixture(result: flipped, truth: label).registration).positionErrorUm < 1e-9)
        // 20 µm off is within half a small square.
        #expect(scoreFixture(result: placed(atU: 120, v: 100), truth: label).registration?.isMisplaced == false)
        // No grid found, no grid labelled, or a label's grid that is not the whole ruled area:
        // nothing to compare.
        #expect(scoreFixture(result: makeResult([], width: 400, height: 300), truth: label).registration == nil)
        #expect(scoreFixture(result: placed(atU: 100, v: 100), truth: GroundTruth(cells: [])).registration == nil)
        let partial = GroundTruth(cells: [], grid: GroundTruth.Grid(corners: corners, widthUm: 1000, heightUm: 1000))
        #expect(scoreFixture(result: placed(atU: 100, v: 100), truth: partial).registration == nil)
        // The summary: how many were compared, and how many were misplaced.
        let metrics = AggregateMetrics(scores: [scoreFixture(result: placed(atU: 100, v: 100), truth: label), beside,
                                                scoreFixture(result: makeResult([]), truth: label)])
        #expect(metrics.registeredFixtures == 2 && metrics.misplacedFixtures == 1)
    }

    @Test func labelledConcentrationFromTheFieldWhenNoLargeSquareIsInView() throws {
        // 0.5 µm per px: a 400 x 300 image covers 200 x 150 µm = 0.03 mm²,
        // no large square. 12 cells: 400 per mm², x 10^4 per mL, dilution 2: 8,000,000 per mL.
        let cells = (0..<12).map { GroundTruth.Cell(x: 20 + Double($0) * 30, y: 150, r: 8) }
        // The grid as the label states it: the ruled area's corners far outside the image;
        // the field's area comes from mapping the image outline through it.
        let toImage = try #require(Homography(from: [Point(x: 0, y: 0), Point(x: 3000, y: 0),
                                                      Point(x: 3000, y: 3000), Point(x: 0, y: 3000)],
                                               to: [Point(x: -2000, y: -1500), Point(x: 4000, y: -1500),
                                                    Point(x: 4000, y: 4500), Point(x: -2000, y: 4500)]))
        let corners = [Point(x: 0, y: 0), Point(x: 3000, y: 0), Point(x: 3000, y: 3000), Point(x: 0, y: 3000)]
            .compactMap(toImage.apply)
        let t = GroundTruth(cells: cells, dilution: 2, grid: GroundTruth.Grid(corners: corners, widthUm: 3000, heightUm: 3000))
        #expect(t.chamberCount(imageWidth: 400, imageHeight: 300)?.concentrationPerML == nil)
        let fromGrid = try #require(t.areaConcentration(imageWidth: 400, imageHeight: 300))
        #expect(abs(fromGrid - 8_000_000) < 1)
        // Calibrated without a grid: the same from umPerPixel.
        let calibrated = GroundTruth(cells: cells, umPerPixel: 0.5, dilution: 2)
        #expect(abs((calibrated.areaConcentration(imageWidth: 400, imageHeight: 300) ?? 0) - 8_000_000) < 1)
        // The score compares the pipeline's area-based figure with it: a 25% scale error
        // (200 µm squares taken for 250 µm ones) is a 56% concentration error.
        let s = scoreFixture(result: makeResult([], width: 400, height: 300, concentration: 8_000_000 / 1.5625),
                             truth: t, pipelineDilution: 2)
        let c = try #require(s.concentration)
        #expect(abs((c.relativeError ?? 0) + 0.36) < 1e-9)
        // A pipeline run at its default dilution 1 is compared at the sample's (the label's) 2.
        let atOne = scoreFixture(result: makeResult([], width: 400, height: 300, concentration: 4_000_000), truth: t)
        #expect(abs((atOne.concentration?.predictedPerML ?? 0) - 8_000_000) < 1e-6)
        #expect(abs(atOne.concentration?.relativeError ?? 1) < 1e-12)
        // Neither grid nor calibration, or an empty image: none.
        #expect(GroundTruth(cells: cells).areaConcentration(imageWidth: 400, imageHeight: 300) == nil)
        #expect(calibrated.areaConcentration(imageWidth: 0, imageHeight: 300) == nil)
    }

    @Test func microMacroAndTags() throws {
        // Fixture A: tp 9 fp 1 fn 0 (P .9, R 1, F1 18/19). Fixture B: tp 1 fp 0 fn 9.
        let a = FixtureScore.synthetic(tp: 9, fp: 1, fn: 0, tags: ["x"])
        let b = FixtureScore.synthetic(tp: 1, fp: 0, fn: 9, tags: ["x", "blurred"])
        let all = AggregateMetrics(scores: [a, b])
        #expect(all.detection == DetectionCounts(tp: 10, fp: 1, fn: 9))
        #expect(all.precision == 10.0 / 11 && all.recall == 10.0 / 19 && all.f1 == 20.0 / 30)
        let macroF1 = try #require(all.macroF1)
        #expect(abs(macroF1 - (18.0 / 19 + 2.0 / 11) / 2) < 1e-12)
        #expect(all.macroPrecision == (0.9 + 1) / 2 && all.macroRecall == (1 + 0.1) / 2)
        let tags = metricsByTag([a, b])
        #expect(tags.map(\.tag) == ["blurred", "x"])
        #expect(tags[0].metrics.fixtures == 1 && tags[1].metrics.fixtures == 2)
        let empty = AggregateMetrics(scores: [])
        #expect(empty.f1 == nil && empty.precision == nil && empty.macroF1 == nil && empty.liveDeadAccuracy == nil)
    }

    @Test func aggregateCountErrorsAndBlanks() {
        let t1 = GroundTruth(cells: [GroundTruth.Cell(x: 10, y: 10, r: 10, cellClass: .live),
                                     GroundTruth.Cell(x: 60, y: 10, r: 10, cellClass: .dead)])
        let s1 = scoreFixture(result: makeResult([det(10, 10), det(60, 10, .dead), det(120, 120)]), truth: t1)
        let blank = GroundTruth(cells: [], tags: [GroundTruth.blankControlTag])
        let s2 = scoreFixture(result: makeResult([det(5, 5)]), truth: blank)
        let s3 = scoreFixture(result: makeResult([]), truth: blank)
        let m = AggregateMetrics(scores: [s1, s2, s3])
        #expect(m.meanAbsRelCountError == 0.5) // only s1 has cells: |3-2|/2
        #expect(m.macroF1 == 0.8) // blanks (F1 0 and 1) are left out: s1 has 2tp/(2tp+fp+fn) = 4/5
        #expect(m.blankControls == 2 && m.blankDetectionsTotal == 1 && m.blankDetectionsMax == 1)
        #expect(m.liveDeadAccuracy == 1)
        #expect(m.meanAbsRelLiveCountError == 1 && m.meanAbsRelDeadCountError == 0)
    }
}

extension FixtureScore {
    /// A score with given counts and nothing else, for aggregate arithmetic.
    static func synthetic(tp: Int, fp: Int, fn: Int, tags: [String]) -> FixtureScore {
        let cells = (0..<(tp + fn)).map { GroundTruth.Cell(x: Double($0) * 100, y: 0, r: 10) }
        let dets = (0..<tp).map { det(Double($0) * 100, 0) } + (0..<fp).map { det(Double($0) * 100, 500) }
        return scoreFixture(result: makeResult(dets, width: 10_000, height: 1000), truth: GroundTruth(cells: cells, tags: tags))
    }
}

@Suite("Outliers")
struct OutlierTests {
    func outcome(_ name: String, tp: Int, fp: Int, fn: Int, candidatesMs: Double) -> FixtureOutcome {
        let score = FixtureScore.synthetic(tp: tp, fp: fp, fn: fn, tags: [])
        let samples = [[StageTiming(name: "decode", wallSeconds: 0.010, cpuSeconds: 0.010),
                        StageTiming(name: "candidates", wallSeconds: candidatesMs / 1000, cpuSeconds: candidatesMs / 1000)]]
        return FixtureOutcome(fixture: RunFixture(id: name, path: name + ".png", imagePath: nil, labelPath: nil, group: ""),
                              status: .scored, score: score, samples: samples)
    }

    @Test func robustZAcrossFixtures() throws {
        // Nine similar fixtures and one that is bad at everything and slow.
        var outcomes: [FixtureOutcome] = []
        for i in 0..<9 {
            let ms = 20.0 + Double(i % 4)
            outcomes.append(outcome("ok\(i)", tp: 18 + i % 3, fp: 1 + i % 2, fn: 1 + i % 3, candidatesMs: ms))
        }
        outcomes.insert(outcome("bad", tp: 2, fp: 10, fn: 18, candidatesMs: 200), at: 4)
        let outliers = findOutliers(outcomes)
        let fixtures: [String] = outliers.map { $0.fixture }
        let metrics: [String] = outliers.map { $0.metric }
        #expect(fixtures == ["bad.png", "bad.png", "bad.png"])
        #expect(metrics == ["f1", "absRelCountError", "stage.candidates.wallMs"])
        let f1 = try #require(outliers.first)
        #expect(f1.z < -3.5)
        let times = outcomes.map { $0.samples[0][1].wallSeconds * 1000 }
        #expect(outliers[2].value == 200 && outliers[2].median == Statistics.median(times))
        #expect(abs(outliers[2].z - Statistics.robustZScores(times)[4]) < 1e-12)
        // A stricter cut finds nothing more; a looser one can only add.
        #expect(findOutliers(outcomes, cut: 1000).isEmpty)
        #expect(findOutliers(outcomes, cut: 1).count >= 3)
    }
}
