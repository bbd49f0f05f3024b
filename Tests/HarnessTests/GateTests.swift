import JSON
import Testing
@testable import Harness
import Vision

@Suite("Gates")
struct GateTests {
    func metrics(tp: Int, fp: Int, fn: Int) -> AggregateMetrics {
        AggregateMetrics(scores: [FixtureScore.synthetic(tp: tp, fp: fp, fn: fn, tags: [])])
    }

    /// Measured values and swept settings as reports show them: four decimals in the usual
    /// range, an exponent beyond it (never a tiny value as 0 or a huge one in 300 digits).
    @Test func numbersAreWrittenReadably() throws {
        #expect(formatGateNumber(0.83721) == "0.8372")
        #expect(formatGateNumber(12.5) == "12.5")
        #expect(formatGateNumber(3) == "3")
        #expect(formatGateNumber(0.30000000000000004) == "0.3")
        #expect(formatGateNumber(-0.00001) == "-1e-05")
        #expect(formatGateNumber(0.00005) == "5e-05")
        #expect(formatGateNumber(1e308) == "1e+308")
        #expect(formatGateNumber(.nan) == "n/a")
        let axis = try SweepAxis.parse("dilution=0.00005,2")
        let labels = try sweepSettings(base: PipelineConfig(), axes: [axis]).map(\.label)
        #expect(labels == ["dilution=5e-05", "dilution=2"])
        #expect(throws: SweepInputError.self) { try SweepAxis.parse("nmsIoU=0.3,0.3") }
        do {
            _ = try SweepAxis.parse("nmsIoU=0.3,0.30")
        } catch {
            #expect(error.description == "\"nmsIoU=0.3,0.30\": value 0.3 is given twice")
        }
    }

    @Test func defaultsAndParsing() throws {
        let empty = try Acceptance.parse(.object(JSONObject()), file: "a.json")
        #expect(empty.limits == Acceptance.defaultLimits)
        #expect(empty.limits.minPrecision == 0.9 && empty.limits.minRecall == 0.85 && empty.limits.maxBlankDetections == 0)
        #expect(empty.limits.maxErrored == 0 && empty.limits.gateExpect == true && empty.limits.minF1 == nil)
        let full = try Acceptance.parse(try JSONValue.parse("""
            {"description": "x", "minPrecision": 0.95, "minRecall": null, "minF1": 0.9, "maxMeanAbsRelCountError": 0.1,
             "maxMeanAbsRelCalibrationError": 0.03, "minLiveDeadAccuracy": 0.97, "maxErrored": 2, "gateExpect": false,
             "stageBudgets": {"candidates": {"medianMs": 20, "p90Ms": 40}, "total": {"p90Ms": 100, "clock": "cpu"}},
             "tags": {"dense": {"minRecall": 0.8}, "blank-control": {"maxBlankDetections": 1}}}
            """), file: "a.json")
        #expect(full.description == "x" && full.limits.minPrecision == 0.95 && full.limits.minRecall == nil)
        #expect(full.limits.maxMeanAbsRelCalibrationError == 0.03)
        #expect(full.limits.stageBudgets == [StageBudget(stage: "candidates", medianMs: 20, p90Ms: 40),
                                             StageBudget(stage: "total", p90Ms: 100, clock: .cpu)])
        #expect(full.tagLimits.map(\.tag) == ["blank-control", "dense"])
        #expect(full.tagLimits[1].limits.minRecall == 0.8 && full.tagLimits[1].limits.minPrecision == nil)
    }

    @Test func invalidFilesNameTheKey() {
        func error(_ text: String) -> String {
            do {
                _ = try Acceptance.parse(try JSONValue.parse(text), file: "acc.json")
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(error("{\"minPrecison\": 0.9}").contains("minPrecison: unknown key \"minPrecison\""))
        #expect(error("{\"minPrecision\": 1.5}") == "acc.json: minPrecision: expected a number from 0 to 1, got 1.5")
        #expect(error("{\"maxErrored\": -1}").contains("maxErrored: expected a non-negative integer"))
        #expect(error("{\"maxMisplacedFixtures\": -1}").contains("maxMisplacedFixtures: expected a non-negative integer"))
        #expect(error("{\"maxMisplacedFixtures\": 1.5}").contains("maxMisplacedFixtures: expected"))
        #expect(error("{\"gateExpect\": \"yes\"}").contains("gateExpect: expected true or false"))
        #expect(error("{\"tags\": {\"dense\": {\"tags\": {}}}}").contains("tags.dense.tags: unknown key"))
        #expect(error("{\"stageBudgets\": {\"nms\": {\"meanMs\": 3}}}").contains("stageBudgets.nms.meanMs: unknown key"))
        #expect(error("{\"stageBudgets\": {\"nms\": {\"clock\": \"cpu\"}}}").contains("medianMs"))
        #expect(error("[1]").contains("expected an object"))
    }

    @Test func evaluationReportsActualAndLimit() {
        // P = 9/10, R = 9/12.
        let inputs = GateInputs(metrics: metrics(tp: 9, fp: 1, fn: 3), errored: 1, stages: [], expectFailures: [])
        let limits = GateLimits(minPrecision: 0.9, minRecall: 0.85, maxErrored: 1)
        let gates = evaluateGates(limits: limits, scope: "all", inputs: inputs)
        #expect(gates.map(\.name) == ["minPrecision", "minRecall", "maxErrored"])
        #expect(gates.map(\.passed) == [true, false, true])
        #expect(gates[1].actual == 0.75 && gates[1].limit == 0.85 && gates[1].comparison == ">=")
        #expect(gates[1].detail == "recall 0.75 violates >= 0.85")
        #expect(gates[2].comparison == "<=")
    }

    @Test func calibrationGate() throws {
        // Two calibrated fixtures, 1% and 5% off: mean 3%.
        func fixture(_ predicted: Double) -> FixtureScore {
            var s = FixtureScore.synthetic(tp: 1, fp: 0, fn: 0, tags: [])
            s.calibration = CalibrationComparison(predictedUmPerPixel: predicted, labelledUmPerPixel: 1)
            return s
        }
        let inputs = GateInputs(metrics: AggregateMetrics(scores: [fixture(1.01), fixture(0.95)]), errored: 0,
                                stages: [], expectFailures: [])
        let gates = evaluateGates(limits: GateLimits(maxMeanAbsRelCalibrationError: 0.02), scope: "all", inputs: inputs)
        let gate = try #require(gates.first { $0.name == "maxMeanAbsRelCalibrationError" })
        #expect(!gate.passed && abs((gate.actual ?? 0) - 0.03) < 1e-12 && gate.limit == 0.02)
        #expect(evaluateGates(limits: GateLimits(maxMeanAbsRelCalibrationError: 0.05), scope: "all", inputs: inputs)
            .allSatisfy { $0.passed })
        // No calibrated fixture with a grid: not applicable, not failed.
        let none = GateInputs(metrics: metrics(tp: 1, fp: 0, fn: 0), errored: 0, stages: [], expectFailures: [])
        let undefined = evaluateGates(limits: GateLimits(maxMeanAbsRelCalibrationError: 0.02), scope: "all", inputs: none)
        #expect(undefined.allSatisfy { $0.passed && $0.actual == nil })
    }

    @Test func placementGate() throws {
        // Three fixtures whose placement was compared: one 1 mm off, two right.
        func fixture(_ errorUm: Double?) -> FixtureScore {
            var s = FixtureScore.synthetic(tp: 1, fp: 0, fn: 0, tags: [])
            s.registration = errorUm.map { RegistrationComparison(positionErrorUm: $0) }
            return s
        }
        let inputs = GateInputs(metrics: AggregateMetrics(scores: [fixture(1000), fixture(3), fixture(0), fixture(nil)]),
                                errored: 0, stages: [], expectFailures: [])
        let strict = evaluateGates(limits: GateLimits(maxMisplacedFixtures: 0), scope: "all", inputs: inputs)
        let gate = try #require(strict.first { $0.name == "maxMisplacedFixtures" })
        #expect(!gate.passed && gate.actual == 1 && gate.limit == 0)
        #expect(gate.detail.contains("placed more than 25 µm off"), "\(gate.detail)")
        #expect(evaluateGates(limits: GateLimits(maxMisplacedFixtures: 1), scope: "all", inputs: inputs).allSatisfy { $0.passed })
        // No placement compared: not applicable, not failed.
        let none = GateInputs(metrics: AggregateMetrics(scores: [fixture(nil)]), errored: 0, stages: [], expectFailures: [])
        #expect(evaluateGates(limits: GateLimits(maxMisplacedFixtures: 0), scope: "all", inputs: none)
            .allSatisfy { $0.passed && $0.actual == nil })
        // The key is read (bad values: `invalidFilesNameTheKey`).
        let parsed = try Acceptance.parse(try JSONValue.parse(#"{"maxMisplacedFixtures": 2}"#), file: "a.json")
        #expect(parsed.limits.maxMisplacedFixtures == 2)
    }

    @Test func undefinedMetricsAndMissingTagsDoNotApply() {
        let blankOnly = GateInputs(metrics: AggregateMetrics(scores: []), errored: 0, stages: [], expectFailures: [])
        let gates = evaluateGates(limits: GateLimits(minPrecision: 0.9, maxBlankDetections: 0, minLiveDeadAccuracy: 0.9),
                                  scope: "all", inputs: blankOnly)
        #expect(gates.allSatisfy { $0.passed && $0.actual == nil && $0.detail.hasPrefix("not applicable") })
        let acceptance = Acceptance(limits: GateLimits(), tagLimits: [("missing", GateLimits(minRecall: 0.5))])
        let tagged = evaluateGates(acceptance: acceptance, overall: blankOnly) { _ in nil }
        #expect(tagged.map(\.label) == ["minRecall [tag:missing]"])
        #expect(tagged[0].passed && tagged[0].detail == "not applicable: no fixture in tag:missing")
    }

    /// Steps are listed stage by stage in the order they ran: a fallback first seen in a later
    /// run takes its place between the steps around it there (two steps that never run on the
    /// same view keep the order they were met in), and counts only the runs it ran in; its
    /// share is of its stage's time over the whole run.
    @Test func stepStatisticsKeepThePipelinesOrderAndShareTheirStage() {
        func step(_ stage: String, _ name: String, _ ms: Double) -> StepTiming {
            StepTiming(stage: stage, step: name, wallSeconds: ms / 1000, cpuSeconds: ms / 1000)
        }
        let rows = stepStatistics(steps: [
            [step("grid", "line search", 6), step("grid", "registration", 2), step("candidates", "maps", 10)],
            [step("grid", "line search", 8), step("grid", "keystone fallback", 4), step("grid", "residue fallback", 5),
             step("candidates", "maps", 12), step("candidates", "ruling windows", 1), step("candidates", "rim circle", 1)],
            [step("candidates", "maps", 12), step("candidates", "triple-line crossings", 1),
             step("candidates", "rim circle", 1)],
        ], stages: stageStatistics(samples: [
            [.init(name: "grid", wallSeconds: 0.010, cpuSeconds: 0.010), .init(name: "candidates", wallSeconds: 0.020, cpuSeconds: 0.02)],
            [.init(name: "grid", wallSeconds: 0.020, cpuSeconds: 0.020), .init(name: "candidates", wallSeconds: 0.030, cpuSeconds: 0.03)],
        ]))
        #expect(rows.map { "\($0.stage): \($0.step)" } == ["grid: line search", "grid: keystone fallback", "grid: residue fallback",
                                                            "grid: registration", "candidates: maps", "candidates: ruling windows",
                                                            "candidates: triple-line crossings", "candidates: rim circle"])
        #expect(rows.map(\.wallMs.count) == [2, 1, 1, 1, 3, 1, 1, 2])
        #expect(abs(rows[0].wallMs.median - 7) < 1e-9)
        #expect(abs(rows[0].shareOfStage - 14.0 / 30) < 1e-9 && abs(rows[4].shareOfStage - 34.0 / 50) < 1e-9)
        #expect(stepStatistics(steps: [], stages: []).isEmpty)
    }

    @Test func blankExpectAndStageBudgets() {
        let blank = GroundTruth(cells: [], tags: [GroundTruth.blankControlTag])
        let s = scoreFixture(result: makeResult([det(5, 5), det(50, 50)]), truth: blank)
        let stages = stageStatistics(samples: [
            [.init(name: "decode", wallSeconds: 0.010, cpuSeconds: 0.009), .init(name: "nms", wallSeconds: 0.002, cpuSeconds: 0.002)],
            [.init(name: "decode", wallSeconds: 0.030, cpuSeconds: 0.010), .init(name: "nms", wallSeconds: 0.004, cpuSeconds: 0.001)],
        ])
        let inputs = GateInputs(metrics: AggregateMetrics(scores: [s]), errored: 0, stages: stages,
                                expectFailures: ["a.png: total 3 not in [5, any]"])
        let limits = GateLimits(maxBlankDetections: 0, gateExpect: true,
                                stageBudgets: [StageBudget(stage: "decode", medianMs: 25, p90Ms: 25),
                                               StageBudget(stage: "decode", medianMs: 9.9, clock: .cpu),
                                               StageBudget(stage: "classify", medianMs: 1)])
        let gates = evaluateGates(limits: limits, scope: "all", inputs: inputs)
        let byName = gates.map { "\($0.name)=\($0.passed)" }
        #expect(byName == ["maxBlankDetections=false", "gateExpect=false", "stageBudgets.decode.medianMs=true",
                           "stageBudgets.decode.p90Ms=false", "stageBudgets.decode.medianMs=true",
                           "stageBudgets.classify.medianMs=false"])
        #expect(gates[0].actual == 2)
        #expect(gates[1].detail.contains("a.png: total 3 not in [5, any]"))
        #expect(abs((gates[2].actual ?? 0) - 20) < 1e-9)
        #expect(abs((gates[3].actual ?? 0) - 28) < 1e-9)
        #expect(gates[5].detail == "no stage named \"classify\" was timed")
        #expect(stages.map(\.name) == ["decode", "nms", "total"])
        #expect(abs(stages[0].share - 40.0 / 46) < 1e-9)
    }

    @Test func stepBudgetsNameStageAndStep() {
        let stages = stageStatistics(samples: [[.init(name: "candidates", wallSeconds: 0.050, cpuSeconds: 0.040)],
                                               [.init(name: "candidates", wallSeconds: 0.060, cpuSeconds: 0.050)]])
        let steps = stepStatistics(steps: [
            [.init(stage: "candidates", step: "centre vote", wallSeconds: 0.010, cpuSeconds: 0.009)],
            [.init(stage: "candidates", step: "centre vote", wallSeconds: 0.014, cpuSeconds: 0.011)],
        ], stages: stages)
        let inputs = GateInputs(metrics: AggregateMetrics(scores: []), errored: 0, stages: stages, steps: steps, expectFailures: [])
        let limits = GateLimits(stageBudgets: [StageBudget(stage: "candidates/centre vote", medianMs: 11),
                                               StageBudget(stage: "candidates/centre vote", medianMs: 11, clock: .cpu),
                                               StageBudget(stage: "candidates/center vote", p90Ms: 5),
                                               StageBudget(stage: "centre vote", p90Ms: 5)])
        let gates = evaluateGates(limits: limits, scope: "all", inputs: inputs)
        #expect(gates.map { "\($0.name)=\($0.passed)" } == ["stageBudgets.candidates/centre vote.medianMs=false",
                                                          "stageBudgets.candidates/centre vote.medianMs=true",
                                                          "stageBudgets.candidates/center vote.p90Ms=false",
                                                          "stageBudgets.centre vote.p90Ms=false"])
        #expect(abs((gates[0].actual ?? 0) - 12) < 1e-9 && abs((gates[1].actual ?? 0) - 10) < 1e-9)
        #expect(gates[2].detail == "no step (stage/step) named \"candidates/center vote\" was timed")
        #expect(gates[3].detail == "no stage named \"centre vote\" was timed")
    }

    @Test func runReportGatesPerTagAndOverall() throws {
        let d = try TestDataset.standard(name: "gates")
        defer { d.remove() }
        let acceptance = try Acceptance.parse(try JSONValue.parse("""
            {"minPrecision": 0, "minRecall": 0, "maxBlankDetections": 1000, "gateExpect": false,
             "stageBudgets": {"candidates/detector": {"medianMs": 100000}},
             "tags": {"dense": {"minRecall": 1.01e-9, "maxErrored": 0}, "nosuchtag": {"minF1": 0.5}}}
            """), file: nil)
        let report = try performRun(RunRequest(datasetRoot: d.root, labelsRoot: nil, acceptance: acceptance,
                                               settings: RunSettings(jobs: 2), toolVersion: "t"))
        #expect(report.gates.map(\.label) == ["minPrecision", "minRecall", "maxBlankDetections", "maxErrored",
                                              "stageBudgets.candidates/detector.medianMs",
                                              "minRecall [tag:dense]", "maxErrored [tag:dense]", "minF1 [tag:nosuchtag]"])
        // A step's budget reads the run's own step statistics.
        let detector = try #require(report.steps.first { $0.stage == "candidates" && $0.step == "detector" })
        #expect(report.gates[4].passed && report.gates[4].actual == detector.wallMs.median)
        #expect(report.gates[5].actual == report.tags.first { $0.tag == "dense" }?.metrics.recall)
        #expect(report.gates[7].passed && report.gates[7].actual == nil)
    }
}
