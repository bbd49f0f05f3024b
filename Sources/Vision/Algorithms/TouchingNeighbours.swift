import Foundation

/// Which of 16 sectors round a candidate face a neighbour that touches it.
///
/// Why: a cell in a clump shows no boundary where it meets a neighbour of the same kind (two
/// dead cells' stain runs on from one into the other), so a boundary test counting sectors
/// finds it short by the sectors its neighbours fill. A neighbour touches when its centre lies
/// `nearest` ... `farthest` radii away (touching cells of equal size sit two radii apart; the
/// synthetic sets draw them overlapping down to 1.5) and its radius is within
/// `maxRadiusRatio` of the candidate's (a fragment of a larger cell beside that cell is not
/// a cell beside a cell). The sector holding the neighbour's direction and one either side
/// are marked: a touching neighbour of equal size fills about 60 degrees of the view.
struct TouchingNeighbours {
    static let nearest = 1.3
    static let farthest = 2.6
    static let maxRadiusRatio = 1.6
    /// Sectors marked either side of the neighbour's.
    static let spread = 1

    /// - Parameters:
    ///   - c: the candidate.
    ///   - neighbours: the candidates it may touch (the same pixels); `c` itself and those out
    ///     of reach are skipped.
    ///   - accepts: whether a neighbour within reach counts (its kind, what lies between).
    /// - Returns: 16 flags, sector k spanning angles k ... k + 1 times 22.5 degrees (as
    ///   `radialEdgeCoverage`'s).
    static func sectors(of c: Candidate, among neighbours: [Candidate], accepts: (Candidate) -> Bool) -> [Bool] {
        sectors(x: c.x, y: c.y, r: c.r, among: neighbours, position: { ($0.x, $0.y, $0.r) }, accepts: accepts)
    }

    /// `sectors(of:among:accepts:)` for any kind of neighbour, placed by `position` (x, y, r
    /// in the candidate's pixels).
    static func sectors<Neighbour>(x: Double, y: Double, r: Double, among neighbours: [Neighbour],
                                   position: (Neighbour) -> (x: Double, y: Double, r: Double),
                                   accepts: (Neighbour) -> Bool) -> [Bool] {
        var facing = [Bool](repeating: false, count: 16)
        let locate = SectorLocator(sectors: 16)
        let near = nearest * r, far = farthest * r
        for n in neighbours {
            let p = position(n)
            let dx = p.x - x, dy = p.y - y
            let d2 = dx * dx + dy * dy
            guard d2 >= near * near, d2 <= far * far,
                  p.r <= maxRadiusRatio * r, r <= maxRadiusRatio * p.r, accepts(n) else { continue }
            let k = locate(dx: dx, dy: dy)
            for o in -spread...spread { facing[(k + o + 16) % 16] = true }
        }
        return facing
    }
}
