import Foundation
import Hemocytometer

/// Two line families as `detectGridLines` finds them.
typealias GridLines = (angles: [Double], spacings: [Double], phases: [Double], strengths: [Double],
                       profiles: [RulingFamilyProfile])

/// Finds the chamber ruling in a flattened luminance plane: two line families (angle, spacing,
/// phase) by orientation histogram + projection periodicity.
///
/// - Parameters:
///   - flat: flattened luminance (1 = background), working pixels.
///   - minSpacing, maxSpacing: line spacing search range, working pixels.
///   - minPeriodicity: smallest autocorrelation peak (0 ... 1) accepted for each family.
///   - minHalfAgreement: a family whose profile shows structure in both halves of the view
///     correlating below this is not a ruling (`HalfProfileAgreement`); 0 = no such test.
///   - minLineContinuity: in a view smaller than `RulingFamilies.largeView`, two families
///     neither of whose lines shows along this share of its length are no ruling
///     (`lineContinuity`); 0 = no such test.
/// - Returns: nil when either family is missing, not periodic, or contradicted by the halves.
public func detectGridLines(flat: Plane, minSpacing: Double, maxSpacing: Double,
                            minPeriodicity: Double, minHalfAgreement: Double = 0, minLineContinuity: Double = 0)
    -> (angles: [Double], spacings: [Double], phases: [Double], strengths: [Double], profiles: [RulingFamilyProfile])? {
    var tried: [[Double]] = []
    return detectGridLines(flat: flat, minSpacing: minSpacing, maxSpacing: maxSpacing, minPeriodicity: minPeriodicity,
                           minHalfAgreement: minHalfAgreement, minLineContinuity: minLineContinuity, starts: nil,
                           tried: &tried)
}

/// `detectGridLines`; `starts` (the two families' normal directions, degrees, to within about
/// three degrees) replaces the orientation histogram's peaks and the sharpest directions.
/// `tried` gets every pair of start directions searched from, the histogram's peaks first when
/// they were searched (for `KeystoneRectification.of` and `residueFreeGridLines`).
func detectGridLines(flat: Plane, minSpacing: Double, maxSpacing: Double, minPeriodicity: Double,
                     minHalfAgreement: Double, minLineContinuity: Double, starts given: [Double]?,
                     tried: inout [[Double]]) -> GridLines? {
    guard flat.width >= 16, flat.height >= 16 else { return nil }
    let contrast = lineContrast(flat)
    let small = downsample(contrast, factor: 2)
    let families = RulingFamilies(contrast: contrast, small: small, minSpacing: minSpacing, maxSpacing: maxSpacing,
                                  minPeriodicity: minPeriodicity, minHalfAgreement: minHalfAgreement,
                                  minLineContinuity: minLineContinuity)
    let large = min(flat.width, flat.height) >= RulingFamilies.largeView
    if let given {
        tried.append(given)
        return families.find(startingAt: given, partialViews: large)
    }
    // Pixel-grid aliasing of thin lines biases raw gradients towards 0 and 90 degrees.
    let hist = orientationHistogram(gaussianBlur(flat, sigma: 1), minMagnitude: 0.005)
    let peaks = perpendicularPeaks(hist)
    tried.append([peaks.first, peaks.second])
    // No gate on the histogram peak itself: thin lines carry little gradient next to many
    // cells; the projection periodicity below is the real test.
    if let found = families.find(startingAt: [peaks.first, peaks.second], partialViews: large) { return found }
    // A faint ruling over part of the view: its gradients are outnumbered by the cells', and
    // the histogram's peaks lie further off than the refinement searches. The two
    // perpendicular directions whose projections are sharpest, over every whole degree, then
    // give the start (only here: where the histogram finds the ruling this costs nothing).
    guard large else { return nil }
    let starts = sharpestPerpendicularNormals(small)
    let seen = starts.allSatisfy { start in [peaks.first, peaks.second].contains { abs(remainder(start - $0, 180)) < 3 } }
    if seen { return nil }
    tried.append(starts)
    return families.find(startingAt: starts, partialViews: true)
}

/// `detectGridLines` on a large view from given pairs of start directions (degrees, each pair
/// tried in turn; those the search on the view itself tried), with the contrast's smooth
/// residue removed (`smoothResidueRemoved`, at a fifth of `minSpacing`): glare and the shading
/// round it leave broad residue in the flattened view that buries the projections'
/// periodicity, and makes a group period look like the fundamental; thin lines keep most of
/// their contrast above the blur (`gridResidueRetry`). Nil on a view under
/// `RulingFamilies.largeView`.
func residueFreeGridLines(flat: Plane, minSpacing: Double, maxSpacing: Double, minPeriodicity: Double,
                          minHalfAgreement: Double, minLineContinuity: Double, startPairs: [[Double]]) -> GridLines? {
    guard min(flat.width, flat.height) >= RulingFamilies.largeView else { return nil }
    let contrast = smoothResidueRemoved(lineContrast(flat), sigma: max(1, minSpacing / 5))
    let families = RulingFamilies(contrast: contrast, small: downsample(contrast, factor: 2), minSpacing: minSpacing,
                                  maxSpacing: maxSpacing, minPeriodicity: minPeriodicity,
                                  minHalfAgreement: minHalfAgreement, minLineContinuity: minLineContinuity)
    for starts in startPairs {
        if let found = families.find(startingAt: starts, partialViews: true) { return found }
    }
    return nil
}

/// |flat - 1|: lines of either polarity are its peaks (the grid search's and the keystone
/// tiles' input).
func lineContrast(_ flat: Plane) -> Plane { flat.map { abs($0 - 1) } }

/// `contrast` less its Gaussian blur (`sigma` pixels), clipped at 0: what stands above its
/// surroundings at scales under `sigma` (thin lines), without the broad residue of glare and
/// uneven light.
func smoothResidueRemoved(_ contrast: Plane, sigma: Double) -> Plane {
    let smooth = gaussianBlur(contrast, sigma: sigma)
    return Plane(width: contrast.width, height: contrast.height) { out in
        contrast.data.withUnsafeBufferPointer { c in
            smooth.data.withUnsafeBufferPointer { b in
                for i in 0..<c.count { out[i] = max(0, c[i] - b[i]) }
            }
        }
    }
}

/// The two line families of a ruling from start normal directions: each refined, then kept
/// only when its projection is periodic and the halves of the view agree
/// (`detectGridLines`).
private struct RulingFamilies {
    /// Absolute contrast of the flattened plane, and its half-size copy.
    let contrast: Plane
    let small: Plane
    let minSpacing: Double, maxSpacing: Double, minPeriodicity: Double, minHalfAgreement: Double
    let minLineContinuity: Double
    /// The smallest large view (working pixels, either side). Only a large view is searched
    /// over every direction and over half profiles: on smaller ones the sharpest of 180
    /// directions is often a chance alignment of cells (43 of the 246 crops of 220 px in
    /// ldc-maxkudi gained a ruling the histogram rightly did not see). And a large view's
    /// halves are compared on the half-size copy.
    static let largeView = 400

    /// A profile (starting at normal coordinate `origin`) periodic enough for a family, with
    /// its period; nil when not, or when it spans fewer than `minPeriods` periods.
    private func periodicSpan(_ profile: [Double], origin: Double, minPeriods: Double = 0)
        -> (profile: [Double], origin: Double, period: (period: Double, strength: Double, phase: Double))? {
        guard let p = dominantPeriod(profile, minLag: minSpacing, maxLag: maxSpacing), p.strength >= minPeriodicity,
              Double(profile.count) >= minPeriods * p.period else { return nil }
        return (profile, origin, p)
    }

    /// - Parameters:
    ///   - starts: normal directions (degrees) of the two families, to within about three
    ///     degrees.
    ///   - partialViews: a family not periodic over the whole view may be over either half of
    ///     its profile (the view's edge of the ruled area: the other half holds only cells).
    func find(startingAt starts: [Double], partialViews: Bool = false)
        -> (angles: [Double], spacings: [Double], phases: [Double], strengths: [Double], profiles: [RulingFamilyProfile])? {
        var angles: [Double] = [], spacings: [Double] = [], phases: [Double] = [], strengths: [Double] = []
        var profiles: [RulingFamilyProfile] = []
        // The gradient points across the line: it is the line family's normal. The histogram
        // gives it to about half a degree; line removal needs better (a 0.5 degree error drifts
        // a line by most of a pixel within one median block), so refine it to 0.05 degree by
        // maximising the sharpness of the projection profile. Both families share their
        // projection passes.
        let normals = refineLineNormals(small, degrees: starts).map { $0 * .pi / 180 }
        // The halves' agreement reads a large view on the half-size copy (at full size the test
        // cost 2 % of a 1920 x 1080 pipeline run), a small one at full size, where halving lost
        // a ruling's agreement in a 220-pixel crop.
        let (agreementPlane, factor) = min(contrast.width, contrast.height) >= Self.largeView ? (small, 2.0) : (contrast, 1.0)
        for (normal, (whole, wholeOrigin)) in zip(normals, projectionProfiles(contrast, normalAngles: normals)) {
            var periodic = periodicSpan(whole, origin: wholeOrigin)
            if periodic == nil && partialViews {
                let half = whole.count / 2
                periodic = periodicSpan(Array(whole[..<half]), origin: wholeOrigin, minPeriods: 4)
                    ?? periodicSpan(Array(whole[half...]), origin: wholeOrigin + Double(half), minPeriods: 4)
            }
            guard let (profile, origin, p) = periodic else { return nil }
            // Both halves of the view show structure across this family and it does not line
            // up: cells or specks, not lines (`HalfProfileAgreement`).
            if minHalfAgreement > 0,
               HalfProfileAgreement(agreementPlane, normalAngle: normal, period: p.period / factor)?
                   .contradicts(minCorrelation: minHalfAgreement) == true {
                return nil
            }
            angles.append(normal + .pi / 2)
            spacings.append(p.period)
            phases.append(origin + p.phase)
            strengths.append(p.strength)
            profiles.append(RulingFamilyProfile(profile: profile, origin: origin, period: p.period, phase: p.phase))
        }
        // A small view's chance periodicity of a few cells: neither family has a line that runs
        // through the view. (One family may: where the ruled area ends in view, or glare breaks
        // a line, the other's lines run through half of it; and in large views a dense clump or
        // a faint ruling breaks real lines up as much as cells make them.)
        if minLineContinuity > 0, min(contrast.width, contrast.height) < Self.largeView {
            let continuities = (0..<2).compactMap { k in
                lineContinuity(contrast, normalAngle: normals[k], period: spacings[k], phase: phases[k])
            }
            if let best = continuities.max(), best < minLineContinuity { return nil }
        }
        // Order: the family whose lines run closest to horizontal first.
        if abs(cos(angles[0])) < abs(cos(angles[1])) {
            angles.swapAt(0, 1); spacings.swapAt(0, 1); phases.swapAt(0, 1); strengths.swapAt(0, 1)
            profiles.swapAt(0, 1)
        }
        return (angles, spacings, phases, strengths, profiles)
    }
}

/// Normal directions (degrees) of the two nearly perpendicular line families (90 +- 4
/// degrees apart) whose projections of `contrast` are sharpest together
/// (`projectionSharpness` on a half-size copy, every whole degree): where straight lines run,
/// whatever else the view holds.
func sharpestPerpendicularNormals(_ contrast: Plane) -> [Double] {
    let coarse = downsample(contrast, factor: 2)
    let degrees = (0..<180).map(Double.init)
    let sharpness = projectionSharpness(degrees, on: coarse)
    var best = (first: 0, second: 90, value: -1.0)
    for i in 0..<180 {
        for d in -4...4 {
            let j = (i + 90 + d) % 180
            if sharpness[i] + sharpness[j] > best.value { best = (i, j, sharpness[i] + sharpness[j]) }
        }
    }
    return [Double(best.first), Double(best.second)]
}

/// Detrended energy of the projection profile of `plane` along each normal direction
/// (degrees), all projected in shared passes: straight lines project to sharp peaks only when
/// the projection runs exactly along them.
func projectionSharpness(_ degrees: [Double], on plane: Plane) -> [Double] {
    projectionProfiles(plane, normalAngles: degrees.map { $0 * .pi / 180 }).map { profile, _ in detrendedEnergy(profile) }
}

/// Sum of squared differences of each sample from the mean of its two neighbours (0 for a
/// profile of 8 samples or fewer): large where the profile has sharp peaks.
func detrendedEnergy(_ profile: [Double]) -> Double {
    guard profile.count > 8 else { return 0 }
    var energy = 0.0
    for i in 1..<(profile.count - 1) {
        let d = profile[i] - 0.5 * (profile[i - 1] + profile[i + 1])
        energy += d * d
    }
    return energy
}

/// For each start direction (degrees), the normal direction near it whose projection profile
/// of `contrast` has the most detrended energy: straight lines project to sharp peaks only
/// when the projection runs exactly along them. Coarse-to-fine search over +-3 degrees.
///
/// Each search runs as on its own, but the directions all searches score at a stage are
/// projected in shared passes (the same profiles bit for bit; a pass fills up to four side
/// by side).
func refineLineNormals(_ contrast: Plane, degrees starts: [Double]) -> [Double] {
    // The coarse 0.5-degree stage runs on a further 2x-reduced copy: a quarter of the work,
    // and half-degree steps do not need the resolution.
    let coarse = downsample(contrast, factor: 2)
    var best = starts
    // The last stage starts from a direction the previous fine stage has already scored.
    var fineScores = [[(degrees: Double, value: Double)]](repeating: [], count: starts.count)
    for (step, reach, fine) in [(0.5, 6, false), (0.15, 2, true), (0.05, 1, true)] {
        // Per search: the centre first, then k = -reach ... reach; compared in that order.
        let candidates = best.map { centre in
            [centre] + (-reach...reach).filter { $0 != 0 }.map { centre + Double($0) * step }
        }
        var scores: [[Double]]
        if fine {
            let unknown = zip(candidates, fineScores).map { degrees, known in
                degrees.filter { deg in !known.contains { $0.degrees == deg } }
            }
            var values = projectionSharpness(unknown.flatMap { $0 }, on: contrast)[...]
            for (i, degrees) in unknown.enumerated() {
                fineScores[i] += zip(degrees, values.prefix(degrees.count)).map { ($0, $1) }
                values = values.dropFirst(degrees.count)
            }
            scores = zip(candidates, fineScores).map { degrees, known in
                degrees.map { deg in known.first { $0.degrees == deg }!.value }
            }
        } else {
            var values = projectionSharpness(candidates.flatMap { $0 }, on: coarse)[...]
            scores = []
            for degrees in candidates {
                scores.append(Array(values.prefix(degrees.count)))
                values = values.dropFirst(degrees.count)
            }
        }
        for i in best.indices {
            var bestValue = scores[i][0]
            for (candidate, v) in zip(candidates[i], scores[i]).dropFirst() {
                if v > bestValue { bestValue = v; best[i] = candidate }
            }
        }
    }
    return best
}

/// Stage 3: the ruling, the calibration (µm per pixel) and an image -> chamber mapping.
///
/// The mapping is affine (two line families with their own spacing), refined to a homography
/// where the view is seen a little off square (`gridPerspective`). Each family is registered
/// against the Neubauer ruling (`registerRuling`): the pattern of triple and single lines tells
/// 250 µm squares from 200 µm group squares and 50 µm small squares (the calibration), and
/// where in the chamber the view lies; the two families' fits are then weighed as pairs on the
/// whole view (`registerRulingInView`, `gridRegisterInView`). A view that cannot tell the
/// spacing takes the configured `gridSpacingUm` ("grid-scale-assumed"); one that repeats
/// elsewhere in the chamber, or mirrored, gets one of the places it fits ("grid-origin-assumed").
/// A view whose lines converge too much for one direction per family (a chamber seen strongly
/// off square) is searched again rectified (`KeystoneRectification`, `gridKeystone`,
/// "grid-keystone"). A view with no ruling registered ("no-grid") takes the configured
/// calibration, if any (`PipelineConfig.umPerPixel`, "calibration-from-config").
struct GridStage: Stage {
    let name = "grid"

    func run(_ frame: inout Frame) throws {
        let config = frame.config
        guard config.gridEnabled, frame.flat.count > 0 else {
            noRuling(&frame)
            return
        }
        let s = Double(frame.scale)
        // Steps: "line search", the fallbacks that ran ("keystone fallback", "residue
        // fallback"), then for a ruling found "registration", "perspective" and "triple lines".
        var clock = StepClock(stage: name)
        defer { frame.steps += clock.steps }
        func search(_ plane: Plane, starts: [Double]?, tried: inout [[Double]]) -> GridLines? {
            detectGridLines(flat: plane, minSpacing: config.gridMinSpacingPx / s, maxSpacing: config.gridMaxSpacingPx / s,
                            minPeriodicity: config.gridMinPeriodicity, minHalfAgreement: config.gridMinHalfAgreement,
                            minLineContinuity: config.gridMinLineContinuity, starts: starts, tried: &tried)
        }
        // The plane the ruling was found on: the view, or where the whole view shows none, the
        // view rectified, its lines parallel again (`gridKeystone`). (Lines that run parallel
        // already were searched for on the view, over every direction where the histogram's
        // peaks did not find them.)
        var plane = frame.flat
        var rectification: KeystoneRectification?
        // The start directions the view's own search tried: the histogram's peaks start the
        // keystone tiles, and every pair the residue-free search.
        var tried: [[Double]] = []
        var found = search(plane, starts: nil, tried: &tried)
        clock.lap("line search")
        if found == nil, config.gridKeystone {
            if let r = KeystoneRectification.of(frame.flat, startNormals: tried.first),
               r.convergenceDegrees >= KeystoneRectification.parallelDegrees {
                let rectified = r.warp(frame.flat, fill: 1)
                var triedRectified: [[Double]] = []
                if let lines = search(rectified, starts: r.normalDegrees, tried: &triedRectified) {
                    found = lines
                    plane = rectified
                    rectification = r
                }
            }
            // Lapped whether it found the ruling or not.
            clock.lap("keystone fallback")
        }
        // Last, the whole view again with the smooth residue of glare taken out (`gridResidueRetry`).
        var fromResidue = false
        if found == nil, config.gridResidueRetry {
            fromResidue = true
            found = residueFreeGridLines(flat: frame.flat, minSpacing: config.gridMinSpacingPx / s,
                                         maxSpacing: config.gridMaxSpacingPx / s,
                                         minPeriodicity: config.gridMinPeriodicity,
                                         minHalfAgreement: config.gridMinHalfAgreement,
                                         minLineContinuity: config.gridMinLineContinuity, startPairs: tried)
            clock.lap("residue fallback")
        }
        guard let lines = found else {
            noRuling(&frame)
            return
        }
        // A ruling the registration turns down ends the stage early: that time is the
        // registration's all the same.
        var registering = true
        defer { if registering { clock.lap("registration") } }
        // Which Neubauer spacing each family's period is and where its lines lie in the chamber
        // (`registerRulingInView`, or `registerRuling` on the projections alone); when the
        // profiles cannot be scored, the configured spacing with a line of each family on
        // chamber 0.
        let normals = lines.angles.map { $0 - .pi / 2 }
        var inView: [RulingFamilyFit]?
        if config.gridRegisterInView {
            // Blocks of 4 working pixels for the decision, of 16 for the first look at every pair.
            let fine = RulingView(plane, scale: frame.scale, step: 4), coarse = RulingView(coarsening: fine, by: 4)
            inView = registerRulingInView(lines.profiles, agreement: { pair, firstLook in
                chamberMapping(normals: normals, fits: pair, scale: frame.scale).flatMap {
                    (firstLook ? coarse : fine).agreement(imageToChamber: $0.imageToChamber,
                                                          umPerPixel: $0.umPerPixel, workingScale: frame.scale,
                                                          emptySideSquares: config.gridEmptySideSquares)
                }
            }, assumedSpacingUm: config.gridSpacingUm)
        }
        let fits = inView ?? registerRuling(lines.profiles, assumedSpacingUm: config.gridSpacingUm) ?? (0..<2).map { k in
            let u = config.gridSpacingUm / lines.spacings[k]
            return RulingFamilyFit(umPerPixel: u, offsetUm: -u * lines.phases[k], spacingUm: config.gridSpacingUm,
                                   scaleKnown: false, originKnown: false, score: 0)
        }
        // A ruling only the residue-free contrast shows is taken where the Neubauer pattern pins
        // its scale: on faint lines whose spacing the registration can only assume, it took a
        // half or two and a half times the true scale.
        guard !fromResidue || fits.allSatisfy(\.scaleKnown),
              let (mapped, umPerPixel) = chamberMapping(normals: normals, fits: fits, scale: frame.scale) else {
            noRuling(&frame)
            return
        }
        // Found on the rectified view, the map is that view's: composed with the rectification
        // it is the view's own, a homography. (The rectification leaves the centre's scale and
        // directions as they are, so the calibration and the families' angles stand.)
        var registered = mapped
        if let rectification {
            guard let composed = rectification.composed(mapped, scale: frame.scale) else {
                noRuling(&frame)
                return
            }
            registered = composed
        }
        clock.lap("registration")
        registering = false
        // A scale the registration assumed still predicts where lines lie on its lattice; where
        // it predicts them wrongly, too few are seen and the registered map stays.
        var h = registered
        if config.gridPerspective {
            if let refined = perspectiveRefined(frame.flat, imageToChamber: registered, scale: frame.scale) {
                h = refined.imageToChamber
            }
            clock.lap("perspective")
        }
        guard !config.gridViewInRuledArea
                || viewMeetsRuledArea(imageToChamber: h, width: frame.image.width, height: frame.image.height) else {
            noRuling(&frame)
            return
        }
        let corners = Homography(matrix: h)?.inverse.map { NeubauerGeometry.ruledAreaCorners.compactMap($0.apply) } ?? []
        let angleDeg = lines.angles[0] * 180 / .pi
        let result = GridResult(corners: corners, umPerPixel: umPerPixel,
                                angleDegrees: angleDeg > 90 ? angleDeg - 180 : angleDeg, imageToChamber: h)
        let scaleKnown = fits.allSatisfy(\.scaleKnown)
        // Only the triple-crossing filter reads it.
        var tripleHalfWidth: Double?
        if config.tripleWidthMeasured && config.tripleCrossingMarginPx > 0 && scaleKnown {
            tripleHalfWidth = tripleLineHalfWidth(frame.flat, imageToChamber: h, scale: frame.scale)
            clock.lap("triple lines")
        }
        frame.grid = DetectedGrid(angles: lines.angles, spacings: lines.spacings, phases: lines.phases,
                                  strengths: lines.strengths, result: result, scaleKnown: scaleKnown,
                                  tripleHalfWidthUm: tripleHalfWidth)
        if !scaleKnown { frame.flag("grid-scale-assumed") }
        if !fits.allSatisfy(\.originKnown) { frame.flag("grid-origin-assumed") }
        if rectification != nil { frame.flag("grid-keystone") }
        if config.sizeFrom == .calibration {
            let radii = config.calibratedRadiusRangePx(umPerPixel: umPerPixel)
            frame.minRadius = radii.min / s
            frame.maxRadius = radii.max / s
        }
    }

    /// No ruling registered: flagged, and calibrated all the same when the configuration gives
    /// the microscope's calibration (`Frame.umPerPixel` reads it; the normalize stage already
    /// took the cell size range through it, `radiusRangeBeforeRulingPx`).
    private func noRuling(_ frame: inout Frame) {
        frame.flag("no-grid")
        if frame.config.umPerPixel > 0 { frame.flag("calibration-from-config") }
    }
}
