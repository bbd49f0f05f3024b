import Fixtures
import Foundation
import JSON
import Testing

/// Parses `text` as a label named `a.json`; returns the error descriptions (empty on success).
func labelErrors(_ text: String) -> [String] {
    do {
        _ = try Label.parse(Array(text.utf8), file: "a.json")
        return []
    } catch {
        return error.errors.map(\.description)
    }
}

/// A valid label with `fields` spliced in after the version (overriding nothing else).
func labelText(_ fields: String = "", cells: String = "[]") -> String {
    "{\"version\": 1, \(fields)\(fields.isEmpty ? "" : ", ")\"cells\": \(cells)}"
}

/// A fresh temporary directory removed by the caller via `removeTemporaryDirectory`.
func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "fixtures-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    // Resolve /tmp symlinks so paths compare equal to what the scanner reports.
    return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
}

func removeTemporaryDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Writes `contents` at `root/relative`, creating directories.
func write(_ contents: String, to relative: String, in root: String) throws {
    let url = URL(fileURLWithPath: root).appendingPathComponent(relative)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(contents.utf8).write(to: url)
}
