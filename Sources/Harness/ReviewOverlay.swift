import Foundation
import Imaging
import JSON
import Vision

/// One row of a run's `detections.csv` as a review overlay draws it: a matched detection, a
/// false detection (at the detection) or a missed cell (at the label).
public struct ReviewMark: Sendable, Equatable {
    public enum Status: String, Sendable { case tp = "TP", fp = "FP", fn = "FN" }
    /// The fixture's path relative to the dataset root (the report's `path`).
    public var fixture: String
    public var status: Status
    /// Centre and radius, image pixels: the detection's (TP, FP) or the label's (FN; a label
    /// without a radius is drawn at `ReviewMark.unlabelledRadius`).
    public var x: Double, y: Double, r: Double

    static let unlabelledRadius = 5.0
}

/// A `detections.csv` that cannot be read: the file, the line (1-based; 0 for the file as a
/// whole) and what was expected.
public struct ReviewInputError: Error, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let reason: String
    public var description: String { line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)" }
}

/// The marks of a run's `detections.csv` file (`ReportFile.detections`), in file order.
public func reviewMarks(file path: String) throws(ReviewInputError) -> [ReviewMark] {
    guard let data = FileManager.default.contents(atPath: path) else {
        let reason = FileManager.default.fileExists(atPath: path)
            ? "cannot be read" : "no such file (every `cellqa run --out` directory holds one)"
        throw ReviewInputError(file: path, line: 0, reason: reason)
    }
    guard let text = String(data: data, encoding: .utf8) else {
        throw ReviewInputError(file: path, line: 0, reason: "is not UTF-8 text")
    }
    return try reviewMarks(csv: text, file: path)
}

/// The marks of a run's `detections.csv` (`ReportFile.detections`), in file order.
///
/// - Parameters:
///   - text: the file's contents (RFC 4180: fields quoted when they hold a comma, quote or
///     line break, quotes doubled).
///   - file: its path, for errors.
public func reviewMarks(csv text: String, file: String) throws(ReviewInputError) -> [ReviewMark] {
    let records = csvRecords(text)
    guard let header = records.first else { throw ReviewInputError(file: file, line: 0, reason: "empty: expected a header row") }
    func column(_ name: String) throws(ReviewInputError) -> Int {
        guard let index = header.fields.firstIndex(of: name) else {
            throw ReviewInputError(file: file, line: header.line, reason: "no column \"\(name)\" (a cellqa run's detections.csv has it)")
        }
        return index
    }
    let path = try column("path"), status = try column("status")
    let x = try column("x"), y = try column("y"), r = try column("r")
    let labelX = try column("label_x"), labelY = try column("label_y"), labelR = try column("label_r")
    var marks: [ReviewMark] = []
    for record in records.dropFirst() {
        let f = record.fields
        guard f.count == header.fields.count else {
            throw ReviewInputError(file: file, line: record.line,
                                   reason: "\(f.count) fields, expected \(header.fields.count) as in the header")
        }
        guard let kind = ReviewMark.Status(rawValue: f[status]) else {
            throw ReviewInputError(file: file, line: record.line, reason: "status \"\(f[status])\", expected TP, FP or FN")
        }
        let (cx, cy, cr) = kind == .fn ? (labelX, labelY, labelR) : (x, y, r)
        func number(_ index: Int) throws(ReviewInputError) -> Double {
            guard let value = Double(f[index]), value.isFinite else {
                throw ReviewInputError(file: file, line: record.line,
                                       reason: "\(header.fields[index]) \"\(f[index])\", expected a finite number")
            }
            return value
        }
        let radius = f[cr].isEmpty ? ReviewMark.unlabelledRadius : try number(cr)
        marks.append(ReviewMark(fixture: f[path], status: kind, x: try number(cx), y: try number(cy), r: radius))
    }
    return marks
}

/// The records of a CSV text with the line each starts on.
private func csvRecords(_ text: String) -> [(line: Int, fields: [String])] {
    var records: [(line: Int, fields: [String])] = []
    var fields: [String] = [], field = "", quoted = false, line = 1, start = 1, afterQuote = false
    var chars = Array(text.unicodeScalars)[...]
    func endRecord() {
        fields.append(field)
        if !(fields.count == 1 && fields[0].isEmpty) { records.append((start, fields)) }
        fields = []
        field = ""
    }
    while let c = chars.popFirst() {
        if quoted {
            if c == "\"" {
                if chars.first == "\"" { field.unicodeScalars.append("\""); chars.removeFirst() } else { quoted = false; afterQuote = true }
            } else {
                if c == "\n" { line += 1 }
                field.unicodeScalars.append(c)
            }
            continue
        }
        switch c {
        case "\"" where field.isEmpty && !afterQuote: quoted = true
        case ",":
            fields.append(field)
            field = ""
            afterQuote = false
        case "\r" where chars.first == "\n": continue
        case "\n":
            endRecord()
            afterQuote = false
            line += 1
            start = line
        default: field.unicodeScalars.append(c)
        }
    }
    if !field.isEmpty || !fields.isEmpty { endRecord() }
    return records
}

/// Colours of a review overlay (8-bit RGB).
public enum ReviewColor {
    public static let matched: (UInt8, UInt8, UInt8) = (0, 220, 0)
    public static let falseDetection: (UInt8, UInt8, UInt8) = (255, 40, 40)
    public static let missed: (UInt8, UInt8, UInt8) = (255, 210, 0)
}

/// The image with a run's verdicts drawn on it: matched detections as thin green circles,
/// false detections as thick red ones, missed cells as thick yellow circles a few pixels
/// outside the label's radius (so that a detection beside a missed cell stays visible).
public func drawReview(_ image: Image, marks: [ReviewMark]) -> Image {
    var out = image
    guard image.width > 0, image.height > 0 else { return out }
    let thickness = max(1, Double(min(image.width, image.height)) / 700)
    for m in marks {
        switch m.status {
        case .tp: drawCircle(&out, x: m.x, y: m.y, r: m.r, ReviewColor.matched, thickness: thickness)
        case .fp: drawCircle(&out, x: m.x, y: m.y, r: m.r, ReviewColor.falseDetection, thickness: 2 * thickness)
        case .fn: drawCircle(&out, x: m.x, y: m.y, r: m.r + 2 * thickness + 1, ReviewColor.missed, thickness: 2 * thickness)
        }
    }
    return out
}

/// What a review needs of a run's `report.json`: the dataset's roots and, per fixture, its
/// path, image file and counts.
public struct ReviewedRun: Sendable {
    public struct Fixture: Sendable {
        public var path: String
        /// The image file as the run read it (absolute when the run was given an absolute root).
        public var image: String
        public var tp: Int, fp: Int, fn: Int
    }
    public var datasetRoot: String
    public var labelsRoot: String?
    public var fixtures: [Fixture]
    /// The run's current directory, recorded when a root was relative (reports since the
    /// sixty-first session).
    public var workingDirectory: String?

    /// Relative roots and image paths made relative to the run's own directory, when the
    /// report names one and it exists here: a run given `.` read from another directory then
    /// still finds its images. A report from another machine keeps its paths as written.
    public mutating func resolveAgainstRunDirectory() {
        guard let base = workingDirectory, FileManager.default.fileExists(atPath: base) else { return }
        func resolved(_ path: String) -> String { path.hasPrefix("/") ? path : (base as NSString).appendingPathComponent(path) }
        datasetRoot = resolved(datasetRoot)
        labelsRoot = labelsRoot.map(resolved)
        for i in fixtures.indices { fixtures[i].image = resolved(fixtures[i].image) }
    }

    /// Reads `report.json` (errors name the file and the JSON path).
    public static func load(reportJSON path: String) throws(JSONError) -> ReviewedRun {
        let root = JSONCursor(try JSONValue.load(path: path), file: path)
        let dataset = try root.required("dataset")
        let labels = try dataset.field("labelsRoot")
        var fixtures: [Fixture] = []
        for f in try root.required("fixtures").array() {
            // A fixture that errored or had no label carries no counts.
            func count(_ key: String) throws(JSONError) -> Int {
                guard let c = try f.field(key), !c.isNull else { return 0 }
                return try c.int()
            }
            // A label without an image (errored) has nothing to draw on.
            let image = try f.required("image")
            if image.isNull { continue }
            fixtures.append(Fixture(path: try f.required("path").string(), image: try image.string(),
                                    tp: try count("tp"), fp: try count("fp"), fn: try count("fn")))
        }
        var labelsRoot: String?
        if let labels, !labels.isNull { labelsRoot = try labels.string() }
        var workingDirectory: String?
        if let directory = try dataset.field("workingDirectory"), !directory.isNull { workingDirectory = try directory.string() }
        return ReviewedRun(datasetRoot: try dataset.required("root").string(), labelsRoot: labelsRoot, fixtures: fixtures,
                           workingDirectory: workingDirectory)
    }
}
