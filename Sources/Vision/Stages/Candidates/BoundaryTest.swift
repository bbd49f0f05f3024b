import Foundation

/// The boundary test: a cell's rim faces its centre all the way round; line leftovers,
/// crossings, specks and spots between cells do not. Runs on working-scale candidates after
/// the centre vote, where the boundary evidence is on (`CandidateMaps.edges`).
struct BoundaryTest {
    let maps: CandidateMaps
    let edges: CandidateMaps.EdgeMap
    /// Whether a trace is recorded (the line-shift residuals are formed only then).
    let tracing: Bool
    /// The residual of `lineSubtractedEvidence` carries 1.5 times the plane's noise variance.
    private let subtractedThreshold: Float
    private let lineShiftLimit: Double
    private let lineSteps: [LineSteps]
    /// The rim tests on the full-resolution image (`fineRimMaxRadiusPx`, `roundRimShortfall`).
    private let fullResolution: FineRimTest
    /// Whether small candidates one sector short are tested at full resolution.
    private let testsFineRims: Bool
    /// The coverage the round-rim test starts at (`roundRimShortfall`; above 1: off).
    private let roundRimCoverage: Double
    private let oneSectorShort: Double
    /// A ray of open background dips below zero somewhere by noise alone (`rimOpenNoise`).
    private let rimOpenLevel: Float

    init?(_ maps: CandidateMaps, tracing: Bool) {
        guard let edges = maps.edges else { return nil }
        let config = maps.config
        self.maps = maps
        self.edges = edges
        self.tracing = tracing
        subtractedThreshold = edges.threshold * Float(1.5).squareRoot()
        // Noise sigma of the smoothed log luminance (line-shift test, open rays).
        let noise = config.lineShiftRatio > 0 || config.rimOpenNoise > 0 ? Double(sampleNoise(edges.smoothLog)) : 0
        // The residual of a disc on a plain line: 1.5 times the noise variance.
        lineShiftLimit = config.lineShiftRatio * 1.5 * noise * noise
        lineSteps = lineShiftLimit > 0
            ? maps.rulingAngles.map { LineSteps(angle: $0, maxLength: 4 * maps.maxR, tolerance: 0.1) } : []
        // A small cell's rim is too few working pixels round for every sector to show it: a
        // candidate of at most `fineRimMaxRadiusPx` one sector short of the coverage is
        // tested again on the full-resolution image, with a dark ring all round its centre.
        fullResolution = FineRimTest(image: maps.image, sigma: config.edgeSmoothingPx * maps.s, threshold: edges.threshold,
                                     ringDepth: Float(config.fineRimRingDepth))
        testsFineRims = maps.scale > 1 && config.fineRimMaxRadiusPx > 0
        oneSectorShort = config.minEdgeCoverage - 1.0 / 16
        roundRimCoverage = config.roundRimShortfall > 0 && config.rimCentringAgreement > 0
            ? config.minEdgeCoverage - Double(config.roundRimShortfall) / 16 - 1e-9 : 2
        rimOpenLevel = -Float(config.rimOpenNoise * noise)
    }

    private var config: PipelineConfig { maps.config }

    private func passesRim(coverage: Double, aligned: Double) -> Bool {
        coverage >= config.minEdgeCoverage && aligned <= config.maxGridAlignedEdges
    }

    /// A candidate on a ruling line: its rim with the line subtracted, along the ruling
    /// direction where it shows best (the step it was seen with), or nil when it shows along
    /// neither. `margin`: coverage asked beyond the boundary test's.
    func rimOnLine(_ c: Candidate, margin: Double) -> (coverage: Double, aligned: Double, step: PixelStep)? {
        guard !maps.subtractionSteps.isEmpty, maps.isOnLine(c) else { return nil }
        var best: (coverage: Double, aligned: Double, step: PixelStep)?
        for steps in maps.subtractionSteps {
            guard let step = steps.step(minLength: 2.7 * c.r, maxLength: 4 * c.r),
                  let e = lineSubtractedEvidence(edges.smoothLog, x: c.x, y: c.y, r: c.r, step: step,
                                                 threshold: subtractedThreshold, gridNormals: maps.gridNormals)
            else { continue }
            let coverage = e.coverage / maps.visibleShare(c)
            guard passesRim(coverage: coverage - margin, aligned: e.gridAligned) else { continue }
            // A cell a step away leaves its copy, negated, around this centre.
            let ghost = [1.0, -1.0].contains { sign in
                let there = edges.field.evidence(x: c.x + sign * Double(step.dx), y: c.y + sign * Double(step.dy),
                                                 r: c.r, threshold: edges.threshold, gridNormals: maps.gridNormals)
                return passesRim(coverage: there.coverage, aligned: there.gridAligned)
            }
            if ghost { continue }
            if best == nil || (coverage, -e.gridAligned) > (best!.coverage, -best!.aligned) {
                best = (coverage, e.gridAligned, PixelStep(dx: step.dx, dy: step.dy))
            }
        }
        return best
    }

    /// `formEvidence`, formed once per position and radius within one candidate's test
    /// (`memo`): the test asks again where the detector put it, after the vote, in the
    /// retests; a candidate that fails asks most (28 % of the asks on a blank control repeat
    /// one, each with its full-resolution rim test).
    private func evidence(_ c: Candidate, roundRimAllowed: Bool = true, memo: inout EvidenceMemo) -> RimEvidence {
        if let known = memo.entries.first(where: { $0.x == c.x && $0.y == c.y && $0.r == c.r && $0.roundRimAllowed == roundRimAllowed }) {
            return known.evidence
        }
        let formed = formEvidence(c, roundRimAllowed: roundRimAllowed)
        memo.entries.append((c.x, c.y, c.r, roundRimAllowed, formed))
        return formed
    }

    /// The rim evidence at a candidate: on the working plane, again at full resolution for a
    /// small cell one sector short, on its round rim a few sectors short, or with the ruling
    /// line subtracted for a rim mostly along the ruling. It depends on the candidate's
    /// position and radius alone.
    /// `circle`: the rim circle the round-rim test measured there (nil: not measured; the test
    /// runs only when `roundRimAllowed`).
    private func formEvidence(_ c: Candidate, roundRimAllowed: Bool) -> RimEvidence {
        let gridNormals = maps.gridNormals
        let e = edges.field.evidence(x: c.x, y: c.y, r: c.r, threshold: edges.threshold, gridNormals: gridNormals)
        let coverage = e.coverage / maps.visibleShare(c)
        let passes = passesRim(coverage: coverage, aligned: e.gridAligned)
        if !passes, testsFineRims, c.r * maps.s <= config.fineRimMaxRadiusPx, coverage >= oneSectorShort - 1e-9 {
            let at = maps.imagePosition(c)
            let fine = fullResolution.evidence(x: at.x, y: at.y, r: at.r, gridNormals: gridNormals)
            let fineCoverage = fine.coverage / maps.visibleShare(c)
            if fineCoverage >= config.fineRimCoverage, fine.gridAligned <= config.maxGridAlignedEdges,
               fine.darkRingSectors >= config.fineRimDarkSectors {
                return (fineCoverage, fine.gridAligned, true, nil, false, nil)
            }
        }
        var circle: RimCircle?? = nil
        if !passes, roundRimAllowed, coverage < config.minEdgeCoverage, coverage >= roundRimCoverage {
            let at = maps.imagePosition(c)
            let measured = RimCircle(maps.image, x: at.x, y: at.y, r: at.r)
            if showsRoundRim(measured, at: at) { return (coverage, e.gridAligned, true, nil, true, measured) }
            circle = measured
        }
        // Rim enough, but mostly along the ruling: a cell inside a line's band shows its own
        // rim once the line is subtracted; a stretch of line shows none. The residue of the
        // line's own edges counts no more than a sector short.
        if !passes, coverage >= config.minEdgeCoverage, let on = rimOnLine(c, margin: config.lineEdgeCoverageMargin) {
            return (on.coverage, on.aligned, true, on.step, false, circle)
        }
        return (coverage, e.gridAligned, passes, nil, false, circle)
    }

    /// `roundRimShortfall`: whether a candidate's rim draws a round circle about it that is
    /// dark all the way round. `at`: the candidate in image pixels; `circle`: its rim circle
    /// (`RimCircle`), which must hold the share of rays and the residual the rim centring asks
    /// (`rimCentringAgreement`, `rimCentringResidual`), lie closer to the candidate than the
    /// centring would move it (`rimCentringMinShift`), and be no wider than 1.2 radii (a wider
    /// circle is the neighbours' rims round a spot between them); on the full-resolution window
    /// a point of each of the 16 sectors' rays, 0.6-1.4 radii out, must be darker than the
    /// centre (`fineRimRingDepth`, `darkRingSectors`).
    ///
    /// Why: a clear cell in a clump, or a small one, shows its rim in 9-11 of 16 sectors at the
    /// working scale, where a touching neighbour's rim or a few working pixels leave sectors
    /// without a facing gradient; its darkest ring is still round and centred on it, while
    /// spots between cells, debris and line leftovers that fall as short draw no such circle
    /// or no dark ring all round.
    private func showsRoundRim(_ circle: RimCircle?, at: (x: Double, y: Double, r: Double)) -> Bool {
        guard let circle, maps.holdsForCentring(circle), circle.radius <= 1.2 * at.r else { return false }
        let dx = circle.x - at.x, dy = circle.y - at.y, shift = config.rimCentringMinShift * at.r
        guard dx * dx + dy * dy < shift * shift else { return false }
        return fullResolution.darkRingSectors(x: at.x, y: at.y, r: at.r) >= 16
    }

    /// The candidate that passes, or nil and why not (for `Frame.trace`). `detected`: where
    /// the detector put it, when voting ran. The vote can leave a candidate off its cell, where
    /// the rim faces it from too few sectors: one that fails is tested once more at the centre
    /// its rim draws (`rimCentringRetest`), the rim circle measured once for both tests, and
    /// then where the detector put it (`unvotedRetest`). `clumpedWith`: the candidates that
    /// passed on their own, for a stained candidate in a clump (`stainClumpCoverage`).
    func test(_ voted: Candidate, detected: Candidate?, clumpedWith: [Candidate]? = nil) -> (Candidate?, BoundaryVerdict) {
        var circle: RimCircle?? = nil
        var memo = EvidenceMemo()
        let first = testOnce(voted, detected: detected, clumpedWith: clumpedWith, circle: &circle, memo: &memo)
        guard first.0 == nil else { return first }
        if config.rimCentringAgreement > 0, config.rimCentringRetest {
            let at = maps.toImage(voted)
            if let moved = maps.rimCentre(of: at, circle: circle ?? RimCircle(maps.image, x: at.x, y: at.y, r: at.r)) {
                var unused: RimCircle?? = nil
                let again = testOnce(maps.toWorking(moved), detected: detected, clumpedWith: clumpedWith, circle: &unused,
                                     memo: &memo)
                if again.0 != nil { return again }
            }
        }
        // A vote that moved the centre can leave it where the rim shows but a later test
        // fails (a grey disc's halo votes a ring round its centre when the detector
        // underestimated its radius): the whole test once more where the detector put it.
        if config.unvotedRetest, let detected, config.keepUnvotedCoverage > 0 {
            let dx = detected.x - voted.x, dy = detected.y - voted.y
            let moved = 0.25 * voted.r
            if dx * dx + dy * dy > moved * moved {
                let there = evidence(detected, roundRimAllowed: false, memo: &memo)
                if there.passes && there.coverage >= config.keepUnvotedCoverage {
                    var unused: RimCircle?? = nil
                    let again = testOnce(detected, detected: nil, clumpedWith: clumpedWith, circle: &unused, memo: &memo)
                    if again.0 != nil { return again }
                }
            }
        }
        return first
    }

    /// `test` without the retest; `circle` is set to the rim circle measured at `voted`, if one was.
    private func testOnce(_ voted: Candidate, detected: Candidate?, clumpedWith: [Candidate]?,
                          circle: inout RimCircle??, memo: inout EvidenceMemo) -> (Candidate?, BoundaryVerdict) {
        let smoothLog = edges.smoothLog, stain = maps.stain, minR = maps.minR
        var c = voted
        var coverage = 0.0, roundRim = false, inClump = false
        var e = evidence(c, memo: &memo)
        circle = e.circle
        // A vote can pull a centre off its cell (towards a touching neighbour, onto a line's
        // edge) where the detector had it right: there the whole rim shows.
        if !e.passes, let detected {
            // (A rim a few sectors short, round or not, is short of that coverage: not asked.)
            let there = evidence(detected, roundRimAllowed: false, memo: &memo)
            if there.passes && there.coverage >= config.keepUnvotedCoverage {
                c = detected
                e = there
            }
        }
        // Voted with the line subtracted, a cell on a blurred line is centred but can show its
        // rim in a sector or two too few on the image there, where the line's edges made up
        // the rest: then the centre the plain vote finds, if it lies on the same cell (within
        // the half radius labels-v1 matches by). (Asked of every candidate voted so, most of
        // them line leftovers far short of a rim, it cost 1.2 % of a `standard` image's
        // instructions for the same detections within three.)
        if !e.passes, voted.votedAlongLine, e.coverage >= config.minEdgeCoverage - 0.125, let detected {
            let plain = maps.plainVote(voted, from: detected)
            let there = evidence(plain, memo: &memo)
            let dx = plain.x - voted.x, dy = plain.y - voted.y
            if there.passes, dx * dx + dy * dy <= 0.25 * voted.r * voted.r {
                c = plain
                e = there
            }
        }
        if e.passes {
            coverage = e.coverage
            c.lineStep = e.onLine
            roundRim = e.roundRim
            // The vote shares a line's edges with a cell on it; the stain map has no lines.
            if config.stainCentresOnLines, let stain, maps.grid != nil, maps.isOnLine(c) {
                c = stain.centred(c)
            }
        } else if let stain {
            // A stained cell on a line: its boundary, and its centre, from the stain.
            c = stain.centred(c)
            coverage = stain.coverage(of: c) / maps.visibleShare(c)
            if let clumpedWith, coverage < config.minEdgeCoverage, coverage >= config.stainClumpCoverage {
                let clumped = stain.clumpCoverage(of: c, beside: clumpedWith) / maps.visibleShare(c)
                inClump = clumped >= config.minEdgeCoverage
                coverage = max(coverage, clumped)
            }
            guard coverage >= config.minEdgeCoverage else {
                return (nil, .noRim(coverage: e.coverage, gridAligned: e.aligned, stainCoverage: coverage))
            }
        } else {
            return (nil, .noRim(coverage: e.coverage, gridAligned: e.aligned, stainCoverage: nil))
        }
        // A spot smaller than a cell is a defocused cell only inside a dark rim.
        if c.brightSpot {
            let depth = darkRimDepth(smoothLog, x: c.x, y: c.y, innerRadius: 0.8 * minR, outerRadius: 2 * minR)
            guard depth <= -Float(config.brightSpotRimDepth) else { return (nil, .brightSpotWithoutRim(depth: depth)) }
        }
        // A cell's refractive boundary shows dark in either direction of defocus; glare,
        // bubbles and bright specks pass the boundary test on their own edge and have no dark
        // ring (blank controls' last false detections).
        if config.minRimDepth > 0, stain?.isStained(x: c.x, y: c.y) != true,
           case let depth = darkRimDepth(smoothLog, x: c.x, y: c.y, innerRadius: 0.6 * c.r, outerRadius: 1.6 * c.r),
           depth > -Float(config.minRimDepth) {
            return (nil, .noDarkRim(depth: depth))
        }
        // A spot of background between cells meets its neighbours' rims at scattered
        // distances and opens onto the background between them (`RimRing`).
        if config.maxRimSpread > 0, stain?.isStained(x: c.x, y: c.y) != true,
           RimRing.hasOpenRay(smoothLog, x: c.x, y: c.y, r: c.r, level: rimOpenLevel),
           let ring = RimRing(smoothLog, x: c.x, y: c.y, r: c.r),
           ring.isScattered(maxSpread: config.maxRimSpread, openLevel: rimOpenLevel) {
            return (nil, .scatteredRim(spread: ring.spread, leastDark: ring.leastDark))
        }
        // A stretch of line looks the same a few radii further along it; a cell does not.
        // (Residuals in units of the limit, only for a trace: an array per kept candidate is
        // not worth forming otherwise; nil: no step along that direction.)
        var shifts: [Double?] = []
        for steps in lineSteps {
            guard let step = steps.step(minLength: 2.2 * c.r, maxLength: 4 * c.r),
                  let residual = lineShiftResidual(smoothLog, x: c.x, y: c.y, r: c.r, step: step) else {
                if tracing { shifts.append(nil) }
                continue
            }
            if residual < lineShiftLimit { return (nil, .lineStretch) }
            if tracing { shifts.append(residual / lineShiftLimit) }
        }
        c.coverage = coverage
        let seenOnLine = c.lineStep != nil
        // Any other cell on a line whose rim shows with the line subtracted: the debris rule
        // compares it with the line (`ClassifyStage`).
        if c.lineStep == nil { c.lineStep = rimOnLine(c, margin: 0)?.step }
        return (c, .kept(coverage: coverage, lineShift: shifts, lineSubtracted: seenOnLine, roundRim: roundRim, inClump: inClump))
    }

    /// The candidates that passed on their raw rim while lying on a ruling line and show no
    /// rim along any ruling direction where the line-subtracted test could run (between a
    /// triple line's strokes, at a T-junction the line's own edges make that rim): indices
    /// into `kept`. A stained cell's boundary shows on the stain map, where lines do not.
    func lineResidues(_ kept: [(Candidate?, BoundaryVerdict)]) -> [Int] {
        guard config.dropLineResidue, let rimTest = maps.rimTest else { return [] }
        let passed = kept.indices.compactMap { i in kept[i].0.map { (index: i, candidate: $0) } }
        let cells = passed.map(\.candidate)
        var residues: [Int] = []
        for (k, (i, c)) in passed.enumerated() where c.lineStep == nil && maps.isOnLine(c)
            && (maps.stain?.coverage(of: c) ?? 0) / maps.visibleShare(c) < config.minEdgeCoverage {
            let others = neighbours(of: k, in: cells, reach: 8 * c.r)
            let verdicts = maps.subtractionSteps.compactMap { rimTest.showsRim(c, along: $0, others: others) }
            if !verdicts.isEmpty && !verdicts.contains(true) { residues.append(i) }
        }
        return residues
    }
}

/// The boundary test's evidence at one position: the coverage and grid-aligned share it
/// counted, whether it passes, the ruling step it passed along with the line subtracted, whether
/// it passed on its round rim, and the rim circle measured there (nil: not measured).
typealias RimEvidence = (coverage: Double, aligned: Double, passes: Bool, onLine: PixelStep?, roundRim: Bool, circle: RimCircle??)

/// The evidence one candidate's test has formed (`BoundaryTest.evidence`): a handful of entries.
struct EvidenceMemo {
    var entries: [(x: Double, y: Double, r: Double, roundRimAllowed: Bool, evidence: RimEvidence)] = []
}

/// Why the boundary test kept or dropped a candidate (`CandidateTrace` notes; formed as text
/// only when a trace asks).
enum BoundaryVerdict: CustomStringConvertible {
    /// `lineShift`: each ruling direction's line-shift residual over its limit (nil: no
    /// whole-pixel step along that direction).
    /// `lineSubtracted`: the rim showed only with the ruling line subtracted (`lineSubtraction`).
    /// `roundRim`: a few sectors short, it passed on its round rim (`roundRimShortfall`).
    /// `inClump`: its stain boundary short, it passed beside stained neighbours (`stainClumpCoverage`).
    case kept(coverage: Double, lineShift: [Double?], lineSubtracted: Bool, roundRim: Bool, inClump: Bool)
    /// Too little of a rim facing the centre, or too much of it along the ruling.
    case noRim(coverage: Double, gridAligned: Double, stainCoverage: Double?)
    case brightSpotWithoutRim(depth: Float)
    case noDarkRim(depth: Float)
    /// The darkest points round the centre scattered in radius, and some ray open onto the
    /// background (`maxRimSpread`).
    case scatteredRim(spread: Double, leastDark: Float)
    /// Looks the same a few radii along a ruling direction (`lineShiftRatio`).
    case lineStretch
    /// On a line, and no rim once the line is subtracted (`dropLineResidue`).
    case lineResidue

    var description: String {
        switch self {
        case let .kept(coverage, shifts, subtracted, roundRim, inClump):
            "kept: coverage \(fmt(coverage))" + (subtracted ? " with the line subtracted" : "") + (roundRim ? " on a round rim" : "")
                + (inClump ? " in a stained clump" : "")
                + (shifts.isEmpty ? "" : ", line shift " + shifts.map { $0.map(fmt) ?? "-" }.joined(separator: " / "))
        case let .noRim(coverage, aligned, stain):
            "no rim: coverage \(fmt(coverage)), grid-aligned \(fmt(aligned))" + (stain.map { ", stain coverage \(fmt($0))" } ?? "")
        case .brightSpotWithoutRim(let depth): "bright spot without a dark rim: depth \(fmt(Double(depth)))"
        case .noDarkRim(let depth): "no dark rim: depth \(fmt(Double(depth)))"
        case let .scatteredRim(spread, leastDark):
            "scattered rim: spread \(fmt(spread)) radii, least dark ray \(fmt(Double(leastDark)))"
        case .lineStretch: "a stretch of line: the same a few radii along it"
        case .lineResidue: "line residue: no rim with the line subtracted"
        }
    }
}
