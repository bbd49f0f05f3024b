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
        // Each file is written as it is made, and the large ones piecewise: the detections of
        // 500 images make a 26 MB table, which held whole (and copied to a String and back)
        // raised the run's peak memory by some 45 MiB.
        let contents: [(String, (inout ReportFileOutput) -> Void)] = [
            (ReportFile.json, { out in self.jsonValue.serialize(pretty: true) { out.write($0) }; out.write("\n") }),
            (ReportFile.markdown, { $0.write(self.markdown) }),
            (ReportFile.junit, { $0.write(self.junitXML) }),
            (ReportFile.fixtures, { $0.write(self.fixturesCSV) }),
            (ReportFile.detections, { self.writeDetectionsCSV(to: &$0) }),
            (ReportFile.trace, { out in self.traceJSON.serialize(pretty: false) { out.write($0) }; out.write("\n") }),
        ]
        try ReportDirectory.replace(directory, ownNames: Set(ReportFile.all)) { (staging: String) throws(ReportWriteError) in
            for (name, make) in contents {
                do throws(ReportWriteError) {
                    try writeAtomically(to: (staging as NSString).appendingPathComponent(name), make)
                } catch {
                    // Named where the user asked for it, not in the staging directory.
                    throw ReportWriteError(path: (directory as NSString).appendingPathComponent(name), reason: error.reason)
                }
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
        try writeAtomically(to: path) { $0.write(text) }
        written.append(path)
    }
    return written
}

/// Creates `directory` and its parents when missing.
public func createReportDirectory(_ directory: String) throws(ReportWriteError) {
    if let reason = createDirectories(directory) {
        throw ReportWriteError(path: directory, reason: "cannot create directory (\(reason))")
    }
}

/// Writes `bytes` to a temporary file beside `path`, then renames it to `path`: rename(2)
/// within a directory is atomic, so readers see the old or the new file, never a mix. (No
/// fsync: reports need atomic replacement, not crash durability, and fsync costs tens of
/// milliseconds per file on a busy disk.)
public func writeAtomically(_ bytes: [UInt8], to path: String) throws(ReportWriteError) {
    try writeAtomically(to: path) { $0.write(bytes) }
}

/// `writeAtomically(_:to:)` for a file written piece by piece: `produce` writes the whole
/// content into the temporary file, which is renamed to `path` only if every write succeeded
/// (otherwise it is removed, `path` is left as it was and the error gives the system's reason:
/// "No space left on device", "File too large").
public func writeAtomically(to path: String, _ produce: (inout ReportFileOutput) -> Void) throws(ReportWriteError) {
    let directory = (path as NSString).deletingLastPathComponent
    let base = (path as NSString).lastPathComponent
    let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(base).tmp-\(getpid())"
    guard let file = fopen(temporary, "wb") else {
        throw ReportWriteError(path: path, reason: String(cString: strerror(errno)))
    }
    var output = ReportFileOutput(file: file)
    produce(&output)
    if output.failure == nil && fflush(file) != 0 { output.failure = errno }
    if fclose(file) != 0 && output.failure == nil { output.failure = errno }
    if let failure = output.failure {
        unlink(temporary)
        throw ReportWriteError(path: path, reason: "write failed: " + String(cString: strerror(failure)))
    }
    guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw ReportWriteError(path: path, reason: reason)
    }
}

/// Where report bytes go: a file being written (`ReportFileOutput`) or memory.
protocol ReportOutput: ~Copyable {
    mutating func write(_ bytes: UnsafeRawBufferPointer)
}

extension Array: ReportOutput where Element == UInt8 {
    mutating func write(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

/// The open temporary file of `writeAtomically(to:_:)`. A failed write is remembered (and
/// the rest skipped), so that the file is not renamed into place. Not copyable: no copy can
/// outlive the file it writes to.
public struct ReportFileOutput: ReportOutput, ~Copyable {
    fileprivate let file: UnsafeMutablePointer<FILE>
    /// The errno of the first write that failed.
    fileprivate var failure: Int32?

    fileprivate init(file: UnsafeMutablePointer<FILE>) { self.file = file }

    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, let start = bytes.baseAddress, bytes.count > 0 else { return }
        if fwrite(start, 1, bytes.count, file) != bytes.count { failure = errno }
    }

    public mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    public mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }
}
