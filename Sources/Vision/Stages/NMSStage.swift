import Foundation

/// Intersection over union of two discs (centres and radii in the same units).
public func circleIoU(x1: Double, y1: Double, r1: Double, x2: Double, y2: Double, r2: Double) -> Double {
    let d = ((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2)).squareRoot()
    guard r1 > 0, r2 > 0 else { return 0 }
    if d >= r1 + r2 { return 0 }
    let a1 = Double.pi * r1 * r1, a2 = Double.pi * r2 * r2
    if d <= abs(r1 - r2) { return min(a1, a2) / max(a1, a2) }
    let c1 = (d * d + r1 * r1 - r2 * r2) / (2 * d * r1), c2 = (d * d + r2 * r2 - r1 * r1) / (2 * d * r2)
    let inter = r1 * r1 * acos(max(-1, min(1, c1))) + r2 * r2 * acos(max(-1, min(1, c2)))
        - 0.5 * ((-d + r1 + r2) * (d + r1 - r2) * (d - r1 + r2) * (d + r1 + r2)).squareRoot()
    return inter / (a1 + a2 - inter)
}

/// Greedy non-maximum suppression: those centred on their cell first (`Detection.centred`),
/// then most boundary evidence (`Detection.coverage`; of two candidates for one cell, one
/// pushed off centre by a neighbour or a highlight sees less of the rim), then strongest
/// detector response; a detection is dropped when its circle IoU
/// with an already kept one exceeds `maxIoU`, or when the two centres are closer than
/// `minCentreDistance` times the larger radius (a small second peak inside a large cell has a
/// low IoU with it but cannot be a cell of its own: even clumped cells sit about a radius
/// apart). Ties in score keep the earlier one (stable).
public func suppressOverlaps(_ detections: [Detection], maxIoU: Double, minCentreDistance: Double = 0) -> [Detection] {
    let order = detections.indices.sorted {
        let a = detections[$0], b = detections[$1]
        return (a.centred ? 1 : 0, a.coverage, a.score, -$0) > (b.centred ? 1 : 0, b.coverage, b.score, -$1)
    }
    // Bucket kept detections in a coarse grid so dense images stay near-linear.
    let maxR = detections.map(\.r).max() ?? 1
    let cell = max(1, 2 * maxR)
    var buckets: [Int64: [Int]] = [:]
    func key(_ bx: Int, _ by: Int) -> Int64 { Int64(bx) << 32 | Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: by))) }
    var kept: [Int] = []
    for i in order {
        let d = detections[i]
        let bx = Int((d.x / cell).rounded(.down)), by = Int((d.y / cell).rounded(.down))
        var overlaps = false
        search: for ny in (by - 1)...(by + 1) {
            for nx in (bx - 1)...(bx + 1) {
                for j in buckets[key(nx, ny)] ?? [] {
                    let k = detections[j]
                    let limit = minCentreDistance * max(d.r, k.r)
                    if (d.x - k.x) * (d.x - k.x) + (d.y - k.y) * (d.y - k.y) < limit * limit
                        || circleIoU(x1: d.x, y1: d.y, r1: d.r, x2: k.x, y2: k.y, r2: k.r) > maxIoU { overlaps = true; break search }
                }
            }
        }
        if overlaps { continue }
        kept.append(i)
        buckets[key(bx, by), default: []].append(i)
    }
    // Output in a stable reading order: top to bottom, left to right.
    return kept.map { detections[$0] }.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
}

/// Stage 6: duplicate detections (several scales, touching maxima) become one.
struct NMSStage: Stage {
    let name = "nms"

    func run(_ frame: inout Frame) throws {
        frame.detections = suppressOverlaps(frame.detections, maxIoU: frame.config.nmsIoU,
                                            minCentreDistance: frame.config.nmsMinCentreDistance)
        frame.trace?.record("duplicate suppression", frame.detections, position: { ($0.x, $0.y, $0.r) }) { d in
            "coverage \(fmt(d.coverage)), score \(fmt(d.score))" + (d.centred ? ", centred" : "")
        }
    }
}
