import Foundation
import Imaging

/// Colour and brightness of one candidate measured on the full-resolution image.
public struct CellAppearance: Sendable, Equatable {
    /// Hue (degrees), saturation and brightness ratio of the cell interior after dividing by the
    /// local background colour (white balance), so colour casts of the lamp cancel.
    public var hueDeg: Double
    public var saturation: Double
    /// Interior linear luminance over the background's, minus 1 (Weber contrast).
    public var interiorContrast: Double
    /// Brightest centre pixel's Weber contrast (the refractile spot of a live cell).
    public var centreContrast: Double
    /// Mean Weber contrast of the centre disc (0.35 r) over that of the rim annulus
    /// (0.6 r ... 1.1 r), as a difference: well above 0 for a ring (a clear cell's dark rim
    /// around a centre at background level), at or below 0 for a filled dark blob.
    public var ringContrast: Double = 0
    /// Linear luminance of the background annulus, the contrasts' reference.
    public var backgroundLuminance: Double = 0

    /// The same measurement with its contrasts taken against `reference` (a linear luminance)
    /// instead of the background annulus. Hue and saturation are kept.
    public func relative(to reference: Double) -> CellAppearance {
        let eps = 1e-3
        let factor = (backgroundLuminance + eps) / (reference + eps)
        var a = self
        a.interiorContrast = (interiorContrast + 1) * factor - 1
        a.centreContrast = (centreContrast + 1) * factor - 1
        a.ringContrast = ringContrast * factor
        a.backgroundLuminance = reference
        return a
    }
}

/// Measures a candidate: interior disc (0.6 r), centre disc (0.35 r), rim annulus
/// (0.6 r ... 1.1 r), background annulus (1.5 r ... 2.2 r), subsampled so a big cell costs no
/// more than a small one (every `max(1, r / 6)`-th row and column; the background annulus on
/// every other one of those).
///
/// - Parameters:
///   - x, y, r: candidate centre and radius, image pixels.
public func measureAppearance(_ image: Image, x: Double, y: Double, r: Double) -> CellAppearance {
    let w = image.width, h = image.height
    let step = max(1, Int(r / 6))
    let outer = 2.2 * r
    let x0 = max(0, Int((x - outer).rounded(.down))), x1 = min(w - 1, Int((x + outer).rounded(.up)))
    let y0 = max(0, Int((y - outer).rounded(.down))), y1 = min(h - 1, Int((y + outer).rounded(.up)))
    var inner = (r: 0.0, g: 0.0, b: 0.0, lum: 0.0, n: 0.0)
    var ring = (r: 0.0, g: 0.0, b: 0.0, lum: 0.0, n: 0.0)
    var centreMax = 0.0, centreSum = 0.0, centreCount = 0.0, rimSum = 0.0, rimCount = 0.0
    let ri2 = (0.6 * r) * (0.6 * r), rc2 = max(1, (0.35 * r) * (0.35 * r)), rr2 = (1.1 * r) * (1.1 * r)
    let ra2 = (1.5 * r) * (1.5 * r), rb2 = outer * outer
    guard x0 <= x1, y0 <= y1 else { return CellAppearance(hueDeg: 0, saturation: 0, interiorContrast: 0, centreContrast: 0) }
    // Along a row d2 = dx * dx + dy * dy falls, then rises (it grows with |dx|, in floating
    // point too), so the samples with d2 at or below any level are one run: each zone is one
    // run or two, found once per row, and its samples are summed without a test each (the
    // zones' boundaries are where a branch per sample mispredicted). Every sum takes its
    // samples in row order, left to right, as the per-sample tests did: the same sums.
    let columns = (x1 - x0) / step + 1
    var d2s = [Double](repeating: 0, count: columns)
    let centreLevel = min(ri2, rc2)
    image.pixels.withUnsafeBufferPointer { px in
        srgbToLinear.withUnsafeBufferPointer { lut in
            d2s.withUnsafeMutableBufferPointer { d2b in
                let table = lut.baseAddress!, d2 = d2b.baseAddress!
                for (row, yy) in stride(from: y0, through: y1, by: step).enumerated() {
                    let dy = Double(yy) - y
                    // The background annulus is sampled on every other row and column of the
                    // lattice: it holds over half the samples, and its mean is the contrasts'
                    // reference, not a feature of its own. An odd row that reaches no nearer
                    // zone than the annulus has nothing to add.
                    let ringRow = row & 1 == 0
                    if !ringRow && dy * dy >= ra2 { continue }
                    for k in 0..<columns {
                        let dx = Double(x0 &+ k &* step) - x
                        d2[k] = dx * dx + dy * dy
                    }
                    // The run of samples at or below `level` inside `lo ..< hi` (which holds it).
                    @inline(__always) func run(_ level: Double, _ lo: Int, _ hi: Int, strict: Bool = false) -> (Int, Int) {
                        @inline(__always) func within(_ k: Int) -> Bool { strict ? d2[k] < level : d2[k] <= level }
                        var lo = lo, hi = hi
                        while lo < hi && !within(lo) { lo &+= 1 }
                        while hi > lo && !within(hi &- 1) { hi &-= 1 }
                        return (lo, hi)
                    }
                    let reach = run(rb2, 0, columns)
                    guard reach.0 < reach.1 else { continue }
                    // Nested runs (ri2 <= rr2 <= rb2); the background ring is what lies in
                    // reach outside both d2 < ra2 and the rim (for r > 0 the first holds the
                    // second).
                    let near = run(ra2, reach.0, reach.1, strict: true)
                    let rim = run(rr2, reach.0, reach.1)
                    let interior = run(ri2, rim.0, rim.1)
                    let centre = run(centreLevel, interior.0, interior.1)
                    let gap = near.0 == near.1 ? rim : rim.0 == rim.1 ? near : (min(near.0, rim.0), max(near.1, rim.1))
                    let row = px.baseAddress! + (yy &* w &+ x0) &* 3
                    let advance = step &* 3
                    @inline(__always) func linear(_ k: Int) -> (r: Double, g: Double, b: Double, lum: Double) {
                        let p = row + k &* advance
                        let lr = Double(table[Int(p[0])]), lg = Double(table[Int(p[1])]), lb = Double(table[Int(p[2])])
                        return (lr, lg, lb, 0.2126 * lr + 0.7152 * lg + 0.0722 * lb)
                    }
                    @inline(__always) func addRing(_ from: Int, _ to: Int) {
                        guard ringRow else { return }
                        for k in stride(from: from &+ (from & 1), to: to, by: 2) {
                            let v = linear(k)
                            ring.r += v.r; ring.g += v.g; ring.b += v.b; ring.lum += v.lum; ring.n += 1
                        }
                    }
                    @inline(__always) func addRim(_ from: Int, _ to: Int) {
                        for k in from..<to {
                            rimSum += linear(k).lum
                            rimCount += 1
                        }
                    }
                    addRing(reach.0, gap.0)
                    addRim(rim.0, interior.0)
                    for k in interior.0..<interior.1 {
                        let v = linear(k)
                        inner.r += v.r; inner.g += v.g; inner.b += v.b; inner.lum += v.lum; inner.n += 1
                    }
                    for k in centre.0..<centre.1 {
                        let lum = linear(k).lum
                        centreMax = max(centreMax, lum)
                        centreSum += lum
                        centreCount += 1
                    }
                    addRim(interior.1, rim.1)
                    addRing(gap.1, reach.1)
                }
            }
        }
    }
    return appearance(inner: inner, ring: ring, centreMax: centreMax, centreSum: centreSum, centreCount: centreCount,
                      rimSum: rimSum, rimCount: rimCount)
}

/// Sums of linear red, green, blue and luminance over a zone's samples, and their number.
typealias ZoneSums = (r: Double, g: Double, b: Double, lum: Double, n: Double)

/// A measurement's fields from its zone sums (`measureAppearance`): the interior (0.6 r),
/// the background annulus, the centre disc's brightest, summed and counted luminance, and
/// the rim annulus's summed and counted luminance.
func appearance(inner: ZoneSums, ring: ZoneSums, centreMax: Double, centreSum: Double, centreCount: Double,
                rimSum: Double, rimCount: Double) -> CellAppearance {
    guard inner.n > 0 else { return CellAppearance(hueDeg: 0, saturation: 0, interiorContrast: 0, centreContrast: 0) }
    let eps = 1e-3
    let bg = ring.n > 0 ? (ring.r / ring.n, ring.g / ring.n, ring.b / ring.n, ring.lum / ring.n)
                        : (inner.r / inner.n, inner.g / inner.n, inner.b / inner.n, inner.lum / inner.n)
    // White-balanced interior colour.
    let cr = (inner.r / inner.n + eps) / (bg.0 + eps)
    let cg = (inner.g / inner.n + eps) / (bg.1 + eps)
    let cb = (inner.b / inner.n + eps) / (bg.2 + eps)
    let hsv = hsvFrom(r: cr, g: cg, b: cb)
    let centreMean = centreCount > 0 ? centreSum / centreCount : inner.lum / inner.n
    let rimMean = rimCount > 0 ? rimSum / rimCount : centreMean
    return CellAppearance(hueDeg: hsv.h, saturation: hsv.s,
                          interiorContrast: (inner.lum / inner.n + eps) / (bg.3 + eps) - 1,
                          centreContrast: (centreMax + eps) / (bg.3 + eps) - 1,
                          ringContrast: (centreMean - rimMean) / (bg.3 + eps), backgroundLuminance: bg.3)
}

/// Hue (degrees 0 ..< 360), saturation (0 ... 1) and value of non-negative RGB.
public func hsvFrom(r: Double, g: Double, b: Double) -> (h: Double, s: Double, v: Double) {
    let mx = max(r, g, b), mn = min(r, g, b), d = mx - mn
    guard mx > 0 else { return (0, 0, 0) }
    var hue = 0.0
    if d > 0 {
        if mx == r { hue = 60 * ((g - b) / d).truncatingRemainder(dividingBy: 6) }
        else if mx == g { hue = 60 * ((b - r) / d + 2) }
        else { hue = 60 * ((r - g) / d + 4) }
    }
    if hue < 0 { hue += 360 }
    return (hue, d / mx, mx)
}

/// Live/dead decision for one measured cell.
///
/// Colour images (trypan blue): dead when the white-balanced hue is in the band, its
/// saturation above `saturationThreshold` and the interior darker than the background.
/// Greyscale: dead when the interior is darker than `deadDarkContrast` and there is no bright
/// refractile centre. Confidence 0.5 ... 1 grows with the margin to the deciding threshold.
public func classifyCell(_ a: CellAppearance, greyscale: Bool, saturationThreshold: Double,
                         config: PipelineConfig) -> (CellClass, Double) {
    func confidence(_ margin: Double, _ scale: Double) -> Double { 0.5 + 0.5 * min(1, abs(margin) / max(scale, 1e-9)) }
    if greyscale {
        let darkMargin = -a.interiorContrast - config.deadDarkContrast
        let brightMargin = config.refractileContrast - a.centreContrast
        let margin = min(darkMargin, brightMargin)
        return (margin > 0 ? .dead : .live, confidence(margin, config.deadDarkContrast))
    }
    let inBand = a.hueDeg >= config.hueMinDeg && a.hueDeg <= config.hueMaxDeg
    let satMargin = a.saturation - saturationThreshold
    let dark = a.interiorContrast < 0
    if inBand && satMargin > 0 && dark { return (.dead, confidence(satMargin, saturationThreshold)) }
    if !inBand && a.saturation > saturationThreshold { return (.live, 1) }
    return (.live, confidence(satMargin, saturationThreshold))
}

/// Debris in a colour trypan-blue image: darker than the background inside, without a bright
/// refractile centre, and not blue. A live cell is clear with a bright centre and a dead one
/// takes up the dye; a dark grey or brown blob is neither. (Greyscale images carry no hue, so
/// the rule cannot apply there: a dead cell is exactly such a dark blob.)
public func isUnstainedDark(_ a: CellAppearance, config: PipelineConfig) -> Bool {
    isDarkWithoutClearRing(a, config: config) && a.centreContrast < config.refractileContrast
}

/// Dark inside and not blue, as debris is, but with a bright centre (`refractileContrast`)
/// and no clear ring (`clearRingContrast`): a refractile cell or debris with a lighter spot,
/// which only the rim round the centre tells apart (`refractileRimShare`).
func isDarkWithBrightCentreOnly(_ a: CellAppearance, config: PipelineConfig) -> Bool {
    isDarkWithoutClearRing(a, config: config) && a.centreContrast >= config.refractileContrast
}

/// What a faint blue stain makes of a candidate called live (`faintStain`).
enum FaintStain: Equatable {
    /// Dark without a clear ring, a cell's size: the debris rule would have judged it.
    case darkDisc
    /// Darker than the background without a bright refractile centre, and not a candidate
    /// for the debris rule: only its call changes.
    case paleCell
}

/// `faintStainShare`: whether a candidate called live is a dead cell that took up little
/// dye, and which kind (nil: it is not). Off the ruling lines (`Candidate.onRulingLine`, no
/// `lineStep`), its white-balanced hue in the blue band with at least `faintStainShare` of
/// the image's dead threshold (`saturationThreshold`), and either dark without a clear ring
/// (`isDarkWithoutClearRing`, debris to the debris rule) with its half-contrast edge
/// (`DiscEdge`) a cell's (`defocusedDiscMinRadius` of `minRadiusPx`), or darker than the
/// background without a refractile centre (`refractileContrast`).
///
/// Why: uptake varies, and a cell that took up a little dye is as blue as a stained one, only
/// paler; a dark speck or grey debris is not blue at all, and a live cell is clear with a
/// bright centre. On a line the line's colour and edges decide the hue and the edge (a steep
/// tone curve tints heavy crossings blue); specks smaller than a cell take a blue cast from
/// noise. (The stage asks it only in an image with
/// `faintStainMinDeadCells` cells called dead.)
func faintStain(_ a: CellAppearance, of c: Candidate, in image: Image, saturationThreshold: Double,
                config: PipelineConfig) -> FaintStain? {
    guard c.lineStep == nil, !c.onRulingLine, a.hueDeg >= config.hueMinDeg, a.hueDeg <= config.hueMaxDeg,
          a.saturation >= config.faintStainShare * saturationThreshold else { return nil }
    guard isDarkWithoutClearRing(a, config: config) else {
        return a.interiorContrast < 0 && a.centreContrast < config.refractileContrast ? .paleCell : nil
    }
    guard let edge = DiscEdge(image, x: c.x, y: c.y, r: c.r),
          edge.radius >= config.defocusedDiscMinRadius * config.minRadiusPx else { return nil }
    return .darkDisc
}

/// Darker inside than the background by `debrisDarkContrast` (on) and without a clear ring
/// (`clearRingContrast`), whatever its centre.
private func isDarkWithoutClearRing(_ a: CellAppearance, config: PipelineConfig) -> Bool {
    config.debrisDarkContrast > 0 && a.interiorContrast < -config.debrisDarkContrast && !hasClearRing(a, config: config)
}

/// A clear cell's ring at least `clearRingContrast` deep (off at 0: no candidate has one).
private func hasClearRing(_ a: CellAppearance, config: PipelineConfig) -> Bool {
    config.clearRingContrast > 0 && a.ringContrast >= config.clearRingContrast
}

/// The debris rule's verdict on a candidate called live in a colour image, with what it
/// measured for the trace (nil: not measured).
struct DebrisVerdict: Equatable {
    var debris: Bool
    /// `clearRingDepth` at the candidate.
    var ringDepth: Double?
    /// How many sectors showed a grey disc inside a bright halo (`haloSectors`).
    var halo: Int?
    /// The half-contrast edge, when asked (`defocusedDiscRoundness`).
    var disc: DiscEdge?
    /// The halo's sectors at the disc's edge radius (`haloSectors`), when asked there.
    var haloAtEdge: Int?
    /// How many of the rim circle's 32 rays its fit holds (`refractileRimShare`), when asked.
    var rimInliers: Int?
    /// The halo's sectors counted beside touching cells (`haloClumpOpenSectors`), when asked.
    var haloInClump: Int?
    /// Judged a dark speck (`isDarkSpeck`) before the debris rule was asked.
    var speck = false
}

/// `darkSpeckMaxRadius`: a candidate called live (`a` the appearance the debris rule judges)
/// whose radius `r` stayed within that many smallest cell radii (`smallestRadius`, image
/// pixels), darker inside than the background without a clear ring.
///
/// Why: the debris rule judges the dark candidates (`debrisDarkContrast`) and spares round
/// discs of nearly a cell's size as cells out of focus, and a light point inside a rim circle
/// as a refractile centre; a faint speck blurred to the smallest radius passes them, and blank
/// controls hold many. Measured at the floor by every step, it is no larger than the smallest
/// cell, and at that size nearly every cell shows a clear ring (1,565 of the 1,570 that the
/// twelve synthetic evaluation sets' kept detections found there).
func isDarkSpeck(_ a: CellAppearance, r: Double, smallestRadius: Double, config: PipelineConfig) -> Bool {
    config.darkSpeckMaxRadius > 0 && r <= config.darkSpeckMaxRadius * smallestRadius * (1 + 1e-9)
        && a.interiorContrast < 0 && !hasClearRing(a, config: config)
}

/// The debris rule for a candidate called live in a colour image: debris when unstained and
/// dark (`isUnstainedDark`) unless it shows a grey disc inside a bright halo (`haloSectors`),
/// its profile a clear cell's ring at whatever radius (`clearRingDepth`) inside an outline
/// that is not ragged (`clearRingRaggedRoundness`), or its edge a round
/// disc at least a cell wide (`DiscEdge`, `defocusedDiscRoundness`), or a halo just outside
/// that edge, when the edge lies elsewhere than the candidate's radius. A candidate dark and
/// unstained but for a bright centre is debris unless that centre sits inside a rim circle
/// (`isDarkWithBrightCentreOnly`, `refractileRimShare`).
///
/// - Parameters:
///   - a: the candidate's appearance (line-relative when it lies on a line).
///   - x, y, r: its centre and radius, image pixels.
///   - onLine: the candidate lies on a ruling line (`Candidate.lineStep`). Only its halo is
///     asked: the line's two edges make a ring of its profile (on a blank control of triple
///     lines, the light gap between two strokes) and cut its disc's edge, while a halo shows
///     in the sectors the line leaves free. (Nineteenth session: the third generator's draws
///     +18 and +9 cells, nothing else moved but one cell of the six independent draws.)
func debrisVerdict(_ a: CellAppearance, x: Double, y: Double, r: Double, onLine: Bool = false, in image: Image,
                   config: PipelineConfig) -> DebrisVerdict {
    guard isUnstainedDark(a, config: config) else {
        guard config.refractileRimShare > 0, isDarkWithBrightCentreOnly(a, config: config),
              let rim = RimCircle(image, x: x, y: y, r: r) else { return DebrisVerdict(debris: false) }
        return DebrisVerdict(debris: !rim.holds(share: config.refractileRimShare), rimInliers: rim.inliers)
    }
    func haloSectorsAt(_ radius: Double) -> Int {
        haloSectors(image, x: x, y: y, r: radius, contrast: config.haloContrast,
                    blockedDarkness: config.haloBlockedDarkness, minOpenSectors: config.haloMinOpenSectors)
    }
    var halo: Int?
    if config.haloSectors > 0 {
        let sectors = haloSectorsAt(r)
        if sectors >= config.haloSectors { return DebrisVerdict(debris: false, halo: sectors) }
        halo = sectors
    }
    // On a line only the halo is asked (see `onLine`).
    guard !onLine else { return DebrisVerdict(debris: true, halo: halo) }
    var verdict = DebrisVerdict(debris: true, halo: halo)
    let edge = config.clearRingRaggedRoundness > 0 || config.defocusedDiscRoundness > 0
        ? DiscEdge(image, x: x, y: y, r: r) : nil
    if config.clearRingDepth > 0 {
        let depth = clearRingDepth(image, x: x, y: y, r: r, background: a.backgroundLuminance)
        verdict.ringDepth = depth
        if depth >= config.clearRingDepth {
            // Mottled debris fakes the ring with its darker patches; its outline is ragged.
            guard let edge, edge.isRagged(maxShare: config.clearRingRaggedRoundness,
                                          minLobes: config.clearRingRaggedLobes) else {
                verdict.debris = false
                return verdict
            }
            verdict.disc = edge
        }
    }
    let minDiscRadius = config.defocusedDiscMinRadius * config.minRadiusPx
    if config.defocusedDiscRoundness > 0, let edge {
        verdict.disc = edge
        verdict.debris = !edge.isDefocusedCell(minRadius: minDiscRadius,
                                                minShare: config.defocusedDiscRoundness,
                                                maxLobes: config.defocusedDiscMaxLobes,
                                                maxEdgeWidth: config.defocusedDiscMaxEdgeWidth)
        // A halo lies just outside the disc's edge, where a detection's radius that overshoots
        // the disc (blur, a neighbour's rim) does not look for it: asked again at the edge.
        if verdict.debris, config.haloSectors > 0, edge.radius != r, edge.radius >= minDiscRadius {
            let sectors = haloSectorsAt(edge.radius)
            verdict.haloAtEdge = sectors
            verdict.debris = sectors < config.haloSectors
        }
    }
    return verdict
}

/// The debris rule for a candidate called dead in a greyscale image (`greyDiscMinRadius`):
/// debris when its half-contrast edge lies inside the smallest cell's; nil when the rule is
/// off or no edge is measured.
func greyDiscVerdict(x: Double, y: Double, r: Double, in image: Image, config: PipelineConfig) -> DebrisVerdict? {
    guard config.greyDiscMinRadius > 0, let edge = DiscEdge(image, x: x, y: y, r: r) else { return nil }
    return DebrisVerdict(debris: edge.radius < config.greyDiscMinRadius * config.minRadiusPx, disc: edge)
}

/// Stage 5: live/dead call for every candidate; candidates become detections, except dark
/// unstained debris in colour images (`debrisVerdict`) and dark specks called dead in
/// greyscale ones (`greyDiscVerdict`). A dark candidate with a faint blue stain is called dead
/// rather than judged as debris, and a pale one darker than the background without a refractile
/// centre is called dead rather than live (`faintStain`).
struct ClassifyStage: Stage {
    let name = "classify"

    func run(_ frame: inout Frame) throws {
        let config = frame.config
        let image = frame.image
        // Row band by row band: each window reads about 4.4 r rows of the full-resolution
        // image, which the candidates' order (by score, all over the image) found cold.
        let appearances = inSpatialOrder(frame.candidates) { measureAppearance(image, x: $0.x, y: $0.y, r: $0.r) }
        // Adaptive saturation threshold: Otsu over the candidates' saturations, kept between
        // the configured floor and twice it (so an all-live or all-dead image is not split).
        var threshold = config.minDeadSaturation
        if appearances.count >= 8 {
            var hist = [Double](repeating: 0, count: 64)
            for a in appearances { hist[min(63, Int(a.saturation * 64))] += 1 }
            if let bin = otsuBin(histogram: hist) {
                threshold = min(max(config.minDeadSaturation, Double(bin + 1) / 64), 2 * config.minDeadSaturation)
            }
        }
        let firstCalls = appearances.map {
            classifyCell($0, greyscale: frame.isGreyscale, saturationThreshold: threshold, config: config)
        }
        // The smallest cell radius, image pixels, to which the candidates stage raises every
        // candidate's (`darkSpeckMaxRadius`).
        let smallestRadius = frame.minRadius * Double(frame.scale)
        let faintStainAsked = !frame.isGreyscale && config.faintStainShare > 0
            && firstCalls.count(where: { $0.0 == .dead }) >= config.faintStainMinDeadCells
        // Per candidate: its call, the appearance the debris rule judged and its verdict (nil:
        // not judged), and what a faint stain made of it (`faintStain`).
        var calls = zip(frame.candidates, zip(appearances, firstCalls)).map { c, measured in
            let (a, (firstClass, firstConfidence)) = measured
            let faint = faintStainAsked && firstClass == .live
                ? faintStain(a, of: c, in: image, saturationThreshold: threshold, config: config) : nil
            let (cls, conf) = faint != nil ? (CellClass.dead, 0.5) : (firstClass, firstConfidence)
            let judged = !frame.isGreyscale && cls == .live ? lineRelative(a, of: c, in: image) : nil
            let verdict = judged.map { a in
                isDarkSpeck(a, r: c.r, smallestRadius: smallestRadius, config: config)
                    ? DebrisVerdict(debris: true, speck: true)
                    : debrisVerdict(a, x: c.x, y: c.y, r: c.r, onLine: c.lineStep != nil, in: image, config: config)
            } ?? (frame.isGreyscale && cls == .dead ? greyDiscVerdict(x: c.x, y: c.y, r: c.r, in: image, config: config) : nil)
            return (detection: Detection(x: c.x, y: c.y, r: c.r, cellClass: cls, score: c.score, confidence: conf,
                                         coverage: c.coverage, centred: c.centred), judged: judged, verdict: verdict,
                    debris: verdict?.debris ?? false, faint: faint, measured: a)
        }
        keepHaloedCellsInClumps(&calls, in: image, config: config)
        // A dark disc the faint stain kept from the debris rule would take a detection's place
        // where it overlaps one (a spot between two cells that reads bluish): it gives way
        // before duplicate suppression.
        if calls.contains(where: { $0.faint == .darkDisc }) {
            let rule = OverlapRule(maxIoU: config.nmsIoU, minCentreDistance: config.nmsMinCentreDistance)
            let others = calls.filter { !$0.debris && $0.faint != .darkDisc }.map(\.detection)
            var grid = NeighbourGrid(largestRadius: calls.map(\.detection.r).max() ?? 1)
            for (j, d) in others.enumerated() { grid.insert(j, d) }
            for i in calls.indices where calls[i].faint == .darkDisc
                && grid.contains(near: calls[i].detection, where: { rule.conflict(calls[i].detection, others[$0]) }) {
                calls[i].debris = true
            }
        }
        frame.trace?.record("classify (verdicts)", calls, position: { ($0.detection.x, $0.detection.y, $0.detection.r) }) { call in
            let verdict = call.debris ? "debris" : "\(call.detection.cellClass)"
            // (The line-relative appearance the debris rule judged keeps the measured colour.)
            let colour = "hue \(Int(call.measured.hueDeg.rounded())), saturation \(fmt(call.measured.saturation)) of \(fmt(threshold))"
            if call.faint != nil {
                return call.debris ? "debris: a faint stain (\(colour)) overlapping a detection" : "dead on a faint stain: \(colour)"
            }
            // A greyscale dead call was judged by its disc's edge alone.
            guard let a = call.judged else { return verdict + (call.verdict?.disc.map { ", disc edge \(fmt($0.radius)) px" } ?? "") }
            return verdict + ": \(colour)"
                + ", interior \(fmt(a.interiorContrast)), centre \(fmt(a.centreContrast)), ring \(fmt(a.ringContrast))"
                + (call.verdict?.halo.map { ", halo \($0) of 16" } ?? "")
                + (call.verdict?.ringDepth.map { ", ring depth \(fmt($0))" } ?? "")
                + (call.verdict?.disc.map {
                    ", disc edge \(fmt($0.radius)) px, round \(fmt($0.roundShare)), lobes \(fmt($0.lobes)), rise \(fmt($0.edgeWidth))"
                } ?? "")
                + (call.verdict?.haloAtEdge.map { ", halo at the edge \($0) of 16" } ?? "")
                + (call.verdict?.rimInliers.map { ", rim circle \($0) of 32 rays" } ?? "")
                + (call.verdict?.haloInClump.map { ", halo beside touching cells \($0) of 16" } ?? "")
                + (call.verdict?.speck == true ? ", a dark speck at the smallest radius" : "")
        }
        frame.detections = calls.filter { !$0.debris }.map(\.detection)
        frame.trace?.record("classify (debris rule)", frame.detections, position: { ($0.x, $0.y, $0.r) }) { d in
            "\(d.cellClass), confidence \(fmt(d.confidence))"
        }
    }
}

/// The debris rule's halo asked again of the dark discs it dropped that touch kept cells, over
/// the sectors those cells leave free (`haloClumpOpenSectors`): a grey disc in a clump shows
/// its halo only on the clump's outside. Passes repeat while they keep a disc (three at most),
/// so a clump is read inwards from its haloed cells; within a pass every disc sees the cells
/// kept when the pass began, so the result does not depend on the candidates' order.
private func keepHaloedCellsInClumps(
    _ calls: inout [(detection: Detection, judged: CellAppearance?, verdict: DebrisVerdict?, debris: Bool,
                     faint: FaintStain?, measured: CellAppearance)],
    in image: Image, config: PipelineConfig) {
    guard config.haloSectors > 0, config.haloClumpOpenSectors > 0 else { return }
    var pending = calls.indices.filter { calls[$0].debris && calls[$0].faint == nil && calls[$0].verdict?.halo != nil }
    guard !pending.isEmpty else { return }
    let minDiscRadius = config.defocusedDiscMinRadius * config.minRadiusPx
    for _ in 0..<3 {
        let kept = calls.filter { !$0.debris }.map(\.detection)
        var keptAny = false
        pending = pending.filter { i in
            let d = calls[i].detection
            // At the candidate's radius, and at its disc's edge where the debris rule measured
            // one elsewhere (as the plain halo is asked).
            let edge = calls[i].verdict?.disc.map(\.radius)
            let radii = [d.r] + (edge.map { $0 != d.r && $0 >= minDiscRadius ? [$0] : [] } ?? [])
            let counts = radii.compactMap { r -> Int? in
                let facing = TouchingNeighbours.sectors(x: d.x, y: d.y, r: r, among: kept,
                                                        position: { ($0.x, $0.y, $0.r) }, accepts: { _ in true })
                guard facing.contains(true) else { return nil }
                return haloSectors(image, x: d.x, y: d.y, r: r, contrast: config.haloContrast,
                                   excused: facing, minExcusedOpen: config.haloClumpOpenSectors)
            }
            guard let sectors = counts.max() else { return true }
            calls[i].verdict?.haloInClump = sectors
            guard sectors >= config.haloSectors else { return true }
            calls[i].debris = false
            calls[i].verdict?.debris = false
            keptAny = true
            return false
        }
        if !keptAny { break }
    }
}

/// A candidate's appearance against the ruling line it lies on (`Candidate.lineStep`): the
/// mean interior luminance of the same disc a step along the line on either side (the one
/// side inside the image, at its border). A clear cell on a dark line is as dark as the line,
/// far darker than the open background that the debris rule otherwise compares it with.
/// Unchanged for a candidate on no line.
func lineRelative(_ a: CellAppearance, of c: Candidate, in image: Image) -> CellAppearance {
    guard let step = c.lineStep else { return a }
    let sides = [1.0, -1.0].compactMap { sign in
        interiorLuminance(image, x: c.x + sign * Double(step.dx), y: c.y + sign * Double(step.dy), r: c.r)
    }
    guard !sides.isEmpty else { return a }
    return a.relative(to: sides.reduce(0, +) / Double(sides.count))
}

/// Mean linear luminance of a measurement's interior disc (0.6 r) at a point, image pixels;
/// nil when the disc leaves the image or holds no pixel centre.
func interiorLuminance(_ image: Image, x: Double, y: Double, r: Double) -> Double? {
    let ri = 0.6 * r
    var sum = 0.0, n = 0.0
    guard forEachLuminance(image, x: x, y: y, reach: ri, { dx, dy, luminance in
        guard dx * dx + dy * dy <= ri * ri else { return }
        sum += luminance
        n += 1
    }) else { return nil }
    return n > 0 ? sum / n : nil
}
