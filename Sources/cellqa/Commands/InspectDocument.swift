import Foundation
import Harness
import JSON
import Vision

/// `cellqa inspect` of a JSON file that is not a label: one line saying which of cellqa's
/// documents it is and what it holds, or the error of reading it as that kind.
enum InspectDocument {
    /// The line for `path`, read as `kind`; `ok` false when it does not read as one.
    static func describe(_ path: String, as kind: DocumentKind) -> (line: String, ok: Bool) {
        do {
            switch kind {
            case .runReport:
                let report = try RunSnapshot.load(path: path)
                let scored = report.fixtures.filter(\.isScored)
                let counts = scored.reduce(DetectionCounts(tp: 0, fp: 0, fn: 0)) { $0 + $1.detection }
                let f1: String = scored.isEmpty ? "n/a" : String(format: "%.4f", counts.f1)
                var line = "\(path): run report, \(report.fixtures.count) fixtures (\(scored.count) scored), F1 \(f1)"
                line += ", config \(report.configHash), dataset \(report.datasetHash), cellqa \(report.toolVersion)"
                if !report.complete { line += ", interrupted (incomplete)" }
                return (line, true)
            case .pipelineConfig:
                let config = try PipelineConfig.load(path: path)
                let changed = changedKeys(config)
                let what = changed.isEmpty ? "the defaults" : "\(changed.count) key(s) from the defaults: " + changed.joined(separator: ", ")
                return ("\(path): pipeline configuration, configHash \(config.configHash), " + what, true)
            case .acceptance:
                let acceptance = try Acceptance.load(path: path)
                let gates = describedGates(acceptance.limits)
                var line = "\(path): acceptance file"
                if let description = acceptance.description { line += " (\(description))" }
                line += ", gates: " + (gates.isEmpty ? "none" : gates.joined(separator: ", "))
                if !acceptance.tagLimits.isEmpty { line += "; per tag: " + acceptance.tagLimits.map(\.tag).joined(separator: ", ") }
                return (line, true)
            case .label:
                return ("\(path): labels-v1 label", true)  // labels are described by the caller
            }
        } catch {
            return ("\(error)", false)
        }
    }

    /// The keys whose value in `config` differs from the default's, in the canonical order.
    private static func changedKeys(_ config: PipelineConfig) -> [String] {
        guard case .object(let values) = config.jsonValue, case .object(let defaults) = PipelineConfig().jsonValue else { return [] }
        return values.keys.filter { values[$0] != defaults[$0] }
    }
}
