import JSON
import Hemocytometer

extension PipelineResult {
    /// The result as JSON: detections, counts, calibration, quality, stage timings and the timed
    /// steps inside stages. Numbers are rounded (0.01 px, 1e-4 score/confidence, microseconds)
    /// so that output is stable and readable.
    public var jsonValue: JSONValue {
        func round(_ v: Double, _ digits: Double) -> JSONValue {
            guard v.isFinite else { return .null }
            return .double((v * digits).rounded() / digits)
        }
        var object = JSONObject()
        object.set("width", .int(Int64(width)))
        object.set("height", .int(Int64(height)))
        var counts = JSONObject()
        counts.set("total", .int(Int64(count.total)))
        counts.set("live", .int(Int64(count.live)))
        counts.set("dead", .int(Int64(count.dead)))
        counts.set("squares", .array(count.squares.map { s in
            .object(["row": .int(Int64(s.square.row)), "column": .int(Int64(s.square.column)),
                     "total": .int(Int64(s.total)), "live": .int(Int64(s.live)), "dead": .int(Int64(s.dead)),
                     "robustZ": round(s.robustZ, 1000), "rejected": .bool(s.rejected)])
        }))
        counts.set("meanPerSquare", count.meanPerSquare.map { round($0, 1000) } ?? .null)
        counts.set("concentrationPerML", count.concentrationPerML.map { round($0, 1) } ?? .null)
        counts.set("viabilityPercent", count.viabilityPercent.map { round($0, 100) } ?? .null)
        object.set("counts", .object(counts))
        if let grid {
            object.set("grid", .object([
                "umPerPixel": round(grid.umPerPixel, 10000),
                "angleDegrees": round(grid.angleDegrees, 1000),
                "corners": .array(grid.corners.map { .array([round($0.x, 100), round($0.y, 100)]) }),
                "imageToChamber": .array(grid.imageToChamber.map { round($0, 1e9) }),
            ]))
        } else {
            object.set("grid", .null)
        }
        // The calibration in effect: the ruling's, or the configured one without a ruling.
        object.set("umPerPixel", umPerPixel.map { round($0, 10000) } ?? .null)
        object.set("focusScore", round(focusScore, 1000))
        object.set("glareRatio", round(glareRatio, 1e6))
        object.set("flags", .array(flags.map { .string($0) }))
        object.set("timings", .array(timings.map { t in
            .object(["stage": .string(t.name), "wallMs": round(t.wallSeconds * 1000, 1000),
                     "cpuMs": round(t.cpuSeconds * 1000, 1000)])
        }))
        object.set("steps", .array(steps.map { t in
            .object(["stage": .string(t.stage), "step": .string(t.step), "wallMs": round(t.wallSeconds * 1000, 1000),
                     "cpuMs": round(t.cpuSeconds * 1000, 1000)])
        }))
        object.set("detections", .array(detections.map { d in
            .object(["x": round(d.x, 100), "y": round(d.y, 100), "r": round(d.r, 100),
                     "label": .string(d.cellClass.rawValue), "score": round(d.score, 10000),
                     "confidence": round(d.confidence, 10000), "coverage": round(d.coverage, 10000)])
        }))
        return .object(object)
    }
}
