/// Duplicate suppression's second look: a kept detection whose circle spans two touching
/// cells gives way to the two.
///
/// Why: in a clump, the centre vote may settle between two touching cells with a radius that
/// takes in both (their outer rims face its centre all round, so its coverage is full), and
/// greedy suppression then drops the two cells' own candidates for it. Of the independent
/// synthetic draws' false detections, a third lay 0.5 to 1.5 radii from a missed cell, many
/// of them such circles.
///
/// A kept detection K gives way to two suppressed detections A and B when
/// - each overlaps K and no other kept detection, and not each other (`rule`);
/// - neither is larger than K, and both are centred on a cell (`Detection.centred`: its rim
///   draws one circle about it, or it is stained): two halves of one cell are not;
/// - K's centre lies between them (inside the circle on A–B as diameter);
/// - `twoCellsApart(A, B)`: the image shows a boundary between them (`junctionDip`).
///
/// Candidates are taken in suppression order (`order`), the first pair that qualifies wins,
/// and detections put in by an earlier swap count as kept for the later ones.
///
/// - Parameters:
///   - detections: all candidates of the image.
///   - kept: the greedy pass's survivors (indices into `detections`), in `order`.
///   - order: every index, best first.
///   - grid: the kept detections, bucketed; updated with the swaps.
/// - Returns: the kept indices after the swaps.
func splitSpanningPairs(_ detections: [Detection], kept: [Int], order: [Int], rule: OverlapRule,
                        grid: inout NeighbourGrid, twoCellsApart: (Detection, Detection) -> Bool) -> [Int] {
    var isKept = [Bool](repeating: false, count: detections.count)
    for k in kept { isKept[k] = true }
    // The suppressed detections that overlap exactly one kept detection, under it, in order
    // (only the centred: no other may take a place).
    var suppressedBy = [[Int]](repeating: [], count: detections.count)
    for i in order where detections[i].centred && !isKept[i] {
        let d = detections[i]
        if let k = grid.only(near: d, where: { rule.conflict(d, detections[$0]) }) { suppressedBy[k].append(i) }
    }
    var result = kept
    for (slot, k) in kept.enumerated() {
        let under = suppressedBy[k]
        guard under.count >= 2 else { continue }
        let span = detections[k]
        grid.remove(k, span)
        func fits(_ i: Int) -> Bool {
            let d = detections[i]
            return d.r <= span.r && !grid.contains(near: d) { rule.conflict(d, detections[$0]) }
        }
        let fitting = under.filter(fits)
        var pair: (Int, Int)?
        search: for (n, a) in fitting.enumerated() {
            for b in fitting[(n + 1)...] {
                let da = detections[a], db = detections[b]
                let mx = (da.x + db.x) / 2 - span.x, my = (da.y + db.y) / 2 - span.y
                let ab2 = (da.x - db.x) * (da.x - db.x) + (da.y - db.y) * (da.y - db.y)
                guard 4 * (mx * mx + my * my) < ab2, !rule.conflict(da, db), twoCellsApart(da, db) else { continue }
                pair = (a, b)
                break search
            }
        }
        guard let (a, b) = pair else {
            grid.insert(k, span)
            continue
        }
        result[slot] = a
        result.append(b)
        grid.insert(a, detections[a])
        grid.insert(b, detections[b])
    }
    return result
}
