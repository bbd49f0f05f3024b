import Foundation
import JSON

extension CandidateTrace {
    /// The step after which no candidate was near probe `p` any more (and none came back),
    /// or nil when one survived every step.
    public func lostAt(probe p: Int) -> String? {
        let steps = entries[p]
        guard let last = steps.last, last.near == 0 else { return nil }
        // The step after the last one with a candidate near; the first step when none ever was.
        guard let lastNear = steps.lastIndex(where: { $0.near > 0 }) else { return steps.first?.step }
        return lastNear + 1 < steps.count ? steps[lastNear + 1].step : nil
    }

    /// One table per probe, for a terminal.
    public var text: String {
        var out = ""
        for (p, probe) in probes.enumerated() {
            out += String(format: "  explain %.1f,%.1f (candidates within %.1f px)\n", probe.x, probe.y, reach)
            for e in entries[p] {
                var line = "    " + e.step.padding(toLength: 31, withPad: " ", startingAt: 0) + String(format: "%4d  ", e.near)
                if let n = e.nearest {
                    line += String(format: "%7.1f %7.1f  r %4.1f  d %4.1f", n.x, n.y, n.r, n.distance)
                    if !n.note.isEmpty { line += "  " + n.note }
                }
                out += line + "\n"
            }
            out += "    " + (lostAt(probe: p).map { "lost at: \($0)" } ?? "kept") + "\n"
        }
        return out
    }

    /// The trace as JSON: one object per probe with its steps (positions rounded to 0.01 px).
    public var jsonValue: JSONValue {
        func round(_ v: Double) -> JSONValue { .double((v * 100).rounded() / 100) }
        return .array(probes.indices.map { p in
            var object = JSONObject()
            object.set("x", round(probes[p].x))
            object.set("y", round(probes[p].y))
            object.set("reach", round(reach))
            object.set("lostAt", lostAt(probe: p).map { .string($0) } ?? .null)
            object.set("steps", .array(entries[p].map { e in
                var step = JSONObject()
                step.set("step", .string(e.step))
                step.set("near", .int(Int64(e.near)))
                if let n = e.nearest {
                    step.set("nearest", .object(["x": round(n.x), "y": round(n.y), "r": round(n.r),
                                                 "distance": round(n.distance), "note": .string(n.note)]))
                } else {
                    step.set("nearest", .null)
                }
                return .object(step)
            }))
            return .object(object)
        })
    }
}
