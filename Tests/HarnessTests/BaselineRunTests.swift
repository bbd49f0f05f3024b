import Foundation
import JSON
import Testing
import Vision
@testable import Harness

/// Baselines, compare and sweep on real pipeline runs: the committed Goldens (release build:
/// scripts/test) and the small drawn dataset of `TestDataset`.
@Suite(.serialized) struct BaselineRunTests {
    func goldensRequest(config: PipelineConfig = PipelineConfig(), repeats: Int = 1) throws -> RunRequest {
        let acceptance = try Acceptance.load(path: repositoryRoot + "/Goldens/acceptance.json")
        return RunRequest(datasetRoot: repositoryRoot + "/Goldens", labelsRoot: repositoryRoot + "/TestLabels", config: config,
                          acceptance: acceptance, settings: RunSettings(jobs: 2, repeats: repeats), toolVersion: "test")
    }

    @Test func reportJSONReadsBackIntoTheSameSnapshot() throws {
        let d = try TestDataset.standard(name: "baseline-roundtrip")
        defer { d.remove() }
        let report = try performRun(RunRequest(datasetRoot: d.root, labelsRoot: nil, settings: RunSettings(jobs: 1, repeats: 2),
                                               toolVersion: "test"))
        let out = d.root + "/out"
        try report.writeReports(to: out)
        let path = out + "/report.json"
        let read = try RunSnapshot.load(path: path)
        let live = RunSnapshot(report: report, source: path)
        #expect(read.fixtures.map(\.path) == live.fixtures.map(\.path))
        #expect(read.fixtures.map(\.detection) == live.fixtures.map(\.detection))
        #expect(read.fixtures.map(\.status) == live.fixtures.map(\.status))
        #expect(read.fixtures.map(\.tags) == live.fixtures.map(\.tags))
        #expect(read.fixtures.map(\.blankDetections) == live.fixtures.map(\.blankDetections))
        #expect(read.fixtures.map(\.registration) == live.fixtures.map(\.registration))
        #expect(read.fixtures.map(\.predicted) == live.fixtures.map(\.predicted))
        #expect(read.fixtures.map(\.classKnown) == live.fixtures.map(\.classKnown))
        #expect(read.configHash == live.configHash && read.datasetHash == live.datasetHash && read.machine == live.machine)
        for (x, y) in zip(read.fixtures, live.fixtures) {
            #expect(x.timings.map(\.name) == y.timings.map(\.name))
            for (s, t) in zip(x.timings, y.timings) {
                #expect(s.cpuMs.count == 2 && zip(s.cpuMs, t.cpuMs).allSatisfy { abs($0 - $1) <= 1e-9 * max(1, abs($1)) })
            }
            #expect(x.steps.map(\.stage) == y.steps.map(\.stage) && x.steps.map(\.step) == y.steps.map(\.step))
            for (s, t) in zip(x.steps, y.steps) {
                #expect(s.timing.wallMs.count == 2
                        && zip(s.timing.wallMs, t.timing.wallMs).allSatisfy { abs($0 - $1) <= 1e-9 * max(1, abs($1)) })
            }
        }
        #expect(read.stepNames.contains { $0 == ("candidates", "detector") })
        // A report compared with its own file: unchanged everywhere, and the verdicts validate.
        var judged = report
        judged.baseline = try compareWithBaseline(read, live, policy: BaselinePolicy())
        #expect(judged.baseline?.hasRegression == false)
        #expect(judged.exitCode == report.exitCode)
        let schema = try loadSchema()
        let problems = schema.validate(judged.jsonValue)
        #expect(problems.isEmpty, "\(problems)")
        #expect(judged.markdown.contains("### vs baseline"))
        #expect(judged.baseline?.steps.map { "\($0.stage):\($0.step ?? "")" } == read.stepNames.map { "\($0.stage):\($0.step)" })
        #expect(judged.markdown.contains("| candidates: detector |"))
        #expect(judged.junitXML.contains("<testsuite name=\"baseline\""))
    }

    @Test func readerErrorsNameFileAndPath() throws {
        let d = try TestDataset(name: "baseline-reader")
        defer { d.remove() }
        try d.writeText("r.json", "{\"schemaVersion\": 1, \"tool\": {\"version\": \"x\"}, \"configHash\": \"c\", \"dataset\": {}}")
        do {
            _ = try RunSnapshot.load(path: d.root + "/r.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("r.json"))
            #expect(error.description.contains("dataset"))
            #expect(error.description.contains("contentHash"))
        }
        // A fixture's placement: read when present, absent or null in older reports, and a
        // missing or negative distance named.
        func report(registration: String?) -> String {
            let member = registration.map { #", "registration": \#($0)"# } ?? ""
            return #"{"schemaVersion": 1, "tool": {"version": "x"}, "configHash": "c", "dataset": {"contentHash": "d"}, "#
                + #""machine": {"cores": 2, "cpuModel": "m", "os": "o", "kernel": "k"}, "run": {"repeats": 1}, "fixtures": [{"#
                + #""path": "a.png", "status": "scored", "tags": [], "timings": [], "tp": 1, "fp": 0, "fn": 0, "#
                + #""counts": {"predicted": {"total": 1}, "labelled": {"total": 1}}, "#
                + #""liveDeadConfusion": {"liveAsLive": 1, "liveAsDead": 0, "deadAsLive": 0, "deadAsDead": 0}, "#
                + #""blankDetections": null\#(member)}]}"#
        }
        try d.writeText("placed.json", report(registration: #"{"positionErrorUm": 240.5, "misplaced": true}"#))
        let placed = try RunSnapshot.load(path: d.root + "/placed.json")
        #expect(placed.fixtures.first?.registration == RegistrationComparison(positionErrorUm: 240.5))
        #expect(placed.fixtures.first?.registration?.isMisplaced == true)
        for old in [nil, "null"] {
            try d.writeText("old.json", report(registration: old))
            #expect(try RunSnapshot.load(path: d.root + "/old.json").fixtures.first?.registration == nil)
        }
        for (bad, expected) in [(#"{"misplaced": true}"#, "positionErrorUm"), (#"{"positionErrorUm": -3}"#, "non-negative")] {
            try d.writeText("bad.json", report(registration: bad))
            do {
                _ = try RunSnapshot.load(path: d.root + "/bad.json")
                Issue.record("expected an error for \(bad)")
            } catch {
                #expect(error.description.contains("bad.json") && error.description.contains(expected), "\(error)")
                #expect(error.description.contains("registration"), "\(error)")
            }
        }
        // Steps: absent in older reports; read when present; a step without its name named.
        #expect(try RunSnapshot.load(path: d.root + "/placed.json").fixtures.first?.steps == [])
        func stepped(_ steps: String) -> String {
            report(registration: nil).replacingOccurrences(of: #""timings": []"#, with: #""timings": [], "steps": \#(steps)"#)
        }
        try d.writeText("steps.json", stepped(#"[{"stage": "grid", "step": "line search", "wallMs": [7.5], "cpuMs": [7.25]}]"#))
        #expect(try RunSnapshot.load(path: d.root + "/steps.json").fixtures.first?.steps
                == [StepRecord(stage: "grid", timing: TimingRecord(name: "line search", wallMs: [7.5], cpuMs: [7.25]))])
        try d.writeText("nostep.json", stepped(#"[{"stage": "grid", "wallMs": [7.5], "cpuMs": [7.25]}]"#))
        do {
            _ = try RunSnapshot.load(path: d.root + "/nostep.json")
            Issue.record("expected an error for a step without its name")
        } catch {
            #expect(error.description.contains("nostep.json") && error.description.contains("steps"), "\(error)")
            #expect(error.description.contains("step"), "\(error)")
        }
        try d.writeText("v.json", "{\"schemaVersion\": 7}")
        #expect(throws: JSONError.self) { try RunSnapshot.load(path: d.root + "/v.json") }
        #expect(RunSnapshot.isReport(.object(JSONObject([("schemaVersion", .int(1))]))))
        #expect(!RunSnapshot.isReport(PipelineConfig().jsonValue))
    }

    @Test func acceptanceBaselineSection() throws {
        let text = """
            {"baseline": {"tolerances": {"f1": {"relative": 0.05}}, "tags": {"dense": {"recall": {"absolute": 0.03}}},
             "resamples": 4000, "timing": {"tolerance": 0.2, "noiseFloor": 0.05, "alpha": 0.05, "clock": "wall"}}}
            """
        let a = try Acceptance.parse(JSONValue.parse(text), file: "a.json")
        #expect(a.baseline.tolerance(.f1) == .relative(0.05))
        #expect(a.baseline.tolerance(.precision) == .absolute(0.01))
        #expect(a.baseline.tagTolerances.first?.tag == "dense")
        #expect(a.baseline.resamples == 4000 && a.baseline.timingClock == .wall && a.baseline.timingTolerance == 0.2)
        for bad in ["{\"baseline\": {\"tolerances\": {\"f2\": {\"absolute\": 1}}}}",
                    "{\"baseline\": {\"resamples\": 100}}",
                    "{\"baseline\": {\"tolerances\": {\"f1\": {\"absolute\": 1, \"relative\": 1}}}}",
                    "{\"baseline\": {\"timing\": {\"clock\": \"sun\"}}}"] {
            #expect(throws: JSONError.self, "\(bad)") { try Acceptance.parse(JSONValue.parse(bad), file: "a.json") }
        }
    }

    /// Issue 5: an identical re-run is unchanged on every metric in each of 5 repeats, and on
    /// every stage's timing in at least 4 of them, on this noisy machine (thread CPU time,
    /// noise floor, significance). The timing test's false-alarm rate is 0.01 per comparison
    /// by design (alpha over the stages, Bonferroni), so five comparisons, in two builds, all
    /// clean would be asked more than it promises (an AddressSanitizer run on 2026-12-02 saw one
    /// stage of 7.8 ms at +11.7 %, p 0.0011, in one attempt); two alarms in five would happen
    /// about once in a thousand. The two runs are interleaved fixture by fixture, as `cellqa
    /// compare` runs versions: on a machine shared with other jobs, load drifts over seconds,
    /// and interleaving makes the drift hit both sides alike.
    @Test func identicalGoldensRerunsAreUnchangedFiveTimes() throws {
        // Three samples per fixture and side: one sample per fixture cannot tell a slow moment
        // of the machine from a slow version.
        let request = try goldensRequest(repeats: 3)
        let prepared = try prepareDataset(request)
        let pipeline = Pipeline(config: request.config)
        _ = runFixtures(prepared.fixtures, pipeline: pipeline, settings: request.settings) // warm-up
        var alarms: [String] = []
        for attempt in 1...5 {
            let results = runInterleaved(prepared.fixtures, pipelines: [pipeline, pipeline], settings: request.settings)
            let snapshots = results.map {
                RunSnapshot(report: makeReport(request, config: request.config, prepared: prepared, result: $0, startTime: "t"))
            }
            let c = try compareWithBaseline(snapshots[0], snapshots[1], policy: request.acceptance.baseline)
            #expect(c.timingsCompared)
            #expect(c.metrics.allSatisfy { $0.verdict == .unchanged }, "attempt \(attempt): \(c.metrics.map(\.detail))")
            if c.stages.allSatisfy({ $0.verdict == .unchanged }) {
                #expect(ComparisonExitCode.code(gatesPassed: true, comparison: c, failOnImprovement: true) == 0)
            } else {
                alarms.append("attempt \(attempt): \(c.stages.filter { $0.verdict != .unchanged }.map { "\($0.stage) \($0.detail)" })")
            }
        }
        #expect(alarms.count <= 1, "\(alarms)")
    }

    /// A baseline run and a later re-run in separate passes: accuracy is identical (the
    /// pipeline is deterministic), and no metric verdict can come from timing noise.
    @Test func sequentialGoldensRerunHasIdenticalAccuracy() throws {
        let request = try goldensRequest()
        let baseline = RunSnapshot(report: try performRun(request))
        let rerun = RunSnapshot(report: try performRun(request))
        let c = try compareWithBaseline(baseline, rerun, policy: request.acceptance.baseline)
        #expect(c.metrics.allSatisfy { $0.verdict == .unchanged && ($0.difference ?? 0) == 0 }, "\(c.metrics.map(\.detail))")
        #expect(c.stages.count == (baseline.stageNames.count))
    }

    /// Issue 5: a config that loses detections (a much higher score threshold, a stricter
    /// boundary test and no centre seeds: over 10% of the true positives on the Goldens)
    /// regresses with exit 3.
    @Test func aConfigThatDropsDetectionsRegressesOnTheGoldens() throws {
        var worse = PipelineConfig()
        // (Since holes may be spots and lines are no longer dilated, 12 and 0.9 drop only 6%.)
        worse.minScore = max(21, PipelineConfig().minScore * 7)
        worse.minEdgeCoverage = 0.95
        worse.seedMinVotes = 0
        let fixtures = try prepareDataset(goldensRequest()).fixtures
        let results = runInterleaved(fixtures, pipelines: [Pipeline(config: PipelineConfig()), Pipeline(config: worse)],
                                     settings: RunSettings(jobs: 2))
        let request = try goldensRequest()
        let prepared = try prepareDataset(request)
        let a = RunSnapshot(report: makeReport(request, config: PipelineConfig(), prepared: prepared, result: results[0], startTime: "t"), source: "default")
        let b = RunSnapshot(report: makeReport(request, config: worse, prepared: prepared, result: results[1], startTime: "t"), source: "worse")
        let droppedTP = a.fixtures.reduce(0) { $0 + $1.detection.tp } - b.fixtures.reduce(0) { $0 + $1.detection.tp }
        #expect(Double(droppedTP) >= 0.1 * Double(a.fixtures.reduce(0) { $0 + $1.detection.tp }), "the worse config must drop >= 10%")
        let versions = try compareVersions([a, b], policy: request.acceptance.baseline)
        let v = try #require(versions.first)
        #expect(v.comparison.metrics.first { $0.metric == .recall && $0.scope == "all" }?.verdict == .regressed)
        let report = CompareReport(versions: [a, b], comparisons: versions, mode: "configs")
        #expect(report.exitCode == ComparisonExitCode.regression)
        // The tables compare.md promises.
        let md = report.markdown
        for needle in ["| metric | baseline | current | Δ | 95% CI |", "| stage (cpu ms) |", "| recall |", "[tag:",
                       "wins / losses / ties", "fixture (most changed first)", "sign test p"] {
            #expect(md.contains(needle), "compare.md lacks \(needle)")
        }
        guard case .object(let json) = report.jsonValue, case .array(let comparisons)? = json["comparisons"] else {
            Issue.record("compare.json shape")
            return
        }
        #expect(comparisons.count == 1)
    }

    /// A fixture the sweep cannot score is named with the reason, as a run names it, in input
    /// order and once per fixture; the others are still swept.
    @Test func sweepNamesItsErroredFixtures() throws {
        let d = try TestDataset.standard(name: "sweep-errors")
        defer { d.remove() }
        try d.writeImage("bad-label.png", cells: [])
        try d.writeText("bad-label.json", #"{"version": 1, "cells": [{"x": 1}]}"#)
        try d.writeText("garbage.png", "garbage")
        try d.writeText("garbage.json", #"{"version": 1, "cells": []}"#)
        try d.writeImage("small.png", cells: [])
        try d.writeText("small.json", #"{"version": 1, "width": 64, "height": 128, "cells": []}"#)
        let request = RunRequest(datasetRoot: d.root, labelsRoot: nil, settings: RunSettings(jobs: 2), toolVersion: "test")
        let prepared = try prepareDataset(request)
        let axis = try SweepAxis.parse("minScore=3,4")
        let grid = try sweepSettings(base: PipelineConfig(), axes: [axis])
        let sweep = runSweep(prepared.fixtures, axes: [axis], sweep: grid, settings: RunSettings(jobs: 2), datasetHash: prepared.contentHash)
        #expect(sweep.errors.map(\.path) == ["bad-label.png", "garbage.png", "small.png"])
        #expect(sweep.errors[0].message == d.root + "/bad-label.json: cells[0]: required field \"y\" is missing")
        #expect(sweep.errors[1].message.hasPrefix(d.root + "/garbage.png: unknown image format"), "\(sweep.errors[1].message)")
        #expect(sweep.errors[2].message == d.root + "/small.json: width: expected the decoded image width 128, got 64")
        #expect(sweep.points.allSatisfy { $0.errored == 3 && $0.scored == 4 })
        #expect(sweep.markdown.contains("### Errored fixtures (3)"))
        #expect(sweep.markdown.contains("- `garbage.png`: " + d.root + "/garbage.png: unknown image format"))
        guard case .array(let errors)? = sweep.jsonValue["errors"] else {
            Issue.record("sweep.json has no errors array")
            return
        }
        #expect(errors.count == 3 && errors[2]["path"] == .string("small.png"))
    }

    /// The sweep's resume path equals a full run per setting (exactness of the cached frame).
    @Test func sweepResumeEqualsFullRuns() throws {
        let d = try TestDataset.standard(name: "baseline-sweep")
        defer { d.remove() }
        let request = RunRequest(datasetRoot: d.root, labelsRoot: nil, settings: RunSettings(jobs: 2), toolVersion: "test")
        let prepared = try prepareDataset(request)
        for text in ["nmsIoU=0:0.9:0.3", "madCut=1.5,3", "hueMinDeg=180,220", "minScore=2:6:2", "detector=dog,threshold"] {
            let axis = try SweepAxis.parse(text)
            let grid = try sweepSettings(base: PipelineConfig(), axes: [axis])
            let sweep = runSweep(prepared.fixtures, axes: [axis], sweep: grid, settings: RunSettings(jobs: 2), datasetHash: prepared.contentHash)
            #expect(sweep.resumeStage == (text.hasPrefix("nms") ? "nms" : text.hasPrefix("mad") ? "count" : text.hasPrefix("hue") ? "classify" : "normalize"))
            #expect(sweep.points.count == axis.values.count)
            for (point, setting) in zip(sweep.points, grid) {
                var r = request
                r.config = setting.config
                let full = try performRun(r)
                #expect(point.detection == full.overall.detection, "\(point.label)")
                #expect(point.meanAbsRelCountError == full.overall.meanAbsRelCountError, "\(point.label)")
            }
            #expect(sweep.bestF1 != nil)
            #expect(sweep.csv.split(whereSeparator: \.isNewline).count == axis.values.count + 1)
            #expect(sweep.markdown.contains("Precision-recall curve"))
        }
    }

    /// A sweep of the Goldens along one axis (`KEY=V1,V2,...`), each setting's point beside the
    /// overall figures of a full run with that setting.
    private func goldensSweepBesideRuns(_ axisText: String) throws
        -> (sweep: SweepResult, pairs: [(point: SweepPoint, run: AggregateMetrics)]) {
        let request = try goldensRequest()
        let prepared = try prepareDataset(request)
        let axis = try SweepAxis.parse(axisText)
        let grid = try sweepSettings(base: PipelineConfig(), axes: [axis])
        let sweep = runSweep(prepared.fixtures, axes: [axis], sweep: grid, settings: RunSettings(jobs: 2), datasetHash: prepared.contentHash)
        let pairs = try zip(sweep.points, grid).map { point, setting in
            var r = request
            r.config = setting.config
            return (point: point, run: try performRun(r).overall)
        }
        return (sweep, pairs)
    }

    /// A sweep of a grid key counts, per setting, the fixtures placed more than 25 µm off as a
    /// run with that setting does (the Goldens: 4 of 12 with the defaults), and reports it.
    @Test func sweepReportsPlacementLikeARun() throws {
        let (sweep, pairs) = try goldensSweepBesideRuns("gridRegisterInView=false,true")
        for (point, full) in pairs {
            #expect(point.registeredFixtures == full.registeredFixtures && point.misplacedFixtures == full.misplacedFixtures,
                    "\(point.label): \(point.misplacedFixtures) of \(point.registeredFixtures)")
        }
        let defaults = try #require(sweep.points.last)
        #expect(defaults.registeredFixtures == 12 && defaults.misplacedFixtures == 4)
        #expect(sweep.markdown.contains("| placed >25 µm off |") && sweep.markdown.contains("| 4 of 12 |"))
        #expect(sweep.csv.split(whereSeparator: \.isNewline).first?.contains("registeredFixtures,misplacedFixtures") == true)
    }

    /// A sweep of a live/dead key reports, per setting, the live/dead accuracy and viability
    /// error a full run with that setting reports: what such a key moves, where F1 does not.
    @Test func sweepReportsLiveDeadLikeARun() throws {
        let (sweep, pairs) = try goldensSweepBesideRuns("minDeadSaturation=0.12,0.6")
        #expect(sweep.resumeStage == "classify")
        for (point, full) in pairs {
            #expect(point.classes == full.classes && point.liveDeadAccuracy == full.liveDeadAccuracy,
                    "\(point.label): \(point.classes) against \(full.classes)")
            #expect(point.meanAbsViabilityErrorPoints == full.meanAbsViabilityErrorPoints, "\(point.label)")
        }
        // A dead threshold five times the default calls some of the paler dead cells live.
        let (usual, strict) = (try #require(sweep.points.first), try #require(sweep.points.last))
        #expect(strict.classes.deadAsLive > usual.classes.deadAsLive, "\(usual.classes) \(strict.classes)")
        #expect((usual.liveDeadAccuracy ?? 0) > (strict.liveDeadAccuracy ?? 1), "\(usual.classes) \(strict.classes)")
        #expect(sweep.bestLiveDead?.label == usual.label)
        #expect(sweep.markdown.contains("**Best live/dead accuracy: ") && sweep.markdown.contains("| live/dead | viability error (points) |"))
        #expect(sweep.csv.split(whereSeparator: \.isNewline).first?.contains("liveDeadAccuracy,meanAbsViabilityErrorPoints") == true)
    }

    /// The live/dead headline names the most accurate setting (ties: the smaller viability
    /// error, then the earlier setting), and is absent where every setting calls alike.
    @Test func bestLiveDeadSetting() {
        func point(_ label: String, _ correct: Int, viability: Double) -> SweepPoint {
            SweepPoint(label: label, values: [], configHash: label, detection: DetectionCounts(tp: 10, fp: 0, fn: 0),
                       classes: ClassConfusion(liveAsLive: correct, deadAsLive: 10 - correct), meanAbsViabilityErrorPoints: viability,
                       scored: 1, errored: 0)
        }
        func sweep(_ points: [SweepPoint]) -> SweepResult {
            SweepResult(axes: [], points: points, resumeStage: "classify", fixtures: 1, datasetHash: "", wallSeconds: 0)
        }
        #expect(sweep([point("a", 8, viability: 3), point("b", 9, viability: 5), point("c", 7, viability: 1)]).bestLiveDead?.label == "b")
        #expect(sweep([point("a", 9, viability: 3), point("b", 9, viability: 2), point("c", 9, viability: 2)]).bestLiveDead == nil)
        #expect(sweep([point("a", 8, viability: 3), point("b", 9, viability: 2), point("c", 9, viability: 2)]).bestLiveDead?.label == "b")
        let alike = sweep([point("a", 9, viability: 3), point("b", 9, viability: 3)])
        #expect(alike.bestLiveDead == nil && !alike.markdown.contains("Best live/dead"))
    }

    /// A sweep honours the fixture time limit (a fixture over it counts as errored under every
    /// setting) and a cancellation (no fixture starts; the result says it is partial).
    @Test func sweepTimeLimitAndInterruption() throws {
        let d = try TestDataset.standard(name: "sweep-limits")
        defer { d.remove() }
        let prepared = try prepareDataset(RunRequest(datasetRoot: d.root, labelsRoot: nil, toolVersion: "test"))
        let axis = try SweepAxis.parse("minScore=3,4")
        let grid = try sweepSettings(base: PipelineConfig(), axes: [axis])
        let count = prepared.fixtures.count
        #expect(count >= 2)
        // A limit no fixture can meet: every one errored under both settings, the sweep complete.
        let limited = runSweep(prepared.fixtures, axes: [axis], sweep: grid,
                               settings: RunSettings(jobs: 2, fixtureTimeLimit: 1e-9), datasetHash: prepared.contentHash)
        #expect(limited.complete && limited.fixturesRun == count)
        #expect(limited.points.allSatisfy { $0.errored == count && $0.scored == 0 })
        // Cancelled before it starts: nothing run, the interruption recorded in every report.
        let cancellation = RunCancellation()
        cancellation.cancel(.bySignal(SIGINT))
        let interrupted = runSweep(prepared.fixtures, axes: [axis], sweep: grid, settings: RunSettings(jobs: 2),
                                   datasetHash: prepared.contentHash, cancellation: cancellation)
        #expect(!interrupted.complete && interrupted.fixturesRun == 0 && interrupted.interruption?.name == "SIGINT")
        #expect(interrupted.points.allSatisfy { $0.scored == 0 && $0.errored == 0 })
        #expect(interrupted.markdown.contains("Partial: interrupted by SIGINT after 0 of \(count) fixtures"))
        guard case .object(let json) = interrupted.jsonValue else {
            Issue.record("sweep.json shape")
            return
        }
        #expect(json["complete"] == .bool(false) && json["interruption"] == .string("SIGINT") && json["fixturesRun"] == .int(0))
        // Without a limit or a signal: complete, every fixture scored or unlabelled.
        let plain = runSweep(prepared.fixtures, axes: [axis], sweep: grid, settings: RunSettings(jobs: 2),
                             datasetHash: prepared.contentHash)
        #expect(plain.complete && plain.fixturesRun == count && plain.points.allSatisfy { $0.errored == 0 })
    }

    @Test func sweepGridParsingAndLimits() throws {
        #expect(try SweepAxis.parse("minScore=2:3:0.5").values == [2, 2.5, 3])
        #expect(try SweepAxis.parse("nmsIoU=0.1:0.3:0.1").values.count == 3)
        #expect(try SweepAxis.parse("scaleLevels=4,6,8").values == [4, 6, 8])
        for bad in ["minScore", "=1:2:1", "minScore=3:2:1", "minScore=1:2:0", "minScore=1:2", "minScore=a:2:1", "minScore=1:1e9:1e-9"] {
            #expect(throws: SweepInputError.self, "\(bad)") { try SweepAxis.parse(bad) }
        }
        let grid = try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse("minScore=2:3:0.5"), SweepAxis.parse("nmsIoU=0.2,0.4")])
        #expect(grid.map(\.label) == ["minScore=2 nmsIoU=0.2", "minScore=2 nmsIoU=0.4", "minScore=2.5 nmsIoU=0.2",
                                      "minScore=2.5 nmsIoU=0.4", "minScore=3 nmsIoU=0.2", "minScore=3 nmsIoU=0.4"])
        #expect(grid[3].config.nmsIoU == 0.4 && grid[3].config.minScore == 2.5)
        #expect(throws: SweepInputError.self) { try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse("noSuchKey=1:2:1")]) }
        // A misspelt key names the one meant.
        do {
            _ = try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse("minScroe=2:3:0.5")])
            Issue.record("a misspelt key was swept")
        } catch {
            #expect(error.description == "unknown config key \"minScroe\": did you mean \"minScore\"?")
        }
        let switches = try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse("detectHoles=false,true")])
        #expect(switches.map(\.config.detectHoles) == [false, true])
        #expect(throws: SweepInputError.self) { try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse("gridEnabled=0,0.5")]) }
        #expect(throws: SweepInputError.self) { try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse("detector=1,2")]) }
        #expect(throws: SweepInputError.self) { try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse("scaleLevels=2.5,3")]) }
        #expect(throws: SweepInputError.self) { try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse("nmsIoU=0:2:1")]) }
        #expect(throws: SweepInputError.self) {
            try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse("minScore=0:99:1"), SweepAxis.parse("nmsIoU=0:0.99:0.01")])
        }
    }

    /// A key whose value is a word (the detector: two algorithm versions) sweeps its words, and
    /// each kind of key refuses the other kind of value by name.
    @Test func aWordKeySweepsItsWords() throws {
        let axis = try SweepAxis.parse("detector=dog,threshold")
        #expect(axis.values == [.text("dog"), .text("threshold")])
        let grid = try sweepSettings(base: PipelineConfig(), axes: [axis, SweepAxis.parse("minScore=3,4")])
        #expect(grid.map(\.label) == ["detector=dog minScore=3", "detector=dog minScore=4",
                                      "detector=threshold minScore=3", "detector=threshold minScore=4"])
        #expect(grid.map(\.config.detector) == [.dog, .dog, .threshold, .threshold])
        func refusal(_ text: String) -> String? {
            do {
                _ = try sweepSettings(base: PipelineConfig(), axes: [SweepAxis.parse(text)])
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal("detector=dog,blob") == "detector=blob: sweep setting: detector: expected one of \"dog\", \"threshold\", got the string \"blob\"")
        #expect(refusal("detector=1,2") == "config key \"detector\" takes a word (now \"dog\"), got 1")
        #expect(refusal("minScore=3,abc") == "config key \"minScore\" takes numbers, got \"abc\"")
        #expect(refusal("detectHoles=yes") == "config key \"detectHoles\" takes false,true (or 0,1), got \"yes\"")
        #expect(refusal("detector=dog,dog") == "\"detector=dog,dog\": value dog is given twice")
        #expect(refusal("minScore=nan") == "\"minScore=nan\": value \"nan\" is not a finite number")
    }

    /// Reports give a word as a word: a CSV field, a JSON string, the Markdown table's cell.
    @Test func aWordSettingIsReportedAsAWord() throws {
        let d = try TestDataset.standard(name: "sweep-words")
        defer { d.remove() }
        let request = RunRequest(datasetRoot: d.root, labelsRoot: nil, settings: RunSettings(jobs: 2), toolVersion: "test")
        let prepared = try prepareDataset(request)
        let axes = [try SweepAxis.parse("detector=dog,threshold")]
        let sweep = runSweep(prepared.fixtures, axes: axes, sweep: try sweepSettings(base: PipelineConfig(), axes: axes),
                             settings: RunSettings(jobs: 2), datasetHash: prepared.contentHash)
        let rows = sweep.csv.split(whereSeparator: \.isNewline)
        #expect(rows.dropFirst().map { $0.split(separator: ",").first.map(String.init) } == ["dog", "threshold"])
        guard case .array(let axesJSON)? = sweep.jsonValue["axes"], case .array(let points)? = sweep.jsonValue["points"],
              axesJSON.count == 1, points.count == 2 else {
            Issue.record("sweep.json has not one axis and two points")
            return
        }
        #expect(axesJSON[0]["values"] == .array([.string("dog"), .string("threshold")]))
        #expect(points[1]["setting"]?["detector"] == .string("threshold"))
        #expect(sweep.markdown.contains("\n| threshold | "))
    }
}
