import Foundation
import Testing
@testable import Harness

/// `ReportDirectory`: whole-directory replacement and the dataset/--out conflict rule.
@Suite("ReportDirectory")
struct ReportDirectoryTests {
    let base: String

    init() throws {
        base = NSTemporaryDirectory() + "cellqa-reportdir-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    }

    func write(_ files: [String: String], into directory: String) throws(ReportWriteError) {
        for (name, text) in files { try writeAtomically(Array(text.utf8), to: directory + "/" + name) }
    }

    func contents(_ directory: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            result[name] = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
        }
        return result
    }

    func siblings() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: base).sorted() }

    @Test func replacesTheWholeDirectory() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let out = base + "/nested/report"
        let own: Set = ["a.txt", "b.txt"]
        try ReportDirectory.replace(out, ownNames: own) { (dir: String) throws(ReportWriteError) in
            try write(["a.txt": "old a", "b.txt": "old b"], into: dir)
        }
        #expect(try contents(out) == ["a.txt": "old a", "b.txt": "old b"])
        try ReportDirectory.replace(out, ownNames: own) { (dir: String) throws(ReportWriteError) in
            try write(["a.txt": "new a"], into: dir)
        }
        // Nothing of the previous report survives, and no staging directory is left behind.
        #expect(try contents(out) == ["a.txt": "new a"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: base + "/nested") == ["report"])
    }

    /// `writeReportFiles` (compare and sweep reports): creates the directory, writes each file
    /// whole, returns the paths in order, and leaves the user's other files alone.
    @Test func reportFilesGoBesideTheUsersOwn() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let out = base + "/nested/compare"
        let written = try writeReportFiles([(name: "x.json", text: "{}\n"), (name: "x.md", text: "# x\n")], into: out)
        #expect(written == [out + "/x.json", out + "/x.md"])
        try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/notes.txt"))
        _ = try writeReportFiles([(name: "x.md", text: "# y\n")], into: out + "/")
        #expect(try contents(out) == ["x.json": "{}\n", "x.md": "# y\n", "notes.txt": "mine"])
    }

    @Test func aFailedWriteLeavesThePreviousReport() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let out = base + "/report"
        try ReportDirectory.replace(out, ownNames: ["a.txt"]) { (dir: String) throws(ReportWriteError) in
            try write(["a.txt": "complete"], into: dir)
        }
        #expect(throws: ReportWriteError.self) {
            try ReportDirectory.replace(out, ownNames: ["a.txt"]) { (dir: String) throws(ReportWriteError) in
                try write(["a.txt": "half"], into: dir)
                throw ReportWriteError(path: dir + "/b.txt", reason: "disk full")
            }
        }
        #expect(try contents(out) == ["a.txt": "complete"])
        #expect(try siblings() == ["report"])
    }

    @Test func refusesToDeleteForeignFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let out = base + "/report"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/notes.txt"))
        do {
            try ReportDirectory.replace(out, ownNames: ["a.txt"]) { (dir: String) throws(ReportWriteError) in
                try write(["a.txt": "x"], into: dir)
            }
            Issue.record("a directory with foreign files was replaced")
        } catch {
            #expect(error.description.contains("notes.txt"), "\(error)")
        }
        #expect(try contents(out) == ["notes.txt": "mine"])
        #expect(try siblings() == ["report"])
        // A plain file where the directory should be is refused too.
        try Data("x".utf8).write(to: URL(fileURLWithPath: base + "/file"))
        #expect(throws: ReportWriteError.self) {
            try ReportDirectory.replace(base + "/file", ownNames: []) { (_: String) throws(ReportWriteError) in }
        }
    }

    @Test func followsASymlinkedDirectoryAndCleansStaleStaging() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let real = base + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: real)
        // Left by a process that no longer exists (pid far above Linux's default pid_max).
        try FileManager.default.createDirectory(atPath: base + "/.real.partial-2147483000-1", withIntermediateDirectories: true)
        try ReportDirectory.replace(base + "/link", ownNames: ["a.txt"]) { (dir: String) throws(ReportWriteError) in
            try write(["a.txt": "via link"], into: dir)
        }
        #expect(try contents(real) == ["a.txt": "via link"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: base + "/link") == real)
        #expect(try siblings() == ["link", "real"])
    }

    @Test func outInsideTheDatasetIsAConflict() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let data = base + "/data"
        try FileManager.default.createDirectory(atPath: data + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base + "/alias", withDestinationPath: data)
        #expect(ReportDirectory.conflict(out: data + "/report", inputs: [data]) != nil)
        #expect(ReportDirectory.conflict(out: data, inputs: [data]) != nil)
        #expect(ReportDirectory.conflict(out: base + "/other/../data/sub/new/deeper", inputs: [data]) != nil)
        #expect(ReportDirectory.conflict(out: base + "/alias/r", inputs: [data]) != nil, "symlink into the dataset")
        #expect(ReportDirectory.conflict(out: base + "/r", inputs: [base + "/alias"]) == nil)
        #expect(ReportDirectory.conflict(out: base, inputs: [data]) != nil, "out containing the dataset")
        #expect(ReportDirectory.conflict(out: base + "/data2", inputs: [data]) == nil, "a sibling sharing a prefix")
        #expect(ReportDirectory.conflict(out: base + "/report", inputs: [data, base + "/labels"]) == nil)
        // Inside, not containing: `isWithin` (a review's overlays may go beside a report, not into it).
        #expect(ReportDirectory.isWithin(base + "/alias/sub/x", data))
        #expect(ReportDirectory.isWithin(data, base + "/alias"))
        #expect(!ReportDirectory.isWithin(base, data))
        #expect(!ReportDirectory.isWithin(base + "/data2", data))
    }

    /// A run's report directory is one holding every report file; the nearest one above a path
    /// (or the path itself) is found through symlinks, and a partial set is none.
    @Test func theEnclosingRunReportIsFound() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let report = base + "/report"
        try FileManager.default.createDirectory(atPath: report + "/sub", withIntermediateDirectories: true)
        try write(Dictionary(uniqueKeysWithValues: ReportFile.all.map { ($0, "x") }), into: report)
        try FileManager.default.createSymbolicLink(atPath: base + "/alias", withDestinationPath: report)
        let resolved = ReportDirectory.resolveExisting(report)
        #expect(ReportDirectory.enclosingRunReport(of: report + "/sub/new", includingItself: false) == resolved)
        #expect(ReportDirectory.enclosingRunReport(of: base + "/alias/x", includingItself: false) == resolved)
        #expect(ReportDirectory.enclosingRunReport(of: report, includingItself: true) == resolved)
        #expect(ReportDirectory.enclosingRunReport(of: report, includingItself: false) == nil, "replacing it is allowed")
        #expect(ReportDirectory.enclosingRunReport(of: base + "/elsewhere", includingItself: true) == nil)
        try FileManager.default.removeItem(atPath: report + "/" + ReportFile.trace)
        #expect(ReportDirectory.enclosingRunReport(of: report + "/sub", includingItself: true) == nil, "not every report file")
    }
}
