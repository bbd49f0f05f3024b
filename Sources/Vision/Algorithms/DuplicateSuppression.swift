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

/// When two detections are one cell for duplicate suppression: circle IoU above `maxIoU`, or
/// centres closer than `minCentreDistance` times the larger radius.
struct OverlapRule {
    let maxIoU: Double
    let minCentreDistance: Double

    func conflict(_ d: Detection, _ k: Detection) -> Bool {
        let limit = minCentreDistance * max(d.r, k.r)
        return (d.x - k.x) * (d.x - k.x) + (d.y - k.y) * (d.y - k.y) < limit * limit
            || circleIoU(x1: d.x, y1: d.y, r1: d.r, x2: k.x, y2: k.y, r2: k.r) > maxIoU
    }
}

/// Detections bucketed in a coarse grid, so that finding those that may overlap one stays
/// near-linear on dense images. A bucket is twice the largest radius wide: two detections
/// that overlap (centres closer than the sum of their radii, or than `OverlapRule`'s
/// distance, at most twice the larger radius) lie in neighbouring buckets.
struct NeighbourGrid {
    private let cell: Double
    private var buckets: [Int64: [Int]] = [:]

    init(largestRadius: Double) { cell = max(1, 2 * largestRadius) }

    private func key(_ bx: Int, _ by: Int) -> Int64 { Int64(bx) << 32 | Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: by))) }
    private func bucket(_ d: Detection) -> (Int, Int) { (Int((d.x / cell).rounded(.down)), Int((d.y / cell).rounded(.down))) }

    mutating func insert(_ i: Int, _ d: Detection) {
        let (bx, by) = bucket(d)
        buckets[key(bx, by), default: []].append(i)
    }

    mutating func remove(_ i: Int, _ d: Detection) {
        let (bx, by) = bucket(d)
        buckets[key(bx, by)]?.removeAll { $0 == i }
    }

    /// Whether some index in the 3 x 3 buckets round `d`'s satisfies `predicate`.
    func contains(near d: Detection, where predicate: (Int) -> Bool) -> Bool {
        var found = false
        visit(near: d) { i in
            found = predicate(i)
            return !found
        }
        return found
    }

    /// The one index in the 3 x 3 buckets round `d`'s that satisfies `predicate`; nil when none
    /// or more than one does.
    func only(near d: Detection, where predicate: (Int) -> Bool) -> Int? {
        var match: Int?, count = 0
        visit(near: d) { i in
            guard predicate(i) else { return true }
            match = i
            count += 1
            return count < 2
        }
        return count == 1 ? match : nil
    }

    /// Calls `body` with each index in the 3 x 3 buckets round `d`'s until it returns false.
    private func visit(near d: Detection, _ body: (Int) -> Bool) {
        let (bx, by) = bucket(d)
        for ny in (by - 1)...(by + 1) {
            for nx in (bx - 1)...(bx + 1) {
                guard let bucket = buckets[key(nx, ny)] else { continue }
                for i in bucket where !body(i) { return }
            }
        }
    }
}

/// Greedy non-maximum suppression: those centred on their cell first (`Detection.centred`),
/// then most boundary evidence (`Detection.coverage`; of two candidates for one cell, one
/// pushed off centre by a neighbour or a highlight sees less of the rim), then strongest
/// detector response; a detection is dropped when its circle IoU
/// with an already kept one exceeds `maxIoU`, or when the two centres are closer than
/// `minCentreDistance` times the larger radius (a small second peak inside a large cell has a
/// low IoU with it but cannot be a cell of its own: even clumped cells sit about a radius
/// apart). Ties in score keep the earlier one (stable).
///
/// - Parameter twoCellsApart: when given, a kept detection that spans two it suppressed gives
///   way to them where this says a boundary lies between them (`splitSpanningPairs`).
public func suppressOverlaps(_ detections: [Detection], maxIoU: Double, minCentreDistance: Double = 0,
                             twoCellsApart: ((Detection, Detection) -> Bool)? = nil) -> [Detection] {
    let order = detections.indices.sorted {
        let a = detections[$0], b = detections[$1]
        return (a.centred ? 1 : 0, a.coverage, a.score, -$0) > (b.centred ? 1 : 0, b.coverage, b.score, -$1)
    }
    let rule = OverlapRule(maxIoU: maxIoU, minCentreDistance: minCentreDistance)
    var grid = NeighbourGrid(largestRadius: detections.map(\.r).max() ?? 1)
    var kept: [Int] = []
    for i in order {
        let d = detections[i]
        if grid.contains(near: d, where: { rule.conflict(d, detections[$0]) }) { continue }
        kept.append(i)
        grid.insert(i, d)
    }
    if let twoCellsApart {
        kept = splitSpanningPairs(detections, kept: kept, order: order, rule: rule, grid: &grid, twoCellsApart: twoCellsApart)
    }
    // Output in a stable reading order: top to bottom, left to right.
    return kept.map { detections[$0] }.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
}
