import Foundation
import JSON

/// A report file could not be written.
public struct ReportWriteError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: String
    public var description: String { "\(path): cannot write report: \(reason)" }
}

/// The files `writeReports` creates, in order.
public enum ReportFile {
    public static let json = "report.json"
    public static let markdown = "summary.md"
    public static let junit = "junit.xml"
    public static let fixtures = "fixtures.csv"
    public static let detections = "detections.csv"
    public static let trace = "trace.json"
    public static let all = [json, markdown, junit, fixtures, detections, trace]
}

extension RunReport {
    /// Writes every report into `directory` as a whole (`ReportDirectory.replace`): the files
    /// go to a fresh staging directory beside it, which then replaces `directory` in one
    /// rename, so a reader (or an interrupted run) sees either the complete previous report
    /// or the complete new one. `directory` is created when missing; an existing one must
    /// hold only report files (anything else would be deleted by the swap, so it is refused).
    /// - Returns: the paths written (inside `directory`).
    @discardableResult
    public func writeReports(to directory: String) throws(ReportWriteError) -> [String] {
        let contents: [(String, () -> String)] = [
            (ReportFile.json, { self.jsonValue.serialized(pretty: true) + "\n" }),
            (ReportFile.markdown, { self.markdown }),
            (ReportFile.junit, { self.junitXML }),
            (ReportFile.fixtures, { self.fixturesCSV }),
            (ReportFile.detections, { self.detectionsCSV }),
            (ReportFile.trace, { self.traceJSON.serialized(pretty: false) + "\n" }),
        ]
        try ReportDirectory.replace(directory, ownNames: Set(ReportFile.all)) { (staging: String) throws(ReportWriteError) in
            for (name, make) in contents {
                try writeAtomically(Array(make().utf8), to: (staging as NSString).appendingPathComponent(name))
            }
        }
        return contents.map { (directory as NSString).appendingPathComponent($0.0) }
    }
}

/// Writes each named text into `directory` (created with its parents when missing), each file
/// atomically (`writeAtomically`), beside whatever else the directory holds.
/// - Returns: the paths written, in order.
public func writeReportFiles(_ files: [(name: String, text: String)], into directory: String) throws(ReportWriteError) -> [String] {
    try createReportDirectory(directory)
    var written: [String] = []
    for (name, text) in files {
        let path = (directory as NSString).appendingPathComponent(name)
        try writeAtomically(Array(text.utf8), to: path)
        written.append(path)
    }
    return written
}

/// Creates `directory` and its parents when missing.
public func createReportDirectory(_ directory: String) throws(ReportWriteError) {
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
        throw ReportWriteError(path: directory, reason: "cannot create directory (\(error.localizedDescription))")
    }
}

/// Writes `bytes` to a temporary file beside `path`, then renames it to `path`: rename(2)
/// within a directory is atomic, so readers see the old or the new file, never a mix. (No
/// fsync: reports need atomic replacement, not crash durability, and fsync costs tens of
/// milliseconds per file on a busy disk.)
public func writeAtomically(_ bytes: [UInt8], to path: String) throws(ReportWriteError) {
    let directory = (path as NSString).deletingLastPathComponent
    let base = (path as NSString).lastPathComponent
    let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(base).tmp-\(getpid())"
    guard let file = fopen(temporary, "wb") else {
        throw ReportWriteError(path: path, reason: String(cString: strerror(errno)))
    }
    let count = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    let flushed = fflush(file) == 0
    fclose(file)
    guard count == bytes.count, flushed else {
        unlink(temporary)
        throw ReportWriteError(path: path, reason: "short write (disk full?)")
    }
    guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw ReportWriteError(path: path, reason: reason)
    }
}
