import Foundation
import Vision

/// One CSV field per RFC 4180: quoted when it holds a comma, quote, CR or LF; quotes doubled.
func csvField(_ s: String) -> String {
    guard s.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D })
    else { return s }
    return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Builds a CSV document field by field into one byte buffer (a report can hold 10^5 rows):
/// fields separated by commas, rows ended by CRLF as RFC 4180 specifies.
struct CSVWriter {
    private(set) var bytes: [UInt8] = []
    private var rowHasField = false

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends one field, quoted when needed (see `csvField`).
    mutating func field(_ s: String) { encodedField(csvField(s).utf8) }

    /// Appends a number field (`csvNumber`), which never needs quotes.
    mutating func number(_ x: Double?) { encodedField(csvNumber(x).utf8) }

    /// Appends a field already in CSV form (`csvField`'s bytes): a value repeated on many rows
    /// is quoted once.
    mutating func encodedField(_ utf8: some Collection<UInt8>) {
        if rowHasField { bytes.append(UInt8(ascii: ",")) }
        rowHasField = true
        bytes.append(contentsOf: utf8)
    }

    mutating func endRow() {
        bytes.append(0x0D)
        bytes.append(0x0A)
        rowHasField = false
    }

    mutating func row(_ fields: [String]) {
        for f in fields { field(f) }
        endRow()
    }

    /// Hands the rows so far to `output` and starts afresh (keeping the buffer), so that a long
    /// document never has to be held whole.
    mutating func drain(into output: inout some ReportOutput & ~Copyable) {
        bytes.withUnsafeBytes { output.write($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Rows joined with CRLF, ending with CRLF.
func csvDocument(_ rows: [[String]]) -> String {
    var writer = CSVWriter()
    for r in rows { writer.row(r) }
    return writer.text
}

/// A number for CSV: shortest round-trip text, empty when absent.
func csvNumber(_ x: Double?) -> String {
    guard let x, x.isFinite else { return "" }
    return x.description
}

func csvInt(_ x: Int?) -> String { x.map(String.init) ?? "" }

extension RunReport {
    /// One row per fixture: status, detection counts, P/R/F1, counts, errors, timings (median
    /// wall ms over repeats per stage, in `stages` order).
    public var fixturesCSV: String {
        let stageNames = stages.map(\.name).filter { $0 != StageStatistics.totalName }
        var rows: [[String]] = [[
            "path", "group", "status", "tags", "tp", "fp", "fn", "precision", "recall", "f1",
            "predicted_total", "predicted_live", "predicted_dead", "labelled_total", "labelled_live", "labelled_dead",
            "abs_rel_count_error", "viability_error_points", "concentration_rel_error", "calibration_rel_error",
            "registration_error_um", "live_dead_accuracy",
            "localisation_mean_px", "blank_detections", "expect_failures", "repeats", "total_wall_ms",
        ] + stageNames.map { "\($0)_wall_ms" } + ["harness_cpu_ms", "error"]]
        for o in outcomes {
            let s = o.score
            let dets = o.result?.detections ?? []
            let series = timingSeries(o.samples)
            let totals = o.samples.map { $0.reduce(0) { $0 + $1.wallSeconds * 1000 } }
            var row = [
                o.fixture.path, o.fixture.group, o.status.rawValue, o.tags.joined(separator: ";"),
                csvInt(s?.detection.tp), csvInt(s?.detection.fp), csvInt(s?.detection.fn),
                csvNumber(s?.detection.precision), csvNumber(s?.detection.recall), csvNumber(s?.detection.f1),
                o.result == nil ? "" : String(dets.count),
                o.result == nil ? "" : String(dets.filter { $0.cellClass == .live }.count),
                o.result == nil ? "" : String(dets.filter { $0.cellClass == .dead }.count),
                csvInt(s?.total.labelled), csvInt(s?.live?.labelled), csvInt(s?.dead?.labelled),
                csvNumber(s?.total.absRelativeError), csvNumber(s?.viabilityErrorPoints),
                csvNumber(s?.concentration?.relativeError), csvNumber(s?.calibration?.relativeError),
                csvNumber(s?.registration?.positionErrorUm), csvNumber(s?.classes.accuracy),
                csvNumber(s?.localisation?.meanPixels), csvInt(s?.blankDetections),
                csvInt(s.map { $0.expectChecks.filter { !$0.passed }.count }),
                String(o.samples.count), csvNumber(Statistics.median(totals)),
            ]
            for name in stageNames {
                row.append(csvNumber(series.first { $0.name == name }.flatMap { Statistics.median($0.wallMs) }))
            }
            row.append(csvNumber(o.harnessCPUSeconds * 1000))
            row.append(o.error ?? "")
            rows.append(row)
        }
        return csvDocument(rows)
    }

    /// One row per detection (status TP or FP, with its matched label) and one per missed
    /// labelled cell (status FN), fixture by fixture; pixels. Unscored (unlabelled) fixtures
    /// have an empty status.
    public var detectionsCSV: String {
        var bytes: [UInt8] = []
        writeDetectionsCSV(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `detectionsCSV` written to `output` fixture by fixture (500 images make some 26 MB).
    func writeDetectionsCSV(to output: inout some ReportOutput & ~Copyable) {
        var csv = CSVWriter()
        csv.row(["path", "status", "detection", "x", "y", "r", "class", "score", "confidence",
                 "label", "label_x", "label_y", "label_r", "label_class", "distance_px"])
        for o in outcomes {
            guard let result = o.result else { continue }
            var pairOf = [MatchedPair?](repeating: nil, count: result.detections.count)
            for pair in o.score?.matching.pairs ?? [] where pair.prediction < pairOf.count { pairOf[pair.prediction] = pair }
            let truth = o.truthCells
            let scored = o.score != nil
            let path = Array(csvField(o.fixture.path).utf8)
            for (i, d) in result.detections.enumerated() {
                csv.encodedField(path)
                csv.field(scored ? (pairOf[i] == nil ? "FP" : "TP") : "")
                csv.field(String(i))
                csv.number(d.x)
                csv.number(d.y)
                csv.number(d.r)
                csv.field(d.cellClass.rawValue)
                csv.number(d.score)
                csv.number(d.confidence)
                if let pair = pairOf[i], pair.label < truth.count {
                    let c = truth[pair.label]
                    csv.field(String(pair.label))
                    csv.number(c.x)
                    csv.number(c.y)
                    csv.number(c.r)
                    csv.field(c.cellClass?.rawValue ?? "")
                    csv.number(pair.distance)
                } else {
                    for _ in 0..<6 { csv.field("") }
                }
                csv.endRow()
            }
            for j in o.score?.matching.unmatchedLabels ?? [] where j < truth.count {
                let c = truth[j]
                csv.encodedField(path)
                csv.field("FN")
                for _ in 0..<7 { csv.field("") }
                csv.field(String(j))
                csv.number(c.x)
                csv.number(c.y)
                csv.number(c.r)
                csv.field(c.cellClass?.rawValue ?? "")
                csv.field("")
                csv.endRow()
            }
            csv.drain(into: &output)
        }
        csv.drain(into: &output)
    }
}
