/// Stage 6: duplicate detections (several scales, touching maxima) become one.
struct NMSStage: Stage {
    let name = "nms"

    func run(_ frame: inout Frame) throws {
        let flat = frame.flat, scale = frame.scale, dip = frame.config.nmsSpanningPairDip
        let twoCellsApart: ((Detection, Detection) -> Bool)? = dip > 0 ? { a, b in
            junctionDip(flat, scale: scale, from: (a.x, a.y), to: (b.x, b.y)) <= -dip
        } : nil
        frame.detections = suppressOverlaps(frame.detections, maxIoU: frame.config.nmsIoU,
                                            minCentreDistance: frame.config.nmsMinCentreDistance,
                                            twoCellsApart: twoCellsApart)
        frame.trace?.record("duplicate suppression", frame.detections, position: { ($0.x, $0.y, $0.r) }) { d in
            "coverage \(fmt(d.coverage)), score \(fmt(d.score))" + (d.centred ? ", centred" : "")
        }
    }
}
