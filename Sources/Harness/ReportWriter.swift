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
    /// Writes every report into `directory` (created when missing). Each file is written to a
    /// temporary name in the same directory and renamed over the final name, so a reader sees
    /// either the previous file or the complete new one, never half a report.
    /// - Returns: the paths written.
    @discardableResult
    public func writeReports(to directory: String) throws(ReportWriteError) -> [String] {
        try createReportDirectory(directory)
        var written: [String] = []
        let contents: [(String, () -> String)] = [
            (ReportFile.json, { self.jsonValue.serialized(pretty: true) + "\n" }),
            (ReportFile.markdown, { self.markdown }),
            (ReportFile.junit, { self.junitXML }),
            (ReportFile.fixtures, { self.fixturesCSV }),
            (ReportFile.detections, { self.detectionsCSV }),
            (ReportFile.trace, { self.traceJSON.serialized(pretty: false) + "\n" }),
        ]
        for (name, make) in contents {
            let path = (directory as NSString).appendingPathComponent(name)
            try writeAtomically(Array(make().utf8), to: path)
            written.append(path)
        }
        return written
    }
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
