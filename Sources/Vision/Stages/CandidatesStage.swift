import Foundation
import Hemocytometer

/// Stage 4: candidate cells from the flattened luminance, in image pixels.
struct CandidatesStage: Stage {
    let name = "candidates"

    func run(_ frame: inout Frame) throws {
        let config = frame.config
        guard frame.flat.width >= 3, frame.flat.height >= 3 else { return }
        let minR = max(0.5, frame.minRadius), maxR = max(minR, frame.maxRadius)
        let logFlat = logPlane(frame.flat)
        let contrast = logContrast(logFlat: logFlat, sigma: max(0.5, config.contrastSmoothingRadii * minR))
        let length = Int((config.lineRemovalLengthDiameters * 2 * maxR).rounded()) | 1
        // Fibre directions only when no ruling was found: with one, the two diagonal passes
        // found no more cells on any development set (and cost a directional median each).
        let angles = lineRemovalAngles(grid: frame.grid, fibres: config.removeFibres && frame.grid == nil)
        let separated = separateLines(contrast, angles: angles, length: length, additiveCrossings: config.additiveCrossings)
        let cleaned = saturate(separated.cells, cap: config.contrastCap)
        // Smoothed log luminance and its boundary threshold, for the boundary tests.
        let edgeMap: (Plane, Float)? = config.minEdgeCoverage > 0 ? {
            let smoothLog = gaussianBlur(logFlat, sigma: config.edgeSmoothingPx)
            return (smoothLog, boundaryThreshold(smoothLog, noiseMultiple: config.edgeThresholdNoise,
                                                 floor: config.edgeThresholdContrast * config.minContrast))
        }() : nil
        let edgeField = edgeMap.map { RadialEdgeField($0.0) }
        let gridNormals = (frame.grid?.angles ?? []).map { $0 + .pi / 2 }
        // Coverage counts only the sectors inside the image: a cell cut by the border shows
        // part of its rim (a tenth of the missed cells on the independent synthetic set).
        let visibleShare = { (c: Candidate) in
            config.borderCells ? visibleSectorShare(x: c.x, y: c.y, r: c.r, width: logFlat.width, height: logFlat.height) : 1
        }
        // Colour images: dead cells show their boundary on the stain map too.
        let stain = frame.isGreyscale ? nil : edgeMap.flatMap { smoothLog, _ in
            StainEvidence(image: frame.image, scale: frame.scale, level: config.stainLevel,
                          thresholdNoise: config.edgeThresholdNoise, logLuminance: smoothLog)
        }
        var found: [Candidate]
        switch config.detector {
        case .dog:
            found = detectBlobs(cleaned, settings: BlobDetectorSettings(
                minRadius: minR, maxRadius: maxR, levels: config.scaleLevels, minScore: config.minScore,
                minContrast: config.minContrast, maxEdgeRatio: config.maxEdgeRatio,
                splitElongated: config.splitElongated, holes: config.detectHoles, holeSpots: config.holeSpots,
                brightSpotLevel: config.brightSpotLevel), holeSupport: separated.lines, brightness: edgeMap?.0)
            frame.trace?.record("detector (dog)", working: found, scale: frame.scale) { c in
                "score \(fmt(c.score)), contrast \(fmt(c.contrast))" + (c.brightSpot ? ", bright spot" : "")
            }
        case .threshold:
            found = detectThresholdObjects(cleaned, settings: ThresholdDetectorSettings(
                minRadius: minR, maxRadius: maxR, minScore: config.minScore, minContrast: config.minContrast,
                minCircularity: config.minCircularity, minSolidity: config.minSolidity))
            frame.trace?.record("detector (threshold)", working: found, scale: frame.scale) { c in "score \(fmt(c.score))" }
        }
        // A blob shrunk by a neighbouring line or a faint rim is tested (and votes) at no less
        // than this size, or its own rim lies outside every annulus below.
        let floorR = config.candidateRadiusFloor * minR
        func prepared(_ candidates: [Candidate]) -> [Candidate] {
            candidates.map { c in
                var c = c
                c.r = max(c.r, floorR)
                if config.refineCentres {
                    let refined = refineCentre(cleaned, x: c.x, y: c.y, r: c.r)
                    c.x = refined.x
                    c.y = refined.y
                }
                return c
            }
        }
        found = prepared(found)
        let s = Double(frame.scale), shift = (s - 1) / 2
        // Before the centre vote, on the full-resolution image (a working pixel is a sizeable
        // part of a small cell): candidates with hardly any boundary around them (noise, line
        // leftovers: most of the DoG peaks) cannot pass the boundary test below wherever their
        // centre moves, so they are dropped instead of costing a vote each. 60% of the coverage
        // a cell needs (its centre may be off), and not mostly a ruling's edges: a line leftover
        // faces the candidate almost only along the grid normals (a cell's rim about 22% of its
        // length), wherever it moves. (Half let 1.7x as many candidates vote for 0.2% more
        // cells on the synthetic sets, and for debris on blank controls.)
        typealias PreVoteVerdict = (kept: Bool, coverage: Double, aligned: Double)
        let preVote: ((Candidate) -> PreVoteVerdict)? = {
            guard config.voteCentres, let (_, threshold) = edgeMap, let edgeField else { return nil }
            let floor = 0.6 * config.minEdgeCoverage, maxAligned = 0.8
            return { c in
                let e = edgeField.evidence(x: c.x, y: c.y, r: c.r, threshold: threshold, gridNormals: gridNormals)
                let visible = visibleShare(c)
                let kept = (e.coverage / visible >= floor && e.gridAligned <= maxAligned)
                    || (stain?.coverage(of: c) ?? 0) / visible >= floor
                return (kept, e.coverage / visible, e.gridAligned)
            }
        }()
        var verdicts = preVote.map { inSpatialOrder(found, $0) } ?? []
        if config.detector == .dog, config.seedMinVotes > 0, let (smoothLog, threshold) = edgeMap {
            let voteMap = centreVoteMap(smoothLog, minRadius: minR, maxRadius: maxR, threshold: threshold,
                                        gridNormals: gridNormals)
            // A bright spot may yet fail its rim test, and a candidate the pre-vote filter
            // drops is gone, so neither stands in for a seed (a detector centre half a radius
            // off its cell is dropped there, where a seed may sit on the cell).
            let standing = found.indices.filter { !found[$0].brightSpot && (verdicts.isEmpty || verdicts[$0].kept) }
            let seeds = prepared(seedCandidates(voteMap, besides: standing.map { found[$0] }, minR: minR, maxR: maxR,
                                                minVotes: config.seedMinVotes))
            found += seeds
            if let preVote { verdicts += inSpatialOrder(seeds, preVote) }
            frame.trace?.record("centre seeds", working: found, scale: frame.scale) { c in c.seeded ? "seed" : "" }
        }
        // Where the detector put each candidate, kept for the boundary test when voting ran.
        var detected: [Candidate] = []
        if config.voteCentres {
            if preVote != nil {
                frame.trace?.record("pre-vote rim filter (verdicts)", Array(zip(found, verdicts)), position: { c, _ in
                    (c.x * s + shift, c.y * s + shift, c.r * s)
                }, note: { _, v in
                    (v.kept ? "kept" : "dropped") + ": coverage \(fmt(v.coverage)), grid-aligned \(fmt(v.aligned))"
                })
                found = found.indices.filter { verdicts[$0].kept }.map { found[$0] }
                frame.trace?.record("pre-vote rim filter", working: found, scale: frame.scale)
            }
            if config.keepUnvotedCoverage > 0 { detected = found }
            var scratch = VoteScratch()
            for i in spatialOrder(found) {
                let x0 = found[i].x * s + shift, y0 = found[i].y * s + shift
                var r = found[i].r * s
                var c = voteCentre(frame.image, x: x0, y: y0, r: r, scratch: &scratch)
                // A radius the detector underestimated (a split half, a cell shrunk by a
                // neighbouring line) puts the cell's rim outside the voting annulus and its
                // centre outside the search disc: vote again at the measured boundary radius.
                // Measured where the vote went and, when that shows no larger boundary, where
                // the detector put the centre: a vote at too small a radius can stray off the
                // cell (a big live cell found by its bright centre alone), where the
                // boundary no longer looks larger. (A vote that stayed within a pixel measures
                // the same boundary: not measured twice.)
                let larger = 1.15 * r
                var b = boundaryRadius(frame.image, x: c.x, y: c.y, r: r)
                if b <= larger, (c.x - x0) * (c.x - x0) + (c.y - y0) * (c.y - y0) > 1 {
                    let atStart = boundaryRadius(frame.image, x: x0, y: y0, r: r)
                    if atStart > larger { b = atStart }
                }
                if b > larger {
                    r = min(b, config.maxRadiusPx)
                    c = voteCentre(frame.image, x: x0, y: y0, r: r, scratch: &scratch)
                    found[i].r = r / s
                } else {
                    found[i].boundary = BoundaryMeasurement(x: c.x, y: c.y, r: r, radius: b)
                }
                found[i].x = (c.x - shift) / s
                found[i].y = (c.y - shift) / s
            }
            frame.trace?.record("centre vote", working: found, scale: frame.scale)
        }
        // Ruling directions, found or (no ruling) the horizontal and vertical that fibre
        // removal and the crossing test assume too.
        let rulingAngles = frame.grid?.angles ?? (config.removeFibres ? [0, .pi / 2] : [])
        // Noise sigma of the smoothed log luminance (line-shift test, open rays).
        let noise = config.lineShiftRatio > 0 || config.rimOpenNoise > 0 ? edgeMap.map { Double(sampleNoise($0.0)) } ?? 0 : 0
        let lineShiftLimit = config.lineShiftRatio * 2 * noise * noise
        let lineSteps = lineShiftLimit > 0 ? rulingAngles.map { LineSteps(angle: $0, maxLength: 4 * maxR, tolerance: 0.1) } : []
        // Steps along the ruling's lines for `lineSubtraction`. The two sides of a step stray
        // across the line in opposite directions, so a straight line leaves a residue of the
        // order of the square of the stray: half a pixel is allowed (a slightly turned ruling
        // has no whole-pixel step 2.7 ... 4 radii long within 0.1 px).
        let subtractionSteps = config.lineSubtraction
            ? (frame.grid?.angles ?? []).map { LineSteps(angle: $0, maxLength: 4 * maxR, tolerance: 0.5) } : []
        // The line-subtracted test from the sides free of other candidates, where a ruling was found.
        let rimTest = subtractionSteps.isEmpty ? nil : edgeMap.map { smoothLog, threshold in
            ClearSideRimTest(plane: smoothLog, threshold: threshold, gridNormals: gridNormals, minCoverage: config.minEdgeCoverage,
                             maxGridAligned: config.maxGridAlignedEdges, borderCells: config.borderCells)
        }
        // Boundary evidence: a cell's rim faces its centre all the way round; line leftovers,
        // crossings and specks do not.
        if let (smoothLog, threshold) = edgeMap, let edgeField {
            let lineLevel = Float(config.crossingLineContrast)
            // The residual of `lineSubtractedEvidence` carries 1.5 times the plane's noise variance.
            let subtractedThreshold = threshold * Float(1.5).squareRoot()
            func passesRim(coverage: Double, aligned: Double) -> Bool {
                coverage >= config.minEdgeCoverage && aligned <= config.maxGridAlignedEdges
            }
            // A candidate on a ruling line: its rim with the line subtracted, along the ruling
            // direction where it shows best (the step it was seen with), or nil when it shows
            // along neither. `margin`: coverage asked beyond the boundary test's.
            func rimOnLine(_ c: Candidate, margin: Double) -> (coverage: Double, aligned: Double, step: PixelStep)? {
                guard !subtractionSteps.isEmpty, separated.lines.bilinear(c.x, c.y) >= lineLevel else { return nil }
                var best: (coverage: Double, aligned: Double, step: PixelStep)?
                for steps in subtractionSteps {
                    guard let step = steps.step(minLength: 2.7 * c.r, maxLength: 4 * c.r),
                          let e = lineSubtractedEvidence(smoothLog, x: c.x, y: c.y, r: c.r, step: step,
                                                         threshold: subtractedThreshold, gridNormals: gridNormals)
                    else { continue }
                    let coverage = e.coverage / visibleShare(c)
                    guard passesRim(coverage: coverage - margin, aligned: e.gridAligned) else { continue }
                    // A cell a step away leaves its copy, negated, around this centre.
                    let ghost = [1.0, -1.0].contains { sign in
                        let there = edgeField.evidence(x: c.x + sign * Double(step.dx), y: c.y + sign * Double(step.dy),
                                                       r: c.r, threshold: threshold, gridNormals: gridNormals)
                        return passesRim(coverage: there.coverage, aligned: there.gridAligned)
                    }
                    if ghost { continue }
                    if best == nil || (coverage, -e.gridAligned) > (best!.coverage, -best!.aligned) {
                        best = (coverage, e.gridAligned, PixelStep(dx: step.dx, dy: step.dy))
                    }
                }
                return best
            }
            // A small cell's rim is too few working pixels round for every sector to show it: a
            // candidate of at most `fineRimMaxRadiusPx` one sector short of the coverage is
            // tested again on the full-resolution image, with a dark ring all round its centre.
            let fineRim = frame.scale > 1 && config.fineRimMaxRadiusPx > 0
                ? FineRimTest(image: frame.image, sigma: config.edgeSmoothingPx * s, threshold: threshold,
                              ringDepth: Float(config.fineRimRingDepth)) : nil
            let oneSectorShort = config.minEdgeCoverage - 1.0 / 16
            func boundaryEvidence(_ c: Candidate) -> (coverage: Double, aligned: Double, passes: Bool, onLine: PixelStep?) {
                let e = edgeField.evidence(x: c.x, y: c.y, r: c.r, threshold: threshold, gridNormals: gridNormals)
                let coverage = e.coverage / visibleShare(c)
                let passes = passesRim(coverage: coverage, aligned: e.gridAligned)
                if !passes, let fineRim, c.r * s <= config.fineRimMaxRadiusPx, coverage >= oneSectorShort - 1e-9 {
                    let fine = fineRim.evidence(x: c.x * s + shift, y: c.y * s + shift, r: c.r * s, gridNormals: gridNormals)
                    let fineCoverage = fine.coverage / visibleShare(c)
                    if fineCoverage >= config.fineRimCoverage, fine.gridAligned <= config.maxGridAlignedEdges,
                       fine.darkRingSectors >= config.fineRimDarkSectors {
                        return (fineCoverage, fine.gridAligned, true, nil)
                    }
                }
                // Rim enough, but mostly along the ruling: a cell inside a line's band shows its
                // own rim once the line is subtracted; a stretch of line shows none.
                // The residue of the line's own edges counts no more than a sector short.
                if !passes, coverage >= config.minEdgeCoverage, let on = rimOnLine(c, margin: config.lineEdgeCoverageMargin) {
                    return (on.coverage, on.aligned, true, on.step)
                }
                return (coverage, e.gridAligned, passes, nil)
            }
            let tracing = frame.trace != nil
            // A ray of open background dips below zero somewhere by noise alone.
            let rimOpenLevel = -Float(config.rimOpenNoise * noise)
            // The candidate that passes, or nil and why not (for `Frame.trace`).
            func test(_ voted: Candidate, detected: Candidate?) -> (Candidate?, BoundaryVerdict) {
                var c = voted
                var coverage = 0.0
                var e = boundaryEvidence(c)
                // A vote can pull a centre off its cell (towards a touching neighbour, onto a
                // line's edge) where the detector had it right: there the whole rim shows.
                if !e.passes, let detected {
                    let there = boundaryEvidence(detected)
                    if there.passes && there.coverage >= config.keepUnvotedCoverage {
                        c = detected
                        e = there
                    }
                }
                if e.passes {
                    coverage = e.coverage
                    c.lineStep = e.onLine
                } else if let stain {
                    // A stained cell on a line: its boundary, and its centre, from the stain.
                    c = stain.centred(c)
                    coverage = stain.coverage(of: c) / visibleShare(c)
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
                // A cell's refractive boundary shows dark in either direction of defocus;
                // glare, bubbles and bright specks pass the boundary test on their own edge
                // and have no dark ring (blank controls' last false detections).
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
                // (Residuals in units of the limit, only for a trace: an array per kept candidate
                // is not worth forming otherwise; nil: no step along that direction.)
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
                // Any other cell on a line whose rim shows with the line subtracted: the debris
                // rule compares it with the line (`ClassifyStage`).
                if c.lineStep == nil { c.lineStep = rimOnLine(c, margin: 0)?.step }
                return (c, .kept(coverage: coverage, lineShift: shifts, lineSubtracted: seenOnLine))
            }
            var kept = [(Candidate?, BoundaryVerdict)](repeating: (nil, .lineStretch), count: found.count)
            for i in spatialOrder(found) { kept[i] = test(found[i], detected: detected.isEmpty ? nil : detected[i]) }
            // Candidates on a line that passed on their raw rim: the line's own edges (between a
            // triple line's strokes, at a T-junction) can make that rim. Dropped when no rim
            // shows along any ruling direction where the test could run.
            if config.dropLineResidue, let rimTest {
                let passed = kept.indices.compactMap { i in kept[i].0.map { (index: i, candidate: $0) } }
                let cells = passed.map(\.candidate)
                var residues: [Int] = []
                // A stained cell's boundary shows on the stain map, where lines do not.
                for (k, (i, c)) in passed.enumerated() where c.lineStep == nil && separated.lines.bilinear(c.x, c.y) >= lineLevel
                    && (stain?.coverage(of: c) ?? 0) / visibleShare(c) < config.minEdgeCoverage {
                    let others = neighbours(of: k, in: cells, reach: 8 * c.r)
                    let verdicts = subtractionSteps.compactMap { rimTest.showsRim(c, along: $0, others: others) }
                    if !verdicts.isEmpty && !verdicts.contains(true) { residues.append(i) }
                }
                for i in residues { kept[i] = (nil, .lineResidue) }
            }
            frame.trace?.record("boundary test (verdicts)", Array(zip(found, kept)), position: { c, _ in
                (c.x * s + shift, c.y * s + shift, c.r * s)
            }, note: { "\($0.1.1)" })
            found = kept.compactMap { $0.0 }
            frame.trace?.record("boundary test", working: found, scale: frame.scale) { c in "coverage \(fmt(c.coverage))" }
        }
        for i in found.indices {
            found[i].x = found[i].x * s + shift
            found[i].y = found[i].y * s + shift
            found[i].r *= s
            found[i].lineStep = found[i].lineStep.map { PixelStep(dx: $0.dx * frame.scale, dy: $0.dy * frame.scale) }
        }
        // Size on the full-resolution image: debris specks merge with small cells at the
        // working scale but not here.
        if config.minEdgeRadiusFraction > 0 {
            let minEdgeRadius = config.minEdgeRadiusFraction * config.minRadiusPx
            found = inSpatialOrder(found) { c -> Candidate? in
                let b = c.boundary?.radius(x: c.x, y: c.y, r: c.r) ?? boundaryRadius(frame.image, x: c.x, y: c.y, r: c.r)
                guard b >= minEdgeRadius else { return nil }
                // The measured boundary also corrects a radius the detector underestimated
                // (a split half), so that duplicate suppression sees the cell's real extent.
                var c = c
                c.r = max(c.r, min(b, config.maxRadiusPx))
                return c
            }.compactMap { $0 }
            frame.trace?.record("boundary size", found, position: { ($0.x, $0.y, $0.r) })
        }
        // A full-resolution candidate at the working scale (the crossing filters read the
        // working planes).
        func toWorking(_ c: Candidate) -> Candidate {
            var c = c
            c.x = (c.x - shift) / s
            c.y = (c.y - shift) / s
            c.r /= s
            return c
        }
        // With no ruling found (a partial view shows too few lines for the periodicity test),
        // crossings are looked for along the horizontal and vertical (`rulingAngles`): rulings
        // are photographed square to the frame more often than not.
        // Crossings of lines a third as strong as the faintest cell: visible lines, not noise.
        let faintCrossingLevel = Float(min(config.crossingLineContrast, 0.3 * config.minContrast))
        if config.crossingLineContrast > 0, rulingAngles.count >= 2 {
            // A seed has no detector response to vouch for it, and the corners of the squares
            // where even faint lines cross point at a common centre: seeds stand on no
            // crossing of faint lines.
            let brightness = edgeMap?.0 ?? logFlat
            let polarity = rulingPolarity(lines: separated.lines, logLuminance: logFlat,
                                          level: Float(config.crossingLineContrast))
            let working = found.map(toWorking)
            // A clear cell on a crossing is darkened by both lines, so it has their polarity and
            // the test takes it for what line removal leaves there: kept when its rim shows with
            // each of the two lines subtracted in turn (a crossing's residue shows only the
            // other line's edges then), from the sides free of other candidates.
            func showsRimAcrossLines(_ k: Int) -> Bool {
                guard config.cellsOnCrossings, let rimTest, subtractionSteps.count >= 2 else { return false }
                let c = working[k]
                let others = neighbours(of: k, in: working, reach: 8 * c.r)
                return subtractionSteps.prefix(2).allSatisfy { rimTest.showsRim(c, along: $0, others: others) == true }
            }
            found = found.indices.filter { k in
                let c = working[k]
                return !isCrossingResidue(contrast, x: c.x, y: c.y, brightness: brightness.bilinear(c.x, c.y), polarity: polarity,
                                          stained: stain?.isStained(x: c.x, y: c.y) == true, angles: rulingAngles,
                                          halfLength: length / 2,
                                          level: c.seeded ? faintCrossingLevel : Float(config.crossingLineContrast))
                    || showsRimAcrossLines(k)
            }.map { found[$0] }
            frame.trace?.record("line crossings", found, position: { ($0.x, $0.y, $0.r) })
        }
        // The registered ruling says where the triple lines cross; the little squares between
        // their strokes pass every boundary test above.
        if config.tripleCrossingMarginPx > 0, let grid = frame.grid, grid.scaleKnown,
           let toChamber = Homography(matrix: grid.result.imageToChamber) {
            let marginUm = config.tripleCrossingMarginPx * grid.result.umPerPixel
            found = found.filter { c in
                guard isInTripleCrossingCore(x: c.x, y: c.y, imageToChamber: toChamber, marginUm: marginUm) else { return true }
                let working = toWorking(c)
                // A dead cell on the crossing shows its boundary on the stain map; the crossing's
                // dark core can read as stained at its centre (the colour ratio of pixels that
                // hold a tenth of the background's light is mostly noise) but holds no disc there.
                if let stain, stain.coverage(of: working) / visibleShare(working)
                    >= config.minEdgeCoverage + config.lineEdgeCoverageMargin { return true }
                // The image must show the crossing too: a misregistered grid predicts lines
                // where there are none.
                return !isOnCrossing(contrast, x: working.x, y: working.y, angles: grid.angles, halfLength: length / 2,
                                     level: faintCrossingLevel)
            }
            frame.trace?.record("triple-line crossings", found, position: { ($0.x, $0.y, $0.r) })
        }
        frame.candidates = found
    }
}


/// `test` of every candidate, evaluated row band by row band rather than in the detector's
/// order (strongest first, all over the image), so that neighbouring candidates find the
/// samples they read still in cache; results in the candidates' order.
func inSpatialOrder<T>(_ candidates: [Candidate], _ test: (Candidate) -> T) -> [T] {
    var results = [T?](repeating: nil, count: candidates.count)
    for i in spatialOrder(candidates) { results[i] = test(candidates[i]) }
    return results.map { $0! }
}

/// The candidates' indices top to bottom, then left to right (ties by index).
func spatialOrder(_ candidates: [Candidate]) -> [Int] {
    candidates.indices.sorted { (candidates[$0].y, candidates[$0].x, $0) < (candidates[$1].y, candidates[$1].x, $1) }
}

/// Why the boundary test kept or dropped a candidate (`CandidateTrace` notes; formed as text
/// only when a trace asks).
enum BoundaryVerdict: CustomStringConvertible {
    /// `lineShift`: each ruling direction's line-shift residual over its limit (nil: no
    /// whole-pixel step along that direction).
    /// `lineSubtracted`: the rim showed only with the ruling line subtracted (`lineSubtraction`).
    case kept(coverage: Double, lineShift: [Double?], lineSubtracted: Bool)
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
        case let .kept(coverage, shifts, subtracted):
            "kept: coverage \(fmt(coverage))" + (subtracted ? " with the line subtracted" : "")
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
