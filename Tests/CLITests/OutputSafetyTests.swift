import Foundation
import Testing

/// `cellqa run` never writes into its inputs: `--out` inside the dataset is refused (by
/// `compare` too), and a run leaves every dataset file's bytes and modification time as they
/// were.
@Suite struct OutputSafetyTests {
    /// Path, bytes and modification time (ns) of every file under `root`.
    static func snapshot(_ root: URL) throws -> [String: (Data, Int)] {
        var result: [String: (Data, Int)] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        while let relative = enumerator?.nextObject() as? String {
            let path = root.appendingPathComponent(relative).path
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let mtime = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
            result[relative] = (try Data(contentsOf: URL(fileURLWithPath: path)), mtime)
        }
        return result
    }

    /// A two-fixture dataset in `dir`, and an acceptance file beside it that gates nothing.
    static func lenientDataset(in dir: TemporaryDirectory) throws -> (data: URL, acceptance: String) {
        let data = try RunCommandTests.makeDataset(in: dir)
        try dir.write("acceptance.json", RunCommandTests.lenient)
        return (data, dir.url.appendingPathComponent("acceptance.json").path)
    }

    @Test func outInsideTheDatasetIsRefusedUnlessAllowed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (data, acceptance) = try Self.lenientDataset(in: dir)
        let inside = data.path + "/../data/reports"
        let refused = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--out", inside, "--quiet"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("is inside the dataset root"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-out-in-dataset"))
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("reports").path))

        let allowed = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--out", inside, "--quiet",
                                            "--allow-out-in-dataset"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("reports/report.json").path))
    }

    /// `cellqa compare` refuses, before running anything, an `--out` inside the dataset its
    /// configs run on (unless allowed) or inside a run's report directory given as a version.
    @Test func compareOutInsideTheDatasetOrAReportDirectoryIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (data, acceptance) = try Self.lenientDataset(in: dir)
        try dir.write("config.json", try CellQABinary.run(["config", "--print-defaults"]).stdout)
        let config = dir.url.appendingPathComponent("config.json").path
        let compare = ["compare", config, config, "--dataset", data.path, "--acceptance", acceptance, "--quiet"]

        let inside = try CellQABinary.run(compare + ["--out", data.path + "/cmp"])
        #expect(inside.status == 2)
        #expect(inside.stderr.contains("--out \(data.path)/cmp is inside the dataset root"), "\(inside.stderr)")
        #expect(inside.stderr.contains("--allow-out-in-dataset"))
        #expect(!FileManager.default.fileExists(atPath: data.path + "/cmp"))
        let allowed = try CellQABinary.run(compare + ["--out", data.path + "/cmp", "--allow-out-in-dataset"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(FileManager.default.fileExists(atPath: data.path + "/cmp/compare.json"))

        let report = dir.url.appendingPathComponent("report").path
        let run = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--out", report, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let stored = try CellQABinary.run(["compare", report + "/report.json", report + "/report.json",
                                           "--acceptance", acceptance, "--out", report + "/cmp"])
        #expect(stored.status == 2)
        #expect(stored.stderr.contains("--out \(report)/cmp is inside \(report), the report directory of a cellqa run"),
                "\(stored.stderr)")
        #expect(!FileManager.default.fileExists(atPath: report + "/cmp"))
        let beside = try CellQABinary.run(["compare", report + "/report.json", report + "/report.json",
                                           "--acceptance", acceptance, "--out", dir.url.appendingPathComponent("cmp").path])
        #expect(beside.status == 0, "\(beside.stderr)")
    }

    /// Nothing is written inside a run's report directory, which the next `cellqa run --out`
    /// there replaces as a whole and refuses when it holds other files: not another run's
    /// reports, nor a sweep's; a sweep inside the dataset is refused as a run's reports are.
    @Test func nothingIsWrittenInsideAReportDirectoryOrTheDataset() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (data, acceptance) = try Self.lenientDataset(in: dir)
        let report = dir.url.appendingPathComponent("report").path
        let first = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--out", report, "--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        let nested = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--out", report + "/again", "--quiet"])
        #expect(nested.status == 2)
        #expect(nested.stderr == "cellqa run: error: --out \(report)/again is inside \(report), the report directory of a "
                + "cellqa run; the next `cellqa run --out` there would refuse to replace it, as it would hold files the "
                + "reports do not. Choose another --out\n", "\(nested.stderr)")
        let sweep = ["sweep", "minScore=3", "--dataset", data.path, "--quiet"]
        let sweepInReport = try CellQABinary.run(sweep + ["--out", report])
        #expect(sweepInReport.status == 2)
        #expect(sweepInReport.stderr.contains("--out \(report) is the report directory of a cellqa run"), "\(sweepInReport.stderr)")
        let sweepInData = try CellQABinary.run(sweep + ["--out", data.path + "/sweep"])
        #expect(sweepInData.status == 2)
        #expect(sweepInData.stderr.contains("is inside the dataset root"), "\(sweepInData.stderr)")
        #expect(!FileManager.default.fileExists(atPath: report + "/again") && !FileManager.default.fileExists(atPath: data.path + "/sweep"))
        let allowed = try CellQABinary.run(sweep + ["--out", data.path + "/sweep", "--allow-out-in-dataset"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        // The first report is still replaceable.
        let again = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--out", report, "--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func aRunLeavesDatasetBytesAndTimesUnchanged() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try RunCommandTests.makeDataset(in: dir)
        try dir.write("data/broken.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0])
        try dir.write("acceptance.json", RunCommandTests.lenient)
        let before = try Self.snapshot(data)
        #expect(before.count == 5)
        let out = dir.url.appendingPathComponent("report").path
        let result = try CellQABinary.run(["run", data.path, "--acceptance", dir.url.appendingPathComponent("acceptance.json").path,
                                           "--out", out, "--quiet", "--repeat", "2"])
        #expect(result.status == 1, "\(result.stderr)")  // broken.png errors
        let after = try Self.snapshot(data)
        #expect(after.keys.sorted() == before.keys.sorted(), "no file added or removed")
        for (name, (bytes, mtime)) in before {
            #expect(after[name]?.0 == bytes, "\(name) bytes changed")
            #expect(after[name]?.1 == mtime, "\(name) modification time changed")
        }
    }

    @Test func reportDirectoryWithForeignFilesIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try RunCommandTests.makeDataset(in: dir)
        try dir.write("acceptance.json", RunCommandTests.lenient)
        try dir.write("report/keep-me.txt", "precious")
        let result = try CellQABinary.run(["run", data.path, "--acceptance", dir.url.appendingPathComponent("acceptance.json").path,
                                           "--out", dir.url.appendingPathComponent("report").path, "--quiet"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("keep-me.txt"), "\(result.stderr)")
        #expect(try String(contentsOf: dir.url.appendingPathComponent("report/keep-me.txt"), encoding: .utf8) == "precious")
    }

    /// A disk that fills while the reports are written: the run says which file could not be
    /// written and why, exits 2, and the previous reports stay whole (the new ones go to a
    /// staging directory that replaces them only when complete). The full disk is a file-size
    /// limit (`ulimit -f`) with SIGXFSZ ignored, so that writes past it fail with EFBIG.
    @Test func aDiskFullWhileWritingReportsKeepsThePreviousReports() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let data = try RunCommandTests.makeDataset(in: dir)
        try dir.write("acceptance.json", RunCommandTests.lenient)
        let acceptance = dir.url.appendingPathComponent("acceptance.json").path
        let out = dir.url.appendingPathComponent("report")
        let first = try CellQABinary.run(["run", data.path, "--acceptance", acceptance, "--out", out.path, "--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try Self.snapshot(out)
        #expect(before.count == 6)
        let reportBytes = try #require(before["report.json"]?.0.count)
        #expect(reportBytes > 8 * 1024, "report.json must be larger than the limit below")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // ulimit -f counts 1024-byte blocks: 8 KiB, less than report.json alone.
        process.arguments = ["-c", "trap '' XFSZ; ulimit -f 8; exec \"$0\" \"$@\"", CellQABinary.url.path,
                             "run", data.path, "--acceptance", acceptance, "--out", out.path, "--quiet"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2, "\(stderr)")
        #expect(stderr.contains("\(out.path)/report.json: cannot write report: write failed: File too large"), "\(stderr)")
        let after = try Self.snapshot(out)
        #expect(after.keys.sorted() == before.keys.sorted())
        for (name, (bytes, _)) in before { #expect(after[name]?.0 == bytes, "\(name) changed") }
        // Neither a staging directory nor a temporary file is left beside or inside them.
        let siblings = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
        #expect(siblings.allSatisfy { !$0.hasPrefix(".") }, "\(siblings)")
    }
}
