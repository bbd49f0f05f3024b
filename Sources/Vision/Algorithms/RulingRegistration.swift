import Foundation
import Hemocytometer

/// Where one line family of a detected ruling sits in the Neubauer-improved chamber: the scale
/// and offset that map a coordinate along the family's normal to chamber micrometres.
public struct RulingFamilyFit: Sendable, Equatable {
    /// Chamber µm per plane pixel along the normal.
    public var umPerPixel: Double
    /// Chamber coordinate (µm) of normal coordinate 0: u(t) = umPerPixel * t + offsetUm.
    public var offsetUm: Double
    /// Which Neubauer spacing the family's period is (50, 200, 250 or 1000 µm).
    public var spacingUm: Double
    /// False when another scale fits the ruling in view about as well (no triple line or
    /// change of spacing in view); the spacing is then the assumed one where it can be.
    public var scaleKnown: Bool
    /// False when other positions in the chamber fit about as well (a view showing one
    /// repeating stretch of the ruling, or its mirror image): the offset is then one of them.
    public var originKnown: Bool
    /// Correlation of the line masses this fit predicts with those seen (-1 ... 1).
    public var score: Double

    /// The chamber coordinate of normal coordinate `t`.
    public func chamberUm(_ t: Double) -> Double { umPerPixel * t + offsetUm }
}

/// One detected line family, as the grid search found it.
public struct RulingFamilyProfile: Sendable {
    /// Mean line contrast along the family's normal, one sample per plane pixel
    /// (`projectionProfile`); sample i covers normal coordinates [origin + i, origin + i + 1).
    public var profile: [Double]
    /// Normal coordinate of the profile's first sample, plane pixels.
    public var origin: Double
    /// The family's line spacing, plane pixels.
    public var period: Double
    /// Profile index of one of the family's lines (`dominantPeriod`'s phase).
    public var phase: Double
    public init(profile: [Double], origin: Double, period: Double, phase: Double) {
        self.profile = profile
        self.origin = origin
        self.period = period
        self.phase = phase
    }
}

/// Registers the two line families of a detected ruling against the Neubauer-improved ruling
/// (`NeubauerGeometry.rulingLines`): which spacing each family's period is (hence µm per
/// pixel), and which of the chamber's lines its lines are.
///
/// Why: the period alone does not give the scale. The 250 µm squares of the outer large
/// squares, the 200 µm group squares of the central column and row (drawn with triple lines)
/// and the central square's 50 µm squares all make periodic rulings, and taking a 200 µm
/// period for 250 µm puts the calibration 25% off (the area, and a concentration from it, 56%).
/// What tells them apart is the pattern: which lines are triple, where the spacing changes,
/// which lines lie between. Each family is scored for every spacing and every chamber line its
/// strongest line could be (`rulingFamilyFits`); the two families then take the best pair
/// that agrees on µm per pixel (square pixels: one scale, whatever each family's spacing), which
/// settles a family whose own pattern is ambiguous (a 250 µm ruling with a triple line every
/// fourth line looks like the central 50 µm one) by the other.
///
/// - Parameters:
///   - families: the two families (or one).
///   - assumedSpacingUm: a spacing preferred, among pairs about as good as the best, when the
///     pattern cannot tell the scale.
///   - margin: how much better (in summed correlation) the best pair must score than the best
///     pair of another scale, and each family's fit than its best fit at another chamber
///     position, to count as known.
///   - maxScaleRatio: the largest ratio of the two families' µm per pixel one pair may have
///     (perspective makes them differ a little; the spacings differ by 1.25x at least).
/// - Returns: one fit per family, or nil when a family's profile cannot be scored.
public func registerRuling(_ families: [RulingFamilyProfile],
                           assumedSpacingUm: Double = NeubauerGeometry.cornerSubsquareUm,
                           margin: Double = 0.1, maxScaleRatio: Double = 1.12) -> [RulingFamilyFit]? {
    let hypotheses = families.map(rulingFamilyFits)
    guard !hypotheses.isEmpty, hypotheses.allSatisfy({ !$0.isEmpty }) else { return nil }
    // Each family's best fit per spacing.
    let bestPerSpacing: [[RulingFamilyFit]] = hypotheses.map { fits in
        Dictionary(grouping: fits, by: \.spacingUm).values
            .compactMap { $0.max { $0.score < $1.score } }
            .sorted { $0.spacingUm < $1.spacingUm }
    }
    let limit = log(max(1, maxScaleRatio))
    func score(_ p: [RulingFamilyFit]) -> Double { p.reduce(0) { $0 + $1.score } }
    let ranked = scaleAgreeingPairs(bestPerSpacing, limit: limit)
        .sorted { (score($0), -$0[0].spacingUm) > (score($1), -$1[0].spacingUm) }
    guard var chosen = ranked.first else { return nil }
    let rival = ranked.first { !scalesAgree($0[0], chosen[0], limit: limit) }
    let scaleKnown = rival.map { score(chosen) - score($0) >= margin } ?? true
    if !scaleKnown, let assumed = ranked.first(where: { p in
        score(p) >= score(chosen) - margin && p.contains { $0.spacingUm == assumedSpacingUm }
    }) {
        chosen = assumed
    }
    return zip(chosen, hypotheses).map { fit, fits in
        var fit = fit
        fit.scaleKnown = scaleKnown
        // Another position for the same spacing: at least half a spacing away.
        let rivalPosition = fits.filter {
            $0.spacingUm == fit.spacingUm && abs($0.offsetUm - fit.offsetUm) >= 0.5 * fit.spacingUm
        }.map(\.score).max() ?? -1
        fit.originKnown = scaleKnown && fit.score - rivalPosition >= margin / 2
        return fit
    }
}

/// Every registration hypothesis of one family: for each Neubauer spacing its period could be,
/// and each chamber line its strongest line could be, the correlation of the line masses that
/// predicts with those in the profile.
func rulingFamilyFits(_ family: RulingFamilyProfile) -> [RulingFamilyFit] {
    let profile = family.profile, origin = family.origin, period = family.period, phase = family.phase
    let n = profile.count
    guard n >= 8, period.isFinite, period >= 2, phase.isFinite else { return [] }
    let detrended = profileAboveBackground(profile, block: max(4, Int((period / 2).rounded())))
    var energy = 0.0
    for v in detrended { energy += v * v }
    guard energy > 1e-18 else { return [] }
    // Where the family's lines really are: sample index of line k = a + b * k. The period and
    // phase come from a folded autocorrelation, a pixel or two off over a view, and a stroke
    // of a triple line is a pixel or two wide.
    let lattice = fitLineLattice(detrended, start: phase, period: period)
    let lines = rulingLineMasses, strokes = rulingStrokeMasses
    let spacings: [Double] = [NeubauerGeometry.smallSquareUm, NeubauerGeometry.groupSquareUm,
                              NeubauerGeometry.cornerSubsquareUm, NeubauerGeometry.largeSquareUm]
    var prefix = [Double](repeating: 0, count: n + 1)
    for i in 0..<n { prefix[i + 1] = prefix[i] + detrended[i] }
    var fits: [RulingFamilyFit] = []
    for spacing in spacings {
        // µm per sample; chamber coordinate of sample i = scale * i + (line - scale * a).
        let scale = spacing / lattice.b
        // Where this scale puts a triple line's strokes (5 µm apart) three samples apart or
        // more, each stroke's mass is compared on its own, within half that of its middle: a
        // compact line then fails a hypothesis that wants a wide triple (at 50 µm spacing the
        // pattern of 250 µm squares with their triple border recurs, five times smaller).
        // Closer, each line's mass, within 7 µm of its middle (and a sample and a half).
        let gap = NeubauerGeometry.tripleLineOffsetUm / scale
        let (masses, reach) = gap >= 3 ? (strokes, gap / 2) : (lines, max(1.5, 7 / scale))
        for line in lines {
            let offset = line.positionUm - scale * lattice.a
            guard let r = rulingMassCorrelation(prefix, lines: masses, lattice: lattice, scale: scale,
                                                offset: offset, reach: reach) else { continue }
            // Normal coordinate t = origin + i + 0.5.
            fits.append(RulingFamilyFit(umPerPixel: scale, offsetUm: offset - scale * (origin + 0.5), spacingUm: spacing,
                                        scaleKnown: true, originKnown: true, score: r))
        }
    }
    return fits
}

/// Every line (or every stroke) of the ruling along one axis, µm, with the contrast mass it
/// adds to a projection across it: a stroke counts one, a triple line three; a line of the
/// central large square's 50 µm squares runs through only that square (a third of the ruled
/// area) and counts half.
private func rulingMasses(strokes: Bool) -> [(positionUm: Double, mass: Double)] {
    NeubauerGeometry.rulingLines().flatMap { line -> [(positionUm: Double, mass: Double)] in
        let weight = line.extentEndUm - line.extentStartUm < NeubauerGeometry.ruledAreaUm ? 0.5 : 1
        let positions = line.strokePositionsUm
        return strokes ? positions.map { ($0, weight) } : [(line.positionUm, weight * Double(positions.count))]
    }
}

/// `rulingMasses` by line and by stroke, built once rather than for every family scored.
private let rulingLineMasses = rulingMasses(strokes: false)
private let rulingStrokeMasses = rulingMasses(strokes: true)

/// Correlation between the line (or stroke) masses a ruling hypothesis predicts and those the
/// profile shows, at every chamber line (stroke) in view and at every lattice position and quarter position
/// (where the hypothesis may predict nothing: a line seen there that it does not explain
/// counts against it). Sample i lies at chamber coordinate scale * i + offset; `prefix` holds
/// the detrended profile's running sums. Nil with fewer than three positions in view.
private func rulingMassCorrelation(_ prefix: [Double], lines: [(positionUm: Double, mass: Double)],
                                   lattice: (a: Double, b: Double), scale: Double, offset: Double,
                                   reach: Double) -> Double? {
    let n = prefix.count - 1
    func observed(_ x: Double) -> Double? {
        let lo = Int((x - reach).rounded(.up)), hi = Int((x + reach).rounded(.down))
        guard lo >= 0, hi <= n - 1, lo <= hi else { return nil }
        return prefix[hi + 1] - prefix[lo]
    }
    var pairs: [(predicted: Double, observed: Double)] = []
    var ruled: [Double] = []
    for line in lines {
        let x = (line.positionUm - offset) / scale
        guard let o = observed(x) else { continue }
        pairs.append((line.mass, o))
        ruled.append(x)
    }
    let quarters = Int((Double(n) / lattice.b * 4).rounded(.up)) + 8
    let first = Int((-lattice.a / lattice.b * 4).rounded(.down)) - 4
    for q in first...(first + quarters) {
        let x = lattice.a + lattice.b * Double(q) / 4
        guard !ruled.contains(where: { abs($0 - x) <= reach }), let o = observed(x) else { continue }
        pairs.append((0, o))
    }
    guard pairs.count >= 3 else { return nil }
    let m = Double(pairs.count)
    let mp = pairs.reduce(0) { $0 + $1.predicted } / m, mo = pairs.reduce(0) { $0 + $1.observed } / m
    var spo = 0.0, spp = 0.0, soo = 0.0
    for p in pairs {
        spo += (p.predicted - mp) * (p.observed - mo)
        spp += (p.predicted - mp) * (p.predicted - mp)
        soo += (p.observed - mo) * (p.observed - mo)
    }
    guard spp > 1e-18, soo > 1e-18 else { return nil }
    return spo / (spp * soo).squareRoot()
}

/// The line lattice of a profile above its background: sample index a + b * k of line k, by
/// least squares on the centroids of the lines found near `start + k * period` (each within a
/// sixth of a period, its positive mass at least a quarter of a typical strong line's), twice,
/// the spacing kept within 4% of `period`. Line 0 is the strongest line found: a real line, so
/// that a hypothesis can put a chamber line on it. Falls back to (start, period) with fewer
/// than two lines.
func fitLineLattice(_ detrended: [Double], start: Double, period: Double) -> (a: Double, b: Double) {
    let n = detrended.count
    var a = start, b = period
    let kMin = Int((-a / b).rounded(.down)), kMax = Int(((Double(n - 1) - a) / b).rounded(.up))
    guard kMin <= kMax else { return (a, b) }
    var strongest = 0.0
    for _ in 0..<2 {
        var lines: [(k: Double, centre: Double, mass: Double)] = []
        let reach = max(2, b / 6)
        for k in kMin...kMax {
            let p = a + b * Double(k)
            let lo = max(0, Int((p - reach).rounded(.up))), hi = min(n - 1, Int((p + reach).rounded(.down)))
            guard lo <= hi else { continue }
            var mass = 0.0, moment = 0.0
            for i in lo...hi where detrended[i] > 0 {
                mass += detrended[i]
                moment += detrended[i] * Double(i)
            }
            if mass > 0 { lines.append((Double(k), moment / mass, mass)) }
        }
        let strong = lines.map(\.mass).sorted(by: >)
        guard let typical = strong.isEmpty ? nil : strong[min(strong.count - 1, strong.count / 4)] else { break }
        let kept = lines.filter { $0.mass >= 0.25 * typical }
        guard kept.count >= 2 else { break }
        strongest = kept.max { $0.mass < $1.mass }?.k ?? 0
        let m = Double(kept.count)
        let mk = kept.reduce(0) { $0 + $1.k } / m, mc = kept.reduce(0) { $0 + $1.centre } / m
        var skk = 0.0, skc = 0.0
        for l in kept { skk += (l.k - mk) * (l.k - mk); skc += (l.k - mk) * (l.centre - mc) }
        // The autocorrelation's period is an average over the view and is trusted to 4%: a
        // line taken for another (a clump of cells) must not drag the lattice further.
        guard skk > 0, abs(skc / skk / period - 1) <= 0.04 else { break }
        b = skc / skk
        a = mc - b * mk
    }
    return (a + b * strongest, b)
}

/// The profile minus its background: the median of each block of `block` samples, linearly
/// interpolated between block centres. Lines cover a small part of any block, so the median
/// is the background between them; a moving mean would take a share of each line's own mass
/// away, more of it near the ends of the profile, where the window is cut short.
private func profileAboveBackground(_ profile: [Double], block: Int) -> [Double] {
    let n = profile.count
    let blocks = max(1, (n + block / 2) / block)
    let size = Double(n) / Double(blocks)
    let medians: [Double] = (0..<blocks).map { b in
        let lo = Int((Double(b) * size).rounded()), hi = max(lo + 1, min(n, Int((Double(b + 1) * size).rounded())))
        let sorted = profile[lo..<hi].sorted()
        return sorted[sorted.count / 2]
    }
    return (0..<n).map { i in
        let t = max(0, min(Double(blocks - 1), (Double(i) + 0.5) / size - 0.5))
        let b0 = Int(t), b1 = min(blocks - 1, b0 + 1), f = t - Double(b0)
        return profile[i] - (medians[b0] + (medians[b1] - medians[b0]) * f)
    }
}

/// `registerRuling` decided on the whole view: every pair of family fits whose scales agree
/// (each family's `offsetsPerSpacing` best-scoring positions per spacing) is drawn through
/// its chamber map and scored by `agreement` (`RulingView.agreement`: on coarse blocks for a
/// first look, then on fine ones for the best pairs), and the pair that explains the view best
/// gives the scale. Where its spacings are `NeubauerGeometry.groupSquareUm` or more, the
/// pairs of those spacings are then looked at again with `offsetsPerWideSpacing` positions per
/// family, and the best of them gives the origin. Scale and origin count as known when the best
/// pair beats the best of another scale, and the best of its scale at another position, by
/// `margin` (and half that); an unknown scale takes `assumedSpacingUm` only where a pair of it
/// comes within a fifth of `margin`.
///
/// Why: see `RulingView.agreement`. Over 245 synthetic views of three generators (the suites
/// of the accuracy table), the projections alone put 13 a quarter or more off, this 2.
///
/// Why more positions for the wide spacings, and only once the scale is decided: along one axis
/// the 200 µm and 250 µm lines repeat from one large square to the next, so a family's
/// projection scores positions 1000 or 2000 µm apart about alike, and its three best can all be
/// copies of one wrong place while the right one, which the other family's lines (or the
/// central square's 50 µm lines) give away in the view, ranks fourth to eighth. Of the 619
/// registered views of the stand-in sets, 93 were placed more than 25 µm off (17 without a
/// flag), 83 then (8): 14 placed right, 4 misplaced that were right (each flagged "origin
/// assumed"). More positions in the scale's decision as well let a view
/// of even single lines (no triple line to tell the spacing) find some place where one spacing
/// fits well enough to count as known, and a faint view read 250 µm squares as the central
/// square's 50 µm ones.
///
/// Why both looks for the placement (the mean of the coarse and the fine agreement, where the
/// scale decision takes the fine one alone): a copy of the placement a large square away can
/// explain the fine blocks a little better than the right one while the coarse blocks (whole
/// lines, forgiving a pixel) still prefer the right one clearly (`cellqa synth` dense seed
/// 9001, second view: coarse 0.809 against 0.668, fine 0.526 against 0.572), most likely the
/// fitted map drifting a pixel or two off the fine 50 µm lines far from where it was fitted.
/// On the stand-in sets: 83 misplaced views to 76 (without a flag 8 to 5), 11 placed right and
/// 4 misplaced that were right (each flagged); detections the same but 3 cells fewer on that
/// dense view and 3 false detections fewer elsewhere.
///
/// - Returns: one fit per family (with `score` its projection's), or nil when no pair can be
///   scored.
func registerRulingInView(_ families: [RulingFamilyProfile], agreement: (_ pair: [RulingFamilyFit], _ coarse: Bool) -> Double?,
                          assumedSpacingUm: Double = NeubauerGeometry.cornerSubsquareUm,
                          offsetsPerSpacing: Int = 3, offsetsPerWideSpacing: Int = 8,
                          coarseReach: Double = 0.1, margin: Double = 0.05,
                          maxScaleRatio: Double = 1.12) -> [RulingFamilyFit]? {
    guard !families.isEmpty else { return nil }
    let limit = log(max(1, maxScaleRatio))
    // Every pair of fits of one scale, from each family's `positions(spacing)` best positions
    // per spacing (half a spacing apart or more).
    func agreeingPairs(_ hypotheses: [[RulingFamilyFit]], positions: (Double) -> Int) -> [[RulingFamilyFit]] {
        let options: [[RulingFamilyFit]] = hypotheses.map { fits in
            let groups = Dictionary(grouping: fits, by: \.spacingUm)
            return groups.keys.sorted().flatMap { spacing in
                var kept: [RulingFamilyFit] = []
                let group = groups[spacing, default: []]
                    .sorted { ($0.score, -$0.offsetUm, $0.umPerPixel) > ($1.score, -$1.offsetUm, $1.umPerPixel) }
                for fit in group where kept.count < positions(spacing)
                    && kept.allSatisfy({ abs($0.offsetUm - fit.offsetUm) >= 0.5 * spacing || $0.umPerPixel != fit.umPerPixel }) {
                    kept.append(fit)
                }
                return kept
            }
        }
        return scaleAgreeingPairs(options, limit: limit)
    }
    var fits = families.map(rulingFamilyFits)
    var pairs = agreeingPairs(fits) { _ in offsetsPerSpacing }
    // A family's period can lock onto twice the spacing (every other line of the central
    // square's 50 µm squares, where the 200 µm lines fall on every fourth): with no pair of one
    // scale, each family's period is also read halved.
    if pairs.isEmpty {
        fits = zip(families, fits).map { family, fits in
            var halved = family
            halved.period /= 2
            return fits + rulingFamilyFits(halved)
        }
        pairs = agreeingPairs(fits) { _ in offsetsPerSpacing }
    }
    func projected(_ p: [RulingFamilyFit]) -> Double { p.reduce(0) { $0 + $1.score } }
    func sameScale(_ a: [RulingFamilyFit], _ b: [RulingFamilyFit]) -> Bool { scalesAgree(a[0], b[0], limit: limit) }
    typealias Scored = (pair: [RulingFamilyFit], agreement: Double)
    func ranked(_ scored: [Scored]) -> [Scored] {
        scored.sorted { a, b in
            (a.agreement, projected(a.pair), -a.pair[0].spacingUm, -a.pair[0].offsetUm)
                > (b.agreement, projected(b.pair), -b.pair[0].spacingUm, -b.pair[0].offsetUm)
        }
    }
    // A coarse look at every pair, then a fine one at those within `coarseReach` of the best:
    // the best two of its scale (the origin's rival) and the best of each other scale (the
    // scale's). The decision and its margins are the fine look's; a scale more than
    // `coarseReach` behind is no rival.
    // Each pair is scored once on each kind of block: the placement's second look repeats the
    // first look's pairs.
    var scores: [[Double]: Double?] = [:]
    func score(_ pair: [RulingFamilyFit], coarse: Bool) -> Double? {
        let key: [Double] = [coarse ? 1 : 0] + pair.flatMap { [$0.spacingUm, $0.offsetUm, $0.umPerPixel] }
        if let known = scores[key] { return known }
        let value = agreement(pair, coarse)
        scores[key] = value
        return value
    }
    func look(_ pairs: [[RulingFamilyFit]]) -> [Scored] {
        let coarse = ranked(pairs.compactMap { p in score(p, coarse: true).map { (pair: p, agreement: $0) } })
        guard let top = coarse.first else { return [] }
        var finalists: [[RulingFamilyFit]] = []
        for c in coarse where c.agreement >= top.agreement - coarseReach {
            let ofScale = finalists.filter { sameScale($0, c.pair) }.count
            if ofScale < (sameScale(c.pair, top.pair) ? 2 : 1) { finalists.append(c.pair) }
        }
        return ranked(finalists.compactMap { p in score(p, coarse: false).map { (pair: p, agreement: $0) } })
    }
    let scored = look(pairs)
    guard var chosen = scored.first else { return nil }
    let rivalScale = scored.first { !sameScale($0.pair, chosen.pair) }
    let scaleKnown = rivalScale.map { chosen.agreement - $0.agreement >= margin } ?? true
    // The view tells more than a prior: the assumed spacing is taken only where it explains
    // the view about as well (a fifth of the margin). Taking it wherever it came within the
    // margin put 3 of 245 synthetic views a quarter off that the best pair had right; within a
    // tenth, a Golden of three single lines a side among dense cells went to 200 µm.
    if !scaleKnown, let assumed = scored.first(where: { c in
        c.agreement >= chosen.agreement - margin / 5 && c.pair.contains { $0.spacingUm == assumedSpacingUm }
    }) {
        chosen = assumed
    }
    // Where, among more positions of the chosen spacings (those already looked at included).
    var placed = scored.filter { sameScale($0.pair, chosen.pair) }
    let spacings = chosen.pair.map(\.spacingUm)
    if offsetsPerWideSpacing > offsetsPerSpacing, spacings.contains(where: { $0 >= NeubauerGeometry.groupSquareUm }) {
        let moreFits = fits.enumerated().map { k, familyFits in familyFits.filter { $0.spacingUm == spacings[k] } }
        let more = agreeingPairs(moreFits) { $0 >= NeubauerGeometry.groupSquareUm ? offsetsPerWideSpacing : offsetsPerSpacing }
            .filter { sameScale($0, chosen.pair) }
        // Ranked by the mean of the two looks: see "Why both looks" above.
        placed = ranked((placed + look(more).filter { c in !placed.contains { $0.pair == c.pair } }).map { c in
            (pair: c.pair, agreement: 0.5 * (c.agreement + (score(c.pair, coarse: true) ?? c.agreement)))
        })
        if let best = placed.first { chosen = best }
    }
    let rivalPosition = placed.first { c in
        zip(c.pair, chosen.pair).contains { abs($0.offsetUm - $1.offsetUm) >= 0.5 * $1.spacingUm }
    }
    let originKnown = scaleKnown && (rivalPosition.map { chosen.agreement - $0.agreement >= margin / 2 } ?? true)
    return chosen.pair.map { fit in
        var fit = fit
        fit.scaleKnown = scaleKnown
        fit.originKnown = originKnown
        return fit
    }
}

/// Whether two fits' scales agree: |log| of the ratio of their µm per pixel at most `limit`.
private func scalesAgree(_ a: RulingFamilyFit, _ b: RulingFamilyFit, limit: Double) -> Bool {
    abs(log(a.umPerPixel / b.umPerPixel)) <= limit
}

/// Every combination of one fit per family (`options[k]` the choices of family k, combined in
/// that order) whose scales all agree with the first family's.
private func scaleAgreeingPairs(_ options: [[RulingFamilyFit]], limit: Double) -> [[RulingFamilyFit]] {
    var pairs: [[RulingFamilyFit]] = [[]]
    for fits in options { pairs = pairs.flatMap { p in fits.map { p + [$0] } } }
    return pairs.filter { p in p.allSatisfy { scalesAgree($0, p[0], limit: limit) } }
}
