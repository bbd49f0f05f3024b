import Foundation
import Hemocytometer

/// The candidates stage's last steps, on candidates in image pixels: size on the
/// full-resolution image, the crossings of ruling lines, and the centre a rim draws.
extension CandidateMaps {
    /// Size on the full-resolution image (`minEdgeRadiusFraction`): debris specks merge with
    /// small cells at the working scale but not here. The measured boundary also corrects a
    /// radius the detector underestimated (a split half), so that duplicate suppression sees
    /// the cell's real extent. Nil when off.
    func sizeFiltered(_ found: [Candidate]) -> [Candidate]? {
        guard config.minEdgeRadiusFraction > 0 else { return nil }
        let minEdgeRadius = config.minEdgeRadiusFraction * config.minRadiusPx
        return inSpatialOrder(found) { c -> Candidate? in
            let b = c.boundary?.radius(x: c.x, y: c.y, r: c.r) ?? boundaryRadius(image, x: c.x, y: c.y, r: c.r)
            guard b >= minEdgeRadius else { return nil }
            var c = c
            c.r = max(c.r, min(b, config.maxRadiusPx))
            return c
        }.compactMap { $0 }
    }

    /// Crossings of lines a third as strong as the faintest cell: visible lines, not noise.
    var faintCrossingLevel: Float { Float(min(config.crossingLineContrast, 0.3 * config.minContrast)) }

    /// Whether the line-crossing filter runs: two ruling directions (found, or with no ruling
    /// found the horizontal and vertical: a partial view shows too few lines for the
    /// periodicity test, and rulings are photographed square to the frame more often than not).
    private var filtersCrossings: Bool { config.crossingLineContrast > 0 && rulingAngles.count >= 2 }

    /// The candidates that are not what line removal leaves of a crossing (`isCrossingResidue`);
    /// nil where the filter does not run (`filtersCrossings`).
    func crossingsFiltered(_ found: [Candidate]) -> [Candidate]? {
        guard filtersCrossings else { return nil }
        // A seed has no detector response to vouch for it, and the corners of the squares
        // where even faint lines cross point at a common centre: seeds stand on no crossing of
        // faint lines.
        let brightness = edges?.smoothLog ?? logFlat
        let polarity = rulingPolarity(lines: separated.lines, logLuminance: logFlat, level: Float(config.crossingLineContrast))
        let working = found.map(toWorking)
        // A clear cell on a crossing is darkened by both lines, so it has their polarity and
        // the test takes it for what line removal leaves there: kept when its rim shows with
        // each of the two lines subtracted in turn (a crossing's residue shows only the other
        // line's edges then), from the sides free of other candidates.
        func showsRimAcrossLines(_ k: Int) -> Bool {
            guard config.cellsOnCrossings, let rimTest, subtractionSteps.count >= 2 else { return false }
            let c = working[k]
            let others = neighbours(of: k, in: working, reach: 8 * c.r)
            return subtractionSteps.prefix(2).allSatisfy { rimTest.showsRim(c, along: $0, others: others) == true }
        }
        // A clear cell anywhere on a crossing shows its rim between the lines.
        func showsRimBetween(_ k: Int) -> Bool {
            guard config.crossingRimDepth > 0, grid != nil, let edges, rulingAngles.count >= 2 else { return false }
            let c = working[k]
            return showsRimBetweenLines(edges.smoothLog, x: c.x, y: c.y, r: c.r, angles: (rulingAngles[0], rulingAngles[1]),
                                        depth: Float(config.crossingRimDepth))
        }
        // Etched lines can show a bright core between dark flanks: the ruling reads dark
        // overall, but where two such lines cross, what is left is their bright cores' square.
        // With a ruling registered, a bright candidate on a crossing is asked whether the
        // lines' cores there are bright (`crossingBrightLineCores`).
        let asksCores = config.crossingBrightLineCores && grid != nil
        return found.indices.filter { k in
            let c = working[k]
            let cores = { rulingAngles.prefix(2).allSatisfy { hasBrightCore(brightness, x: c.x, y: c.y, r: c.r, angle: $0) } }
            return !isCrossingResidue(contrast, x: c.x, y: c.y, brightness: brightness.bilinear(c.x, c.y), polarity: polarity,
                                      stained: stain?.isStained(x: c.x, y: c.y) == true, angles: rulingAngles,
                                      halfLength: length / 2,
                                      level: c.seeded ? faintCrossingLevel : Float(config.crossingLineContrast),
                                      brightCores: asksCores ? cores : nil)
                || showsRimAcrossLines(k) || showsRimBetween(k)
        }.map { found[$0] }
    }

    /// Each candidate moved to the centre of the circle its rim draws (`rimCentre`), and in
    /// colour images those that passed the boundary test by the smallest margin dropped when
    /// their rim is not round (`isUnroundAtMargin`); each marked `centred` for duplicate
    /// suppression (`nmsCentredFirst`). Nil when the step is off.
    func rimCentred(_ found: [Candidate]) -> [Candidate]? {
        guard config.rimCentringAgreement > 0 else { return nil }
        return inSpatialOrder(found) { c -> Candidate? in
            // One circle per candidate serves the round-rim test, the move and the mark.
            let circle = RimCircle(image, x: c.x, y: c.y, r: c.r)
            if isUnroundAtMargin(c, circle: circle) { return nil }
            var kept = rimCentre(of: c, circle: circle) ?? c
            if config.nmsCentredFirst {
                kept.centred = circle?.agrees == true || isStained(c)
            }
            return kept
        }.compactMap { $0 }
    }

    /// Whether the stain map (colour images only) marks an image-pixel candidate's centre.
    private func isStained(_ c: Candidate) -> Bool {
        guard let stain else { return false }
        let w = toWorking(c)
        return stain.isStained(x: w.x, y: w.y)
    }

    /// `roundRimAtMargin`: an image-pixel candidate of a colour image whose rim faces it from
    /// less than half a sector more than `minEdgeCoverage` asks, whose rays hold no circle
    /// (`RimCircle.holdsMostRays`; `circle` is its rim circle), and which is neither stained
    /// (a dead cell: a filled disc, darkest anywhere inside) nor bright at its centre
    /// (`refractileContrast` above the background: a live cell's refractile core, its faint
    /// rim blurred among a line's edges).
    func isUnroundAtMargin(_ c: Candidate, circle: RimCircle?) -> Bool {
        guard config.roundRimAtMargin, stain != nil, c.coverage < config.minEdgeCoverage + 0.5 / 16,
              let circle, !circle.holdsMostRays else { return false }
        let w = toWorking(c)
        return !isStained(c) && Double(logFlat.bilinear(w.x, w.y)) < log(1 + config.refractileContrast)
    }

    /// An image-pixel candidate moved to the centre of the circle its rim draws (`circle`, its
    /// `RimCircle`), or nil where too few of its rays agree on one (`rimCentringAgreement`,
    /// `rimCentringResidual`) or the move is too short to be worth making
    /// (`rimCentringMinShift`).
    func rimCentre(of c: Candidate, circle: RimCircle?) -> Candidate? {
        guard let circle, holdsForCentring(circle),
              (circle.x - c.x) * (circle.x - c.x) + (circle.y - c.y) * (circle.y - c.y)
                >= (config.rimCentringMinShift * c.r) * (config.rimCentringMinShift * c.r) else { return nil }
        var moved = c
        moved.x = circle.x
        moved.y = circle.y
        return moved
    }

    /// Whether a rim circle's rays agree on it as closely as the rim centring asks: settled,
    /// with `rimCentringAgreement` of the rays on it and their median residual at most
    /// `rimCentringResidual`. (The centring's move and the boundary test's round rim.)
    func holdsForCentring(_ circle: RimCircle) -> Bool {
        circle.agrees && circle.holds(share: config.rimCentringAgreement)
            && circle.residual <= config.rimCentringResidual
    }

    /// The candidates not centred in a gap between ruling strokes narrower than a cell
    /// (`strokeGapRadii`), asked on the working planes and then, of those they keep, at full
    /// resolution (`fineStrokeGapContrast`); nil when the filter does not run (off, or fewer
    /// than two ruling directions).
    func strokeGapsFiltered(_ found: [Candidate]) -> [Candidate]? {
        guard config.strokeGapRadii > 0, rulingAngles.count >= 2 else { return nil }
        let level = Float(config.crossingLineContrast)
        let directions = rulingAngles.prefix(2).map { (angle: $0, nx: -sin($0), ny: cos($0)) }
        /// The same question at full resolution (image pixels), where strokes a few µm apart
        /// stand apart: between strokes across both directions (`strokeProfile`, the middle of
        /// the candidate's own disc left out of each line).
        func inFineGap(_ c: Candidate) -> Bool {
            let level = Float(config.fineStrokeGapContrast)
            let reach = Int(config.strokeGapRadii * c.r), halfLength = Int(4 * c.r)
            guard level > 0, reach >= 2 else { return false }
            // Strokes that stand out at full resolution show on the line map too, if blurred:
            // unless it shows lines on both sides within the reach across both directions,
            // each above the map at the centre (most candidates have none, or one line beside
            // them, or lie on a line), no profile is taken.
            let w = toWorking(c), workingReach = config.strokeGapRadii * w.r
            let centre = separated.lines.bilinear(w.x, w.y)
            func showsLine(_ d: (angle: Double, nx: Double, ny: Double), side: Double) -> Bool {
                stride(from: 1, through: workingReach, by: 1).contains { o in
                    let v = separated.lines.bilinear(w.x + side * o * d.nx, w.y + side * o * d.ny)
                    return v >= 0.5 * level && v > centre
                }
            }
            guard directions.allSatisfy({ showsLine($0, side: -1) && showsLine($0, side: 1) }) else { return false }
            for d in directions {
                guard let profile = strokeProfile(image, x: c.x, y: c.y, angle: d.angle, reach: reach,
                                                  halfLength: halfLength, skipping: Int(0.5 * c.r)),
                      isGap(reach: reach, level: level, { profile[$0 + reach] }) else { return false }
            }
            return !showsStainedDisc(w)
        }
        func keptAtWorkingScale(_ c: Candidate) -> Bool {
            let w = toWorking(c)
            let reach = Int(config.strokeGapRadii * w.r)
            guard reach >= 2 else { return true }
            // The same question of the line map first, at half the level: where it shows no
            // gap between lines (most candidates: in the open, or on a line), the strengths,
            // each a quantile of a line of samples, are not asked. The map holds the strongest
            // direction's line, so across one direction it can stay level on the other's
            // (inside the band of a triple line of the other family): at junctions, one
            // direction may show that instead of a gap.
            var bands = 0
            for d in directions {
                let samples = (-reach...reach).map { o in separated.lines.bilinear(w.x + Double(o) * d.nx, w.y + Double(o) * d.ny) }
                if isGap(reach: reach, level: 0.5 * level, { samples[$0 + reach] }) { continue }
                guard config.strokeGapsAtJunctions, samples.allSatisfy({ $0 >= 0.5 * level }) else { return true }
                bands += 1
            }
            guard bands < 2 else { return true }
            // A line ending at the junction runs on one side only (`oneSidedLineStrength`).
            for d in directions where !isGap(reach: reach, level: level, { o in
                let x = w.x + Double(o) * d.nx, y = w.y + Double(o) * d.ny
                return config.strokeGapsAtJunctions
                    ? oneSidedLineStrength(contrast, x: x, y: y, angle: d.angle, halfLength: length / 2)
                    : lineStrength(contrast, x: x, y: y, angle: d.angle, halfLength: length / 2)
            }) { return true }
            return showsStainedDisc(w)
        }
        return found.filter { c in keptAtWorkingScale(c) && !inFineGap(c) }
    }

    /// Whether a working-scale candidate's disc shows on the stain map (a dead cell, whatever
    /// ruling lies under it), by a sector more than the boundary test asks.
    func showsStainedDisc(_ w: Candidate) -> Bool {
        guard let stain else { return false }
        return stain.coverage(of: w) / visibleShare(w) >= config.minEdgeCoverage + config.lineEdgeCoverageMargin
    }

    /// The registered ruling says where the triple lines cross; the little squares between
    /// their strokes pass every boundary test. Nil when the filter does not run (off, or no
    /// ruling with a known scale).
    func tripleCrossingsFiltered(_ found: [Candidate]) -> [Candidate]? {
        guard config.tripleCrossingMarginPx > 0, let grid, grid.scaleKnown,
              let toChamber = Homography(matrix: grid.result.imageToChamber) else { return nil }
        let marginUm = config.tripleCrossingMarginPx * grid.result.umPerPixel
        // The core's reach from the middle lines; on the working planes, where the crossing must show.
        let coreReachUm = tripleCrossingCoreReachUm(marginUm: marginUm, halfWidthUm: grid.tripleHalfWidthUm)
        let reach = config.tripleCrossingBetweenStrokes ? coreReachUm / grid.result.umPerPixel / s : 0
        return found.filter { c in
            guard isInTripleCrossingCore(x: c.x, y: c.y, imageToChamber: toChamber, marginUm: marginUm,
                                         halfWidthUm: grid.tripleHalfWidthUm) else { return true }
            let working = toWorking(c)
            // A dead cell on the crossing shows its boundary on the stain map; the crossing's
            // dark core can read as stained at its centre (the colour ratio of pixels that hold
            // a tenth of the background's light is mostly noise) but holds no disc there.
            if showsStainedDisc(working) { return true }
            // The image must show the crossing too: a misregistered grid predicts lines where
            // there are none.
            // On the ruled area's border line the other family's lines end: they run on one side.
            let border = config.tripleCrossingAtBorder
                && isOnRuledAreaBorder(x: c.x, y: c.y, imageToChamber: toChamber, reachUm: coreReachUm)
            return !isOnCrossing(contrast, x: working.x, y: working.y, angles: grid.angles, halfLength: length / 2,
                                 level: faintCrossingLevel, reach: reach, oneSided: border)
        }
    }
}
