import Foundation

/// Which shifted copies `lineSubtractedEvidence` subtracts: both, or the one at `+step` or at
/// `-step` only (when the other may hold another cell).
enum LineSide { case both, forward, backward }

/// The boundary test (`RadialEdgeField.evidence`) on what a straight line does not explain:
/// each sample minus the mean of the samples a whole-pixel `step` along the line on either
/// side (the one side that is inside the plane, at its border).
///
/// Why: a cell lying on a triple line, at the working scale, sits wholly inside the line's
/// band; the band's edges face its centre along the grid normals and the arcs of its own rim
/// that cross the band run along the other ruling direction, so most of its facing boundary
/// is grid-aligned, as a line leftover's is, and the boundary test drops it. A straight line
/// (its strokes, gaps and sharp edges) is the same a step on and vanishes here; the cell is
/// not and keeps its whole rim; a line arriving from the side (a T-junction) is left as a
/// line's end, which faces the centre from a few sectors only. The mean of the two sides
/// cancels a profile drifting linearly along the line, and a step that strays `d` pixels
/// across the line leaves a residue of order `d^2` (the two sides stray opposite ways).
///
/// - Parameters:
///   - plane: smoothed log luminance.
///   - x, y, r: candidate centre and radius, plane pixels.
///   - step: whole-pixel step along the line (`LineSteps`), longer than the 1.6 r the test
///     reads plus a radius (more than 2.6 r), so that the shifted copies of the cell fall
///     outside the annulus.
///   - threshold: gradient magnitude, plane units per pixel. The difference has 1.5 times
///     (one side: twice) the noise variance of the plane; callers scale the plane's threshold.
///   - gridNormals: as for `RadialEdgeField.evidence`.
///   - side: which shifted copies may be subtracted (`.both`: both where inside the plane).
/// - Returns: coverage (of all sectors: at the border, divide by `visibleSectorShare`) and
///   grid-aligned share, or nil when the centre is outside the plane or every allowed
///   shifted copy of the window leaves it.
func lineSubtractedEvidence(_ plane: Plane, x: Double, y: Double, r: Double, step: (dx: Int, dy: Int),
                            threshold: Float, gridNormals: [Double], side: LineSide = .both)
    -> (coverage: Double, gridAligned: Double)? {
    // The evidence reads 1.6 r around the centre and one pixel more for its gradients.
    let reach = 1.6 * r + 2
    let w = plane.width, h = plane.height
    // Compared as doubles first (NaN fails too): an integer conversion of a coordinate far
    // outside traps.
    // At the border the window is cut to the plane, as the boundary test's is (callers divide
    // the coverage by `visibleSectorShare`).
    guard r > 0, x >= 0, y >= 0, x <= Double(w - 1), y <= Double(h - 1) else { return nil }
    let x0 = max(0, Int((x - reach).rounded(.down))), x1 = min(w - 1, Int((x + reach).rounded(.up)))
    let y0 = max(0, Int((y - reach).rounded(.down))), y1 = min(h - 1, Int((y + reach).rounded(.up)))
    guard x0 < x1, y0 < y1 else { return nil }
    func inside(_ sx: Int, _ sy: Int) -> Bool { x0 + sx >= 0 && x1 + sx < w && y0 + sy >= 0 && y1 + sy < h }
    let forward = side != .backward && inside(step.dx, step.dy)
    let backward = side != .forward && inside(-step.dx, -step.dy)
    guard forward || backward else { return nil }
    let pw = x1 - x0 + 1, ph = y1 - y0 + 1
    let offset = step.dy * w + step.dx
    let residual = plane.data.withUnsafeBufferPointer { d in
        Plane(width: pw, height: ph, filling: { out in
            for py in 0..<ph {
                let row = (y0 + py) * w + x0
                for px in 0..<pw {
                    let i = row + px
                    let reference = forward && backward ? 0.5 * (d[i + offset] + d[i - offset])
                        : forward ? d[i + offset] : d[i - offset]
                    out[py * pw + px] = d[i] - reference
                }
            }
        })
    }
    let e = RadialEdgeField(residual).evidence(x: x - Double(x0), y: y - Double(y0), r: r, threshold: threshold,
                                               gridNormals: gridNormals)
    return (e.coverage, e.gridAligned)
}

/// The shifted copies `lineSubtractedEvidence` may subtract at (x, y) without another cell's
/// rim in them: a side is clear when its disc (the 1.6 r the test reads, a pixel more) meets
/// none of `others`. A neighbour there would show in the difference, so a cell in a clump
/// along a line would be judged by its neighbours. nil when neither side is clear.
///
/// - Parameters:
///   - x, y, r: candidate centre and radius, plane pixels.
///   - step: the whole-pixel step along the line.
///   - others: the other candidates (centre and radius, same pixels).
func clearSides(x: Double, y: Double, r: Double, step: (dx: Int, dy: Int), others: [Candidate]) -> LineSide? {
    func clear(_ sign: Double) -> Bool {
        let sx = x + sign * Double(step.dx), sy = y + sign * Double(step.dy)
        return !others.contains { o in
            let reach = 1.6 * r + o.r + 1
            return (o.x - sx) * (o.x - sx) + (o.y - sy) * (o.y - sy) < reach * reach
        }
    }
    switch (clear(1), clear(-1)) {
    case (true, true): return .both
    case (true, false): return .forward
    case (false, true): return .backward
    case (false, false): return nil
    }
}

/// The line-subtracted boundary test of a candidate along one ruling line, from the sides of
/// the line free of other candidates (`clearSides`): how the candidates stage asks whether a
/// candidate on a line (`dropLineResidue`) or on a crossing (`cellsOnCrossings`) has a rim of
/// its own.
struct ClearSideRimTest {
    /// Smoothed log luminance.
    let plane: Plane
    /// The plane's boundary threshold (gradient magnitude).
    let threshold: Float
    let gridNormals: [Double]
    /// The boundary test's limits (`minEdgeCoverage`, `maxGridAlignedEdges`).
    let minCoverage: Double
    let maxGridAligned: Double
    /// Coverage counted over the sectors in view (`borderCells`).
    let borderCells: Bool

    /// `showsRim(_:step:others:)` with the step along `line` that `lineSubtraction` uses:
    /// 2.7 ... 4 radii, so that the shifted copies of the cell fall outside what the test
    /// reads; nil too when the line has no such step.
    func showsRim(_ c: Candidate, along line: LineSteps, others: [Candidate]) -> Bool? {
        line.step(minLength: 2.7 * c.r, maxLength: 4 * c.r).flatMap { showsRim(c, step: $0, others: others) }
    }

    /// Whether the rim shows with the line along `step` subtracted; nil when that cannot be
    /// told (another candidate on both sides, or the window's shifted copies leave the plane).
    func showsRim(_ c: Candidate, step: (dx: Int, dy: Int), others: [Candidate]) -> Bool? {
        guard let side = clearSides(x: c.x, y: c.y, r: c.r, step: step, others: others) else { return nil }
        // The difference carries 1.5 times the plane's noise variance, one side's twice.
        let variance: Float = side == .both ? 1.5 : 2
        guard let e = lineSubtractedEvidence(plane, x: c.x, y: c.y, r: c.r, step: step,
                                             threshold: threshold * variance.squareRoot(),
                                             gridNormals: gridNormals, side: side) else { return nil }
        let visible = borderCells ? visibleSectorShare(x: c.x, y: c.y, r: c.r, width: plane.width, height: plane.height) : 1
        return e.coverage / visible >= minCoverage && e.gridAligned <= maxGridAligned
    }
}

/// The candidates other than `candidates[index]` whose centres lie within `reach` of its centre
/// in both axes (those a shifted disc of `clearSides` can meet, for `reach` >= 4 r + 2.6 r).
func neighbours(of index: Int, in candidates: [Candidate], reach: Double) -> [Candidate] {
    let c = candidates[index]
    return candidates.indices.filter { $0 != index && abs(candidates[$0].x - c.x) < reach && abs(candidates[$0].y - c.y) < reach }
        .map { candidates[$0] }
}
