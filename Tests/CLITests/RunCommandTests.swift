import Foundation
import Testing

/// `cellqa run` as a CI job uses it: reports on disk and the documented exit codes
/// (0 gates pass, 1 a gate failed, 2 usage or input error).
@Suite struct RunCommandTests {
    /// Two small synthetic fixtures, labels beside them.
    static func makeDataset(in dir: TemporaryDirectory) throws -> URL {
        let data = dir.url.appendingPathComponent("data")
        let synth = try CellQABinary.run(["synth", "--out", data.path, "--count", "2", "--seed", "5",
                                          "--preset", "sparse", "--width", "320", "--height", "240"])
        #expect(synth.status == 0, "\(synth.stderr)")
        return data
    }

    static let lenient = #"{"minPrecision": null, "minRecall": null, "maxBlankDetections": null, "gateExpect": false, "maxErrored": 0}"#

    @Test func passingGatesExitZeroAndWriteEveryReport() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try Self.makeDataset(in: dir)
        try dir.write("acceptance.json", Self.lenient)
        let out = dir.url.appendingPathComponent("report")
        let result = try CellQABinary.run(["run", data.path, "--acceptance", dir.url.appendingPathComponent("acceptance.json").path,
                                           "--out", out.path, "--quiet"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for file in ["report.json", "summary.md", "junit.xml", "fixtures.csv", "detections.csv", "trace.json"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "missing \(file)")
        }
        let fixtures = try String(contentsOf: out.appendingPathComponent("fixtures.csv"), encoding: .utf8)
        #expect(fixtures.contains("sparse-s5-000"))
        #expect(fixtures.contains("sparse-s5-001"))
    }

    @Test func erroredFixtureFailsTheGateButTheRunGoesOn() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try Self.makeDataset(in: dir)
        try dir.write("data/broken.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0])
        try dir.write("acceptance.json", Self.lenient)
        let out = dir.url.appendingPathComponent("report")
        let result = try CellQABinary.run(["run", data.path, "--acceptance", dir.url.appendingPathComponent("acceptance.json").path,
                                           "--out", out.path, "--quiet"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("maxErrored"), "\(result.stdout)")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("broken.png"))
        let fixtures = try String(contentsOf: out.appendingPathComponent("fixtures.csv"), encoding: .utf8)
        #expect(fixtures.contains("sparse-s5-001"), "the other fixtures still ran")
    }

    @Test func invalidInputsExitTwo() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try Self.makeDataset(in: dir)
        try dir.write("bad-acceptance.json", #"{"minPrecison": 0.9}"#)
        let badAcceptance = try CellQABinary.run(["run", data.path, "--acceptance",
                                                  dir.url.appendingPathComponent("bad-acceptance.json").path,
                                                  "--out", dir.url.appendingPathComponent("r1").path, "--quiet"])
        #expect(badAcceptance.status == 2)
        #expect((badAcceptance.stdout + badAcceptance.stderr).contains("minPrecison"))

        let missingRoot = try CellQABinary.run(["run", dir.url.appendingPathComponent("nope").path,
                                                "--out", dir.url.appendingPathComponent("r2").path, "--quiet"])
        #expect(missingRoot.status == 2)

        let badJobs = try CellQABinary.run(["run", data.path, "--jobs", "0", "--quiet"])
        #expect(badJobs.status == 2)
    }

    /// A baseline whose detector step took ten times as long as today's: the step shows as
    /// improved, on the console and in the reports, but steps do not gate, so the run exits 0
    /// even with --fail-on-improvement (the stages themselves did not move).
    @Test func stepVerdictsAreShownButDoNotDecideTheExitCode() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try Self.makeDataset(in: dir)
        // Stage noise on a busy machine must not decide this test: stages get a 50% tolerance.
        try dir.write("acceptance.json", #"{"minPrecision": null, "minRecall": null, "maxBlankDetections": null, "gateExpect": false, "#
                      + #""baseline": {"timing": {"tolerance": 0.5, "noiseFloorMs": 0}}}"#)
        let acceptance = dir.url.appendingPathComponent("acceptance.json").path
        let first = dir.url.appendingPathComponent("first")
        let recorded = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--repeat", "8", "--out", first.path, "--quiet"])
        #expect(recorded.status == 0, "\(recorded.stdout)\(recorded.stderr)")

        let reportData = try Data(contentsOf: first.appendingPathComponent("report.json"))
        var report = try #require(try JSONSerialization.jsonObject(with: reportData) as? [String: Any])
        var fixtures = try #require(report["fixtures"] as? [[String: Any]])
        var slowed = 0
        for f in fixtures.indices {
            var steps = try #require(fixtures[f]["steps"] as? [[String: Any]])
            for k in steps.indices where steps[k]["step"] as? String == "detector" {
                for clock in ["wallMs", "cpuMs"] {
                    steps[k][clock] = try #require(steps[k][clock] as? [Double]).map { $0 * 10 }
                }
                slowed += 1
            }
            fixtures[f]["steps"] = steps
        }
        #expect(slowed == 2)
        report["fixtures"] = fixtures
        let baseline = dir.url.appendingPathComponent("baseline.json")
        try JSONSerialization.data(withJSONObject: report).write(to: baseline)

        let out = dir.url.appendingPathComponent("second")
        let judged = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--repeat", "8", "--baseline", baseline.path,
                                           "--fail-on-improvement", "--out", out.path, "--quiet"])
        #expect(judged.status == 0, "\(judged.stdout)\(judged.stderr)")
        #expect(judged.stdout.contains("step improved, not gating: candidates: detector"), "\(judged.stdout)")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains(#/\| candidates: detector \|[^\n]*▲ improved \|/#), "\(summary)")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("report.json")))
                                   as? [String: Any])
        let verdicts = try #require(written["baseline"] as? [String: Any])
        let stepRows = try #require(verdicts["steps"] as? [[String: Any]])
        #expect(stepRows.first { $0["step"] as? String == "detector" }?["verdict"] as? String == "improved")
        #expect((verdicts["improvements"] as? [String])?.contains { $0.contains("detector") } == false)
    }
}
