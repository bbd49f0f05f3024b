import JSON
import Testing
@testable import Harness

/// Verdicts, exit codes and refusals on hand-built runs (no pipeline involved).
@Suite struct BaselineComparisonTests {
    static let machine = MachineFacts(cores: 2, cpuModel: "Test CPU", os: "test", kernel: "1")

    /// 40 fixtures with 20-60 labelled cells each, a few FPs, known live/dead calls, and
    /// timings drawn around `msScale` (deterministic jitter).
    /// The first `misplaced` fixtures' grids are placed 240 µm off the label's, the others 3 µm.
    /// With `steps`, the candidates stage lists two timed steps, "maps" and "detector", each
    /// scaled by its entry in `stepScale`.
    static func snapshot(dropFraction: Double = 0, extraFP: Int = 0, msScale: Double = 1, seed: UInt64 = 1,
                         datasetHash: String = "d1", machine: MachineFacts = machine, misplaced: Int = 0,
                         steps: Bool = false, stepScale: [String: Double] = [:]) -> RunSnapshot {
        var rng = SplitMix64(seed: seed)
        var fixtures: [FixtureRecord] = []
        for i in 0..<40 {
            let labelled = 20 + (i * 7) % 41
            let baseTP = labelled - (i % 3)
            let dropped = Int((Double(baseTP) * dropFraction).rounded())
            let tp = baseTP - dropped
            let fp = (i % 4 == 0 ? 1 : 0) + extraFP
            var timings: [TimingRecord] = []
            for (name, ms) in [("decode", 5.0), ("candidates", 20.0), ("count", 0.5)] {
                // Jitter of +-4% around the stage's time, 3 repeats.
                let samples = (0..<3).map { _ in ms * msScale * (0.96 + 0.08 * Double(rng.next() % 1000) / 1000) * (1 + Double(i % 5) * 0.1) }
                timings.append(TimingRecord(name: name, wallMs: samples.map { $0 * 1.1 }, cpuMs: samples))
            }
            var stepRecords: [StepRecord] = []
            for (name, ms) in [("maps", 12.0), ("detector", 6.0)] where steps {
                let scale = msScale * (stepScale[name] ?? 1)
                let samples = (0..<3).map { _ in ms * scale * (0.96 + 0.08 * Double(rng.next() % 1000) / 1000) * (1 + Double(i % 5) * 0.1) }
                stepRecords.append(StepRecord(stage: "candidates", timing: TimingRecord(name: name, wallMs: samples, cpuMs: samples)))
            }
            fixtures.append(FixtureRecord(path: String(format: "f%02d.png", i), status: .scored, tags: i % 2 == 0 ? ["even"] : ["odd"],
                                          detection: DetectionCounts(tp: tp, fp: fp, fn: labelled - tp),
                                          predicted: tp + fp, labelled: labelled, classKnown: tp, classCorrect: tp - (i % 2),
                                          registration: RegistrationComparison(positionErrorUm: i < misplaced ? 240 : 3),
                                          timings: timings, steps: stepRecords))
        }
        for k in 0..<3 {
            fixtures.append(FixtureRecord(path: "zblank\(k).png", status: .scored, tags: ["blank-control"],
                                          detection: DetectionCounts(tp: 0, fp: 0, fn: 0), blankDetections: 0,
                                          timings: [TimingRecord(name: "decode", wallMs: [5], cpuMs: [5])]))
        }
        return RunSnapshot(source: "test", toolVersion: "t", configHash: "c", datasetHash: datasetHash, machine: machine,
                           repeats: 3, fixtures: fixtures)
    }

    @Test func identicalRunIsUnchangedEverywhere() throws {
        let a = Self.snapshot()
        let c = try compareWithBaseline(a, a, policy: BaselinePolicy())
        #expect(c.pairedFixtures == 43)
        #expect(c.metrics.allSatisfy { $0.verdict == .unchanged }, "\(c.metrics.map(\.detail))")
        #expect(c.stages.map(\.stage) == ["decode", "candidates", "count", "total"])
        #expect(c.stages.allSatisfy { $0.verdict == .unchanged })
        #expect(!c.hasRegression && !c.onlyImprovements)
        #expect(ComparisonExitCode.code(gatesPassed: true, comparison: c, failOnImprovement: true) == 0)
    }

    @Test func droppingTenPercentOfDetectionsIsARegressionWithExitCode3() throws {
        let c = try compareWithBaseline(Self.snapshot(), Self.snapshot(dropFraction: 0.1), policy: BaselinePolicy())
        let verdict = { (m: ComparedMetric) in c.metrics.first { $0.metric == m && $0.scope == "all" }?.verdict }
        #expect(verdict(.recall) == .regressed)
        #expect(verdict(.f1) == .regressed)
        #expect(verdict(.countError) == .regressed)
        let recall = try #require(c.metrics.first { $0.metric == .recall })
        let ci = try #require(recall.interval)
        #expect(ci.upper < 0 && ci.lower <= recall.difference! && recall.difference! <= ci.upper)
        #expect(c.regressions.contains("recall"))
        #expect(ComparisonExitCode.code(gatesPassed: true, comparison: c, failOnImprovement: false) == 3)
        // A failed gate outranks the regression.
        #expect(ComparisonExitCode.code(gatesPassed: false, comparison: c, failOnImprovement: false) == 1)
    }

    @Test func aDropWithinToleranceIsUnchangedEvenWhenSignificant() throws {
        var policy = BaselinePolicy()
        policy.tolerances[.recall] = .absolute(0.2)
        policy.tolerances[.f1] = .relative(0.5)
        policy.tolerances[.countError] = .absolute(0.5)
        let c = try compareWithBaseline(Self.snapshot(), Self.snapshot(dropFraction: 0.1), policy: policy)
        #expect(c.metrics.first { $0.metric == .recall }?.verdict == .unchanged)
        #expect(c.metrics.first { $0.metric == .f1 }?.verdict == .unchanged)
        #expect(!c.hasRegression)
    }

    @Test func improvementsOnlyExit4OnlyWhenAskedFor() throws {
        let c = try compareWithBaseline(Self.snapshot(dropFraction: 0.1), Self.snapshot(), policy: BaselinePolicy())
        #expect(c.metrics.first { $0.metric == .recall }?.verdict == .improved)
        #expect(c.onlyImprovements)
        #expect(ComparisonExitCode.code(gatesPassed: true, comparison: c, failOnImprovement: false) == 0)
        #expect(ComparisonExitCode.code(gatesPassed: true, comparison: c, failOnImprovement: true) == 4)
    }

    @Test func perTagTolerancesGiveTagVerdicts() throws {
        var policy = BaselinePolicy()
        policy.tagTolerances = [(tag: "even", tolerances: [.recall: .absolute(0.01)])]
        let c = try compareWithBaseline(Self.snapshot(), Self.snapshot(dropFraction: 0.1), policy: policy)
        let tagRow = try #require(c.metrics.first { $0.scope == "tag:even" })
        #expect(tagRow.metric == .recall && tagRow.verdict == .regressed)
        #expect(c.regressions.contains("recall [tag:even]"))
    }

    @Test func datasetChangeIsRefusedUnlessAllowed() throws {
        #expect(throws: BaselineMismatchError.self) {
            try compareWithBaseline(Self.snapshot(), Self.snapshot(datasetHash: "d2"), policy: BaselinePolicy())
        }
        let c = try compareWithBaseline(Self.snapshot(), Self.snapshot(datasetHash: "d2"), policy: BaselinePolicy(),
                                        allowDatasetChange: true)
        #expect(!c.hasRegression)
    }

    @Test func timingVerdicts() throws {
        let policy = BaselinePolicy()
        // 30% slower on every stage: regressed (ratio above 10% and Mann-Whitney significant).
        let slow = try compareWithBaseline(Self.snapshot(), Self.snapshot(msScale: 1.3, seed: 2), policy: policy)
        #expect(slow.stages.filter { $0.stage != "count" }.allSatisfy { $0.verdict == .regressed }, "\(slow.stages.map(\.detail))")
        #expect(ComparisonExitCode.code(gatesPassed: true, comparison: slow, failOnImprovement: false) == 3)
        // count: 0.5 ms -> 0.65 ms is +30% but under the 0.5 ms absolute noise floor.
        #expect(slow.stages.first { $0.stage == "count" }?.verdict == .unchanged)
        // 2% slower with fresh jitter: under the noise floor.
        let noise = try compareWithBaseline(Self.snapshot(), Self.snapshot(msScale: 1.02, seed: 3), policy: policy)
        #expect(noise.stages.allSatisfy { $0.verdict == .unchanged }, "\(noise.stages.map(\.detail))")
        // 30% faster: improved.
        let fast = try compareWithBaseline(Self.snapshot(), Self.snapshot(msScale: 0.7, seed: 4), policy: policy)
        #expect(fast.stages.first { $0.stage == "total" }?.verdict == .improved)
        // Another machine: not compared unless forced.
        let other = MachineFacts(cores: 8, cpuModel: "Other CPU", os: "test", kernel: "1")
        let elsewhere = try compareWithBaseline(Self.snapshot(), Self.snapshot(msScale: 1.3, machine: other), policy: policy)
        #expect(!elsewhere.timingsCompared)
        #expect(elsewhere.stages.allSatisfy { $0.verdict == .notCompared })
        #expect(!elsewhere.hasRegression)
        let forced = try compareWithBaseline(Self.snapshot(), Self.snapshot(msScale: 1.3, machine: other), policy: policy,
                                             compareTimings: true)
        #expect(forced.stages.first { $0.stage == "total" }?.verdict == .regressed)
        // The wall clock on request.
        var wall = policy
        wall.timingClock = .wall
        let w = try compareWithBaseline(Self.snapshot(), Self.snapshot(), policy: wall)
        #expect(w.stages.allSatisfy { $0.clock == .wall && $0.verdict == .unchanged })
        #expect(abs((w.stages.first { $0.stage == "decode" }?.baselineMedianMs ?? 0)
                    - 1.1 * (c(Self.snapshot(), "decode") ?? 0)) < 1e-9)
    }

    @Test func stepVerdictsSayWhereButDoNotGate() throws {
        let policy = BaselinePolicy()
        // The detector step 60% slower while its stage's own time holds: the step row says
        // regressed, the run does not regress (only stages and the total gate).
        let c = try compareWithBaseline(Self.snapshot(steps: true), Self.snapshot(seed: 2, steps: true, stepScale: ["detector": 1.6]),
                                        policy: policy)
        #expect(c.steps.map { "\($0.stage):\($0.step ?? "")" } == ["candidates:maps", "candidates:detector"])
        #expect(c.steps.first { $0.step == "detector" }?.verdict == .regressed, "\(c.steps.map(\.detail))")
        #expect(c.steps.first { $0.step == "maps" }?.verdict == .unchanged, "\(c.steps.map(\.detail))")
        #expect(c.stages.allSatisfy { $0.verdict == .unchanged })
        #expect(!c.hasRegression && !c.regressions.contains { $0.contains("detector") })
        let md = c.markdownLines(title: "vs baseline").joined(separator: "\n")
        #expect(md.contains("| candidates: detector |") && md.contains("▼ regressed"), "\(md)")
        guard case .array(let stepRows)? = c.jsonValue["steps"], case .array(let stageRows)? = c.jsonValue["stages"] else {
            Issue.record("no steps or stages in the JSON"); return
        }
        #expect(stepRows.map { $0["step"] } == [.string("maps"), .string("detector")])
        #expect(stepRows.last?["verdict"] == .string("regressed"))
        #expect(stageRows.allSatisfy { $0["step"] == nil })
        // The steps' tests share one alpha between them: the same 60% on a step is judged at
        // alpha / 2 here, not at alpha.
        let detail = try #require(c.steps.first { $0.step == "detector" }?.detail)
        #expect(detail.contains("significant at \(formatGateNumber(policy.timingAlpha / 2))"), "\(detail)")
        // A baseline recorded before steps were timed: no step rows, nothing invented.
        let old = try compareWithBaseline(Self.snapshot(), Self.snapshot(seed: 2, steps: true), policy: policy)
        #expect(old.steps.isEmpty)
        #expect(!old.markdownLines(title: "vs baseline").joined().contains("Steps inside stages"))
        // Another machine: steps, like stages, not compared.
        let other = MachineFacts(cores: 8, cpuModel: "Other CPU", os: "test", kernel: "1")
        let elsewhere = try compareWithBaseline(Self.snapshot(steps: true),
                                                Self.snapshot(machine: other, steps: true, stepScale: ["detector": 1.6]), policy: policy)
        #expect(elsewhere.steps.count == 2 && elsewhere.steps.allSatisfy { $0.verdict == .notCompared })
    }

    private func c(_ s: RunSnapshot, _ stage: String) -> Double? {
        Statistics.median(s.timingSamples(stage: stage, clock: .cpu, paths: Set(s.fixtures.map(\.path))))
    }

    @Test func tooFewFixturesGiveNoVerdict() throws {
        var a = Self.snapshot()
        a.fixtures = Array(a.fixtures.prefix(1))
        var b = Self.snapshot(dropFraction: 0.5)
        b.fixtures = Array(b.fixtures.prefix(1))
        let c = try compareWithBaseline(a, b, policy: BaselinePolicy())
        let recall = try #require(c.metrics.first { $0.metric == .recall })
        #expect(recall.verdict == .notCompared && recall.difference! < -0.4)
        #expect(!c.hasRegression)
    }

    @Test func unpairedFixturesAreListedNotCompared() throws {
        let a = Self.snapshot()
        var b = Self.snapshot()
        b.fixtures[0].status = .errored
        b.fixtures.append(FixtureRecord(path: "new.png", status: .scored))
        let c = try compareWithBaseline(a, b, policy: BaselinePolicy())
        #expect(c.unpairedFixtures == ["f00.png", "new.png"])
        #expect(c.pairedFixtures == 42)
    }

    @Test func gridsPlacedOffTheLabelRegress() throws {
        let c = try compareWithBaseline(Self.snapshot(), Self.snapshot(misplaced: 12), policy: BaselinePolicy())
        let m = try #require(c.metrics.first { $0.metric == .misplaced && $0.scope == "all" })
        #expect(m.baseline == 0 && m.current == 0.3)
        #expect(m.verdict == .regressed, "\(m.detail)")
        #expect(c.regressions.contains("misplaced"))
        // Fewer misplaced is better; a single fixture moving does not carry the interval.
        let better = try compareWithBaseline(Self.snapshot(misplaced: 12), Self.snapshot(), policy: BaselinePolicy())
        #expect(better.metrics.first { $0.metric == .misplaced }?.verdict == .improved)
        let one = try compareWithBaseline(Self.snapshot(), Self.snapshot(misplaced: 1), policy: BaselinePolicy())
        #expect(one.metrics.first { $0.metric == .misplaced }?.verdict == .unchanged)
    }

    @Test func aBaselineWithoutPlacementsGivesNoPlacementVerdict() throws {
        var old = Self.snapshot()
        for i in old.fixtures.indices { old.fixtures[i].registration = nil }
        let c = try compareWithBaseline(old, Self.snapshot(misplaced: 12), policy: BaselinePolicy())
        let m = try #require(c.metrics.first { $0.metric == .misplaced })
        #expect(m.verdict == .notCompared && m.detail.contains("undefined on the baseline"))
        #expect(!c.hasRegression)
    }

    @Test func recordRefusesUnderCI() {
        #expect(recordRefusal(force: false, environment: ["CI": "1"], baselinePath: "b.json") != nil)
        #expect(recordRefusal(force: false, environment: ["CI": "true"], baselinePath: "b.json")?.description.contains("--force") == true)
        #expect(recordRefusal(force: true, environment: ["CI": "1"], baselinePath: "b.json") == nil)
        #expect(recordRefusal(force: false, environment: [:], baselinePath: "b.json") == nil)
        #expect(recordRefusal(force: false, environment: ["CI": ""], baselinePath: "b.json") == nil)
    }

    @Test func versionComparisonTalliesAndOrdersFixtures() throws {
        let results = try compareVersions([Self.snapshot(), Self.snapshot(dropFraction: 0.1)], policy: BaselinePolicy())
        let v = try #require(results.first)
        #expect(v.f1.losses > 30 && v.f1.wins == 0)
        #expect(v.f1.wins + v.f1.losses + v.f1.ties == 43)
        #expect(v.f1.signTestP < 1e-6)
        #expect(zip(v.changes, v.changes.dropFirst()).allSatisfy { $0.magnitude >= $1.magnitude })
        // Every tag gets rows even though the policy lists none.
        #expect(v.comparison.metrics.contains { $0.scope == "tag:odd" && $0.metric == .f1 })
        let report = CompareReport(versions: [Self.snapshot(), Self.snapshot(dropFraction: 0.1)], comparisons: results, mode: "reports")
        #expect(report.exitCode == 3)
        #expect(report.markdown.contains("| f1 |"))
        #expect(report.markdown.contains("wins / losses / ties"))
    }

    @Test func versionComparisonShowsPlacementChanges() throws {
        // Same detections, two grids placed elsewhere: listed although F1 and count error held.
        let a = Self.snapshot(), b = Self.snapshot(misplaced: 2)
        let v = try #require(try compareVersions([a, b], policy: BaselinePolicy()).first)
        let m = try #require(v.misplaced)
        #expect(m.reference == 0 && m.candidate == 2 && m.compared == 40)
        let crossed = v.changes.filter(\.placementCrossed).map(\.path)
        #expect(crossed == ["f00.png", "f01.png"])
        #expect(v.changes.filter(\.isChanged).map(\.path) == crossed)
        let report = CompareReport(versions: [a, b], comparisons: [v], mode: "reports")
        #expect(report.markdown.contains("Grid placed more than 25 µm off: 0 → 2 of the 40 fixtures both placed."))
        #expect(report.markdown.contains("| `f00.png` | 0.976 | 0.976 | +0.000 | 5.0% | 5.0% | 3 → 240 (crossed 25) |"))
        guard case .array(let comparisons)? = report.jsonValue["comparisons"],
              case .array(let fixtures)? = comparisons.first?["fixtures"] else {
            Issue.record("compare.json without comparisons[0].fixtures")
            return
        }
        let first = try #require(fixtures.first { $0["path"] == .string("f00.png") })
        #expect(first["placementCrossed"] == .bool(true))
        #expect(first["referencePositionErrorUm"]?.number == 3 && first["candidatePositionErrorUm"]?.number == 240)
        // Without placements on either side: no line, no column values.
        var bare = a
        for i in bare.fixtures.indices { bare.fixtures[i].registration = nil }
        let none = try #require(try compareVersions([bare, bare], policy: BaselinePolicy()).first)
        #expect(none.misplaced == nil)
        #expect(!CompareReport(versions: [bare, bare], comparisons: [none], mode: "reports").markdown.contains("Grid placed"))
    }
}
