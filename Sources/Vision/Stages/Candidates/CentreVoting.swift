import Foundation

/// The pre-vote rim filter's verdict on one candidate (kept, and the evidence for a trace).
struct PreVoteVerdict {
    let kept: Bool
    let coverage: Double
    let aligned: Double
}

/// The rim filter before the centre vote (`verdict`).
struct PreVoteFilter {
    let maps: CandidateMaps
    let edges: CandidateMaps.EdgeMap

    /// Nil when it does not run: without centre voting, or with the boundary test off.
    init?(_ maps: CandidateMaps) {
        guard maps.config.voteCentres, let edges = maps.edges else { return nil }
        self.maps = maps
        self.edges = edges
    }

    /// Before the centre vote, on the full-resolution image (a working pixel is a sizeable part
    /// of a small cell): candidates with hardly any boundary around them (noise, line leftovers:
    /// most of the DoG peaks) cannot pass the boundary test wherever their centre moves, so
    /// they are dropped instead of costing a vote each. 70% of the coverage a cell needs (its
    /// centre may be off: 9 of 16 sectors at the default 12), and not mostly a ruling's edges:
    /// a line leftover faces the candidate almost only along the grid normals (a cell's rim
    /// about 22% of its length), wherever it moves. A bright spot needs 60% (8 sectors): its
    /// centre is its core's, often further off, and the vote re-centres it on the cell (the
    /// clear cells on lines that `holeSpots` finds). (Half let 1.7x as many candidates vote
    /// for 0.2% more cells on the synthetic sets, and for debris on blank controls. 60% for
    /// every candidate until the twelfth session: the ninth sector costs a few cells and saves
    /// more false detections, F1 level or up on every synthetic set but `cellqa synth` main
    /// (-0.0002), and 4% of a `standard` image's pipeline instructions.)
    func verdict(_ c: Candidate) -> PreVoteVerdict {
        let config = maps.config, gridNormals = maps.gridNormals
        let floor = (c.brightSpot ? 0.6 : 0.7) * config.minEdgeCoverage, maxAligned = 0.8
        let e = edges.field.evidence(x: c.x, y: c.y, r: c.r, threshold: edges.threshold, gridNormals: gridNormals)
        let visible = maps.visibleShare(c)
        let kept = (e.coverage / visible >= floor && e.gridAligned <= maxAligned)
            || (maps.stain?.coverage(of: c) ?? 0) / visible >= floor
        return PreVoteVerdict(kept: kept, coverage: e.coverage / visible, aligned: e.gridAligned)
    }
}

extension CandidateMaps {

    /// A candidate voted with the line subtracted, voted again on the image from where the
    /// detector put it (`detected`), at its voted radius.
    func plainVote(_ voted: Candidate, from detected: Candidate) -> Candidate {
        let start = imagePosition(detected)
        var scratch = VoteScratch()
        let c = voteCentre(image, x: start.x, y: start.y, r: voted.r * s, scratch: &scratch)
        var plain = voted
        plain.x = working.toWorking(c.x)
        plain.y = working.toWorking(c.y)
        plain.votedAlongLine = false
        plain.boundary = nil
        return plain
    }

    /// The index into `rulingAngles` of the line a working-scale candidate lies on: removed
    /// line of `crossingLineContrast` or more at its centre, along the direction whose line is
    /// the stronger there (`lineStrength`); nil off the lines.
    func lineUnder(_ c: Candidate) -> Int? {
        guard config.crossingLineContrast > 0, isOnLine(c) else { return nil }
        let strengths = rulingAngles.map { lineStrength(contrast, x: c.x, y: c.y, angle: $0, halfLength: length / 2) }
        guard let k = strengths.indices.max(by: { strengths[$0] < strengths[$1] }),
              strengths[k] >= Float(config.crossingLineContrast) else { return nil }
        return k
    }

    /// Every candidate's centre re-voted by its boundary on the full-resolution image
    /// (`voteCentre`), in spatial order; working pixels in and out.
    func voteCentres(_ found: inout [Candidate]) {
        var scratch = VoteScratch()
        let quiet = grid == nil ? QuietDirections.none
            : QuietDirections(normals: gridNormals, maxAngleDeg: config.quietRulingEdgesDeg, lines: separated.lines,
                              working: working, level: config.crossingLineContrast)
        // Steps along each ruling direction in image pixels, for the line-subtracted votes.
        let lineSteps = config.lineSubtractedVotes && grid != nil
            ? rulingAngles.map { LineSteps(angle: $0, maxLength: 4 * config.maxRadiusPx, tolerance: 0.1) } : []
        // Where the detector put them, for the clump test of a third vote.
        let detected = CandidatesByColumn(found)
        for i in spatialOrder(found) {
            let (x0, y0, r0) = imagePosition(found[i])
            let line = lineSteps.isEmpty ? nil : lineUnder(found[i])
            func step(_ r: Double) -> PixelStep? {
                line.flatMap { lineSteps[$0].step(minLength: 2.7 * r, maxLength: 4 * r) }.map { PixelStep(dx: $0.dx, dy: $0.dy) }
            }
            var r = r0
            var lineStep = step(r)
            // Ruling edges are silenced only for a candidate whose centre lies off the lines:
            // one on a line (the line subtracted cancels its edges there) or inside a triple
            // line's band has its own rim on the line.
            let offLines = grid != nil && lineUnderCentre(found[i]) < Float(0.5 * config.crossingLineContrast)
            let quietHere = offLines ? quiet : .none
            var c = voteCentre(image, x: x0, y: y0, r: r, scratch: &scratch, lineStep: lineStep, quiet: quietHere)
            // Every vote after the first starts from the detector's centre again, at a larger radius.
            func revote(at radius: Double) {
                r = min(radius, config.maxRadiusPx)
                lineStep = step(r)
                c = voteCentre(image, x: x0, y: y0, r: r, scratch: &scratch, lineStep: lineStep, quiet: quietHere)
            }
            // A radius the detector underestimated (a split half, a cell shrunk by a
            // neighbouring line) puts the cell's rim outside the voting annulus and its
            // centre outside the search disc: vote again at the measured boundary radius.
            // Measured where the vote went and, when that shows no larger boundary, where
            // the detector put the centre: a vote at too small a radius can stray off the
            // cell (a big live cell found by its bright centre alone), where the
            // boundary no longer looks larger. (A vote that stayed within a pixel measures
            // the same boundary: not measured twice.)
            let larger = 1.15 * r
            var b = boundaryRadius(image, x: c.x, y: c.y, r: r)
            if b <= larger, (c.x - x0) * (c.x - x0) + (c.y - y0) * (c.y - y0) > 1 {
                let atStart = boundaryRadius(image, x: x0, y: y0, r: r)
                if atStart > larger { b = atStart }
            }
            if b > larger {
                revote(at: b)
                // Still too small where the second vote went (the measure reaches 1.6 radii):
                // once more at the larger radius, away from clumps. A neighbour within the
                // reach of the smallest radius that qualifies rules it out before the boundary
                // is measured.
                let clump = config.revoteIsolationRadii
                if clump > 0, r < config.maxRadiusPx, !detected.anyOther(than: i, within: clump * (1.1 * r) / s) {
                    let grown = boundaryRadius(image, x: c.x, y: c.y, r: r)
                    if grown > 1.1 * r, !detected.anyOther(than: i, within: clump * grown / s) { revote(at: grown) }
                }
                found[i].r = r / s
            } else {
                found[i].boundary = BoundaryMeasurement(x: c.x, y: c.y, r: r, radius: b)
            }
            found[i].votedAlongLine = lineStep != nil
            found[i].x = working.toWorking(c.x)
            found[i].y = working.toWorking(c.y)
        }
    }
}

/// Candidates ordered by x, for "is any other within this distance" (the third vote's clump
/// test) without a pass over all of them.
private struct CandidatesByColumn {
    private let candidates: [Candidate]
    /// Indices into `candidates`, by x.
    private let order: [Int]

    init(_ candidates: [Candidate]) {
        self.candidates = candidates
        order = candidates.indices.sorted { candidates[$0].x < candidates[$1].x }
    }

    /// Whether a candidate other than the `index`th lies closer than `reach` to it (working pixels).
    func anyOther(than index: Int, within reach: Double) -> Bool {
        let c = candidates[index]
        // The first in x order at or past c.x - reach.
        var lo = 0, hi = order.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if candidates[order[mid]].x < c.x - reach { lo = mid + 1 } else { hi = mid }
        }
        for k in order[lo...] {
            let o = candidates[k]
            if o.x > c.x + reach { break }
            let dx = o.x - c.x, dy = o.y - c.y
            if k != index && dx * dx + dy * dy < reach * reach { return true }
        }
        return false
    }
}
