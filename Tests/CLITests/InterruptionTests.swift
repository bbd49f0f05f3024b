import Foundation
import Harness
import JSON
import Testing

/// A `cellqa` child process whose stderr is watched while it runs, for sending it signals at
/// a known point of the run.
final class RunningCellQA {
    let process = Process()
    private let errPipe = Pipe()
    private let outPipe = Pipe()
    private var errText = ""
    private var outData = Data()

    init(_ arguments: [String]) throws {
        process.executableURL = CellQABinary.url
        process.arguments = arguments
        process.standardError = errPipe
        process.standardOutput = outPipe
        try process.run()
    }

    /// Reads stderr until it contains `marker` (true) or `timeout` seconds pass (false).
    func waitForStderr(_ marker: String, timeout: Double = 120) -> Bool {
        let handle = errPipe.fileHandleForReading
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if errText.contains(marker) { return true }
            let chunk = handle.availableData  // blocks until data or EOF
            if chunk.isEmpty { return errText.contains(marker) }
            errText += String(decoding: chunk, as: UTF8.self)
        }
        return false
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit; returns (status, stdout, all stderr).
    func finish() -> (status: Int32, stdout: String, stderr: String) {
        let rest = errPipe.fileHandleForReading.readDataToEndOfFile()
        outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errText += String(decoding: rest, as: UTF8.self)
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), errText)
    }
}

/// SIGINT/SIGTERM during `cellqa run`: a valid partial report marked incomplete, exit
/// 128 + signal; a second signal exits at once; per-fixture time limits.
@Suite struct InterruptionTests {
    static let lenient = RunCommandTests.lenient

    /// `count` synthetic 640x480 fixtures; with `--repeat 20` each takes about a second.
    static func makeDataset(in dir: TemporaryDirectory, count: Int) throws -> URL {
        let data = dir.url.appendingPathComponent("data")
        let synth = try CellQABinary.run(["synth", "--out", data.path, "--count", "\(count)", "--seed", "11",
                                          "--width", "640", "--height", "480"])
        #expect(synth.status == 0, "\(synth.stderr)")
        try dir.write("acceptance.json", lenient)
        return data
    }

    static func schema() throws -> JSONValue {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try JSONValue.load(path: url.appendingPathComponent("scripts/report.schema.json").path)
    }

    @Test func sigintWritesAValidPartialReportAndExits130() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try Self.makeDataset(in: dir, count: 6)
        let out = dir.url.appendingPathComponent("report")
        let child = try RunningCellQA(["run", data.path, "--acceptance", dir.url.appendingPathComponent("acceptance.json").path,
                                       "--out", out.path, "--jobs", "1", "--repeat", "20"])
        // Non-interactive progress prints a line after the first finished fixture.
        #expect(child.waitForStderr("cellqa run: 1/6"))
        child.signal(SIGINT)
        let result = child.finish()
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("INCOMPLETE: interrupted by SIGINT"), "\(result.stdout)")

        let report = try JSONValue.load(path: out.appendingPathComponent("report.json").path)
        let violations = SchemaValidator(schema: try Self.schema()).validate(report)
        #expect(violations.isEmpty, "\(violations.prefix(5))")
        #expect(report["complete"] == .bool(false))
        #expect(report["passed"] == .bool(false))
        #expect(report["interruption"]?["signal"] == .string("SIGINT"))
        #expect(report["interruption"]?["fixturesSelected"] == .int(6))
        guard case .array(let fixtures)? = report["fixtures"] else {
            Issue.record("no fixtures[]")
            return
        }
        #expect(fixtures.count >= 1 && fixtures.count < 6, "finished fixtures only: \(fixtures.count)")
        #expect(report["interruption"]?["fixturesFinished"] == .int(Int64(fixtures.count)))
        #expect(fixtures.first?["path"] == .string("standard-s11-000.png"))
        for f in fixtures { #expect(f["status"] == .string("scored"), "\(f["path"].debugDescription)") }
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.hasPrefix("## ⚠️ cellqa: INCOMPLETE run, interrupted by SIGINT"))
        let junit = try String(contentsOf: out.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.contains("complete"))
    }

    @Test func secondSignalExitsAtOnceAndLeavesThePreviousReport() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try Self.makeDataset(in: dir, count: 3)
        let acceptance = dir.url.appendingPathComponent("acceptance.json").path
        let out = dir.url.appendingPathComponent("report")
        let first = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--out", out.path, "--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        let previous = try Data(contentsOf: out.appendingPathComponent("report.json"))

        let child = try RunningCellQA(["run", data.path, "--acceptance", acceptance, "--out", out.path,
                                       "--jobs", "1", "--repeat", "40"])
        #expect(child.waitForStderr("cellqa run: 1/3"))
        child.signal(SIGTERM)
        #expect(child.waitForStderr("again to exit at once"))
        let second = Date()
        child.signal(SIGTERM)
        let result = child.finish()
        #expect(result.status == 143, "\(result.stdout)\(result.stderr)")
        // Within the 1.5 s grace the first signal gives: the second one did not wait for it.
        #expect(Date().timeIntervalSince(second) < 1.4)
        #expect(!result.stdout.contains("partial reports"), "nothing more is written")
        #expect(try Data(contentsOf: out.appendingPathComponent("report.json")) == previous)
    }

    @Test func compareStopsOnSigintWithoutWritingAComparison() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try Self.makeDataset(in: dir, count: 4)
        let config = try CellQABinary.run(["config", "--print-defaults"])
        try dir.write("config.json", config.stdout)
        let configPath = dir.url.appendingPathComponent("config.json").path
        let out = dir.url.appendingPathComponent("compare")
        let child = try RunningCellQA(["compare", configPath, configPath, "--dataset", data.path, "--out", out.path,
                                       "--jobs", "1", "--repeat", "10"])
        #expect(child.waitForStderr("1/4"))
        child.signal(SIGINT)
        let result = child.finish()
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("interrupted by SIGINT; no comparison written"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func fixtureTimeLimitErrorsTheFixtureAndTheRunGoesOn() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try Self.makeDataset(in: dir, count: 2)
        let out = dir.url.appendingPathComponent("report")
        let result = try CellQABinary.run(["run", data.path, "--acceptance", dir.url.appendingPathComponent("acceptance.json").path,
                                           "--out", out.path, "--quiet", "--fixture-timeout", "0.001"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let report = try JSONValue.load(path: out.appendingPathComponent("report.json").path)
        #expect(report["complete"] == .bool(true))
        guard case .array(let fixtures)? = report["fixtures"] else {
            Issue.record("no fixtures[]")
            return
        }
        #expect(fixtures.count == 2)
        for f in fixtures {
            #expect(f["status"] == .string("errored"))
            guard case .string(let message)? = f["error"] else {
                Issue.record("no error message")
                continue
            }
            #expect(message.contains("time limit of 0.001 s exceeded"), "\(message)")
        }

        let bad = try CellQABinary.run(["run", data.path, "--fixture-timeout", "-1", "--quiet"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--fixture-timeout"))
    }
}
