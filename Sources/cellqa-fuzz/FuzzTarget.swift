/// The code under test for each fuzz target. Each function takes one arbitrary input, must
/// return normally for every input (a typed error is a normal outcome), and calls
/// `FuzzInvariant.fail` when the code under test breaks one of its own promises (a value
/// that does not survive a round trip, an error that names no file).
enum FuzzTarget: String, CaseIterable, Sendable {
    /// PNG decoding (`Image.decode`, `ImageInfo.read`).
    case png
    /// JPEG decoding, strict and lenient.
    case jpeg
    /// labels-v1 parsing and validation (`Label.parse`, `Label.check`), with an encode round trip.
    case label
    /// Pipeline configuration parsing (`PipelineConfig.parse`), with a round trip.
    case config
    /// Acceptance file parsing (`Acceptance.parse`).
    case acceptance
    /// JSON that cellqa reads back (reports, baselines): parse, serialize round trip, the
    /// report reader (`RunSnapshot.parse`) and schema validation against
    /// scripts/report.schema.json.
    case report
    /// The whole pipeline on a small image built from the input (1x1 up to 96x96, including
    /// 1xN and Nx1).
    case pipeline
    /// A run's detections.csv as `cellqa review` reads it (`reviewMarks`), and the overlay drawn
    /// from it.
    case review

    /// Runs the target once on `bytes`.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .png: ImageTargets.decode(bytes, expecting: .png)
        case .jpeg: ImageTargets.decode(bytes, expecting: .jpeg)
        case .label: JSONTargets.label(bytes)
        case .config: JSONTargets.config(bytes)
        case .acceptance: JSONTargets.acceptance(bytes)
        case .report: JSONTargets.report(bytes)
        case .pipeline: PipelineTarget.run(bytes)
        case .review: ReviewTarget.run(bytes)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a broken promise into a crash libFuzzer records (with the input that caused it).
enum FuzzInvariant {
    static func fail(_ message: String) -> Never {
        writeError("cellqa-fuzz: invariant violated: \(message)\n")
        abort()
    }
}

/// Writes `text` to standard error unbuffered (so it precedes libFuzzer's crash report).
func writeError(_ text: String) {
    var remaining = Array(text.utf8)[...]
    while !remaining.isEmpty {
        let written = remaining.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        remaining = remaining.dropFirst(written)
    }
}
