import Foundation
import Hemocytometer

/// Strength of a straight structure running through (x, y) along `angle`: the `quantile` of
/// `plane` sampled every pixel along the line within `halfLength` either side (bilinear).
/// A cell, shorter than the line, raises only the upper samples; a ruling line lifts them all.
///
/// - Parameters:
///   - plane: log-contrast map (`logContrast`), where a ruling line is a positive ridge.
///   - x, y: point, pixels of `plane`.
///   - angle: line direction, radians.
///   - halfLength: pixels either side of the point (at least one cell diameter).
///   - quantile: 0 ... 1 (0.3: a cell may cover up to 70% of the samples and not count).
public func lineStrength(_ plane: Plane, x: Double, y: Double, angle: Double, halfLength: Int,
                         quantile: Double = 0.3) -> Float {
    guard halfLength >= 1 else { return 0 }
    return lineStrength(plane, x: x, y: y, angle: angle, along: -halfLength...halfLength, quantile: quantile)
}

/// `lineStrength` of the line that ends at (x, y): the stronger of the two halves, each
/// sampled from the point to `halfLength` one way. A ruling line that stops at another (a
/// T-junction, the ruled area's edge) runs on one side only, and over both its samples off
/// the line outnumber those on it.
func oneSidedLineStrength(_ plane: Plane, x: Double, y: Double, angle: Double, halfLength: Int,
                          quantile: Double = 0.3) -> Float {
    guard halfLength >= 1 else { return 0 }
    return max(lineStrength(plane, x: x, y: y, angle: angle, along: -halfLength...0, quantile: quantile),
        lineStrength(plane, x: x, y: y, angle: angle, along: 0...halfLength, quantile: quantile))
}

/// `lineStrength` over the samples at `along` (pixels from the point, along `angle`).
func lineStrength(_ plane: Plane, x: Double, y: Double, angle: Double, along: ClosedRange<Int>,
                  quantile: Double = 0.3) -> Float {
    let w = plane.width, h = plane.height
    guard w >= 2, h >= 2, along.count >= 2 else { return 0 }
    let c = cos(angle), s = sin(angle)
    var samples: [Float] = []
    samples.reserveCapacity(along.count)
    for t in along {
        let px = x + Double(t) * c, py = y + Double(t) * s
        guard px >= 0, py >= 0, px <= Double(w - 1), py <= Double(h - 1) else { continue }
        let x0 = min(w - 2, Int(px)), y0 = min(h - 2, Int(py))
        let fx = Float(px - Double(x0)), fy = Float(py - Double(y0))
        let i = y0 * w + x0
        let top = plane.data[i] * (1 - fx) + plane.data[i + 1] * fx
        let bottom = plane.data[i + w] * (1 - fx) + plane.data[i + w + 1] * fx
        samples.append(top * (1 - fy) + bottom * fy)
    }
    guard !samples.isEmpty else { return 0 }
    samples.sort()
    return samples[min(samples.count - 1, Int(quantile * Double(samples.count - 1)))]
}

/// Whether (x, y) lies where ruling lines of two different directions cross: along each of
/// the first two `angles` the line strength (`lineStrength`) stands at least `level` above
/// the floor seen along their two bisectors (which at a crossing run along neither line).
/// The little squares inside a triple-line crossing have corners whose gradients meet at their
/// centres as a cell's rim does, and line removal leaves a residue where heavy lines cross; a
/// cell on a single line lifts only one direction.
///
/// `reach` (pixels, 0: off): a line also counts when it runs within `reach` of the point on
/// each side of it, the strongest parallel line either side taken. A triple line's strokes
/// drawn wide apart leave light squares between them that no line runs through, but that
/// each line's strokes flank; a cell where a triple line ends at another line is flanked on
/// one side only.
///
/// `oneSided`: each line's strength is the stronger of its two halves
/// (`oneSidedLineStrength`), for a crossing where lines end (the ruled area's border line,
/// which the other family's lines meet and stop at).
public func isOnCrossing(_ contrast: Plane, x: Double, y: Double, angles: [Double], halfLength: Int,
                         level: Float, reach: Double = 0, oneSided: Bool = false) -> Bool {
    guard angles.count >= 2 else { return false }
    let a = angles[0], b = angles[1]
    func strength(_ x: Double, _ y: Double, _ angle: Double) -> Float {
        oneSided ? oneSidedLineStrength(contrast, x: x, y: y, angle: angle, halfLength: halfLength)
            : lineStrength(contrast, x: x, y: y, angle: angle, halfLength: halfLength)
    }
    func floor() -> Float { bisectorFloor(contrast, x: x, y: y, angles: (a, b), halfLength: halfLength) }
    guard reach >= 1 else {
        // The contrast map is non-negative, so so is the floor: a direction below `level`
        // decides without the other three quantiles (most candidates lie on no line).
        let alongA = strength(x, y, a)
        guard alongA >= level else { return false }
        let alongB = strength(x, y, b)
        guard alongB >= level else { return false }
        let floor = floor()
        return alongA - floor >= level && alongB - floor >= level
    }
    // Each direction's strongest parallel line on each side must stand `level` above the
    // floor (non-negative, so the line stands at `level` too): the first offset, nearest
    // first, that does so settles a side.
    let floorLevel = floor()
    func flanked(_ angle: Double) -> Bool {
        let stands = { (px: Double, py: Double) in strength(px, py, angle) - floorLevel >= level }
        return stands(x, y) || hasLinesOnBothSides(x: x, y: y, angle: angle, offsets: 1...Int(reach), stands: stands)
    }
    return flanked(a) && flanked(b)
}

/// The lower of the line strengths along the two bisectors of `angles` at (x, y): the level
/// a ruling line must stand above, since at a crossing the bisectors run along neither line.
private func bisectorFloor(_ contrast: Plane, x: Double, y: Double, angles: (Double, Double),
                           halfLength: Int) -> Float {
    let bisector = (angles.0 + angles.1) / 2
    return min(lineStrength(contrast, x: x, y: y, angle: bisector, halfLength: halfLength),
               lineStrength(contrast, x: x, y: y, angle: bisector + .pi / 2, halfLength: halfLength))
}

/// Whether a line along `angle` stands (`stands` at the sampled point) on each side of (x, y)
/// at some perpendicular offset in `offsets` (pixels), nearest first.
private func hasLinesOnBothSides(x: Double, y: Double, angle: Double, offsets: ClosedRange<Int>,
                                 stands: (Double, Double) -> Bool) -> Bool {
    let nx = -sin(angle), ny = cos(angle)
    func side(_ sign: Double) -> Bool {
        offsets.contains { o in stands(x + sign * Double(o) * nx, y + sign * Double(o) * ny) }
    }
    return side(-1) && side(1)
}

/// Whether (x, y) lies in a window of the ruling: along each of the first two `angles` a line
/// stands on both sides of the point, between `nearest` and `farthest` pixels from it, and
/// none runs through it. A line stands where its strength (`lineStrength`) is at least `level`
/// above the floor seen along the two bisectors at the point. The little squares between the
/// strokes of crossing triple lines are such windows, about a cell wide; a cell in the open is
/// flanked by no line that close, and one on a line has the line through it.
///
/// - Parameters:
///   - contrast: log-contrast map (`logContrast`), where a ruling line is a positive ridge.
///   - x, y: point, pixels of `contrast`.
///   - angles: line directions, radians (the first two are used).
///   - halfLength: pixels either side sampled along a line (at least one cell diameter).
///   - level: how far a line stands above the floor, log-contrast units.
///   - nearest, farthest: the band of offsets searched on each side, pixels (1 at least).
public func isInRulingWindow(_ contrast: Plane, x: Double, y: Double, angles: [Double], halfLength: Int,
                             level: Float, nearest: Double, farthest: Double) -> Bool {
    guard angles.count >= 2, halfLength >= 1, x.isFinite, y.isFinite, farthest.isFinite else { return false }
    let from = max(1, Int(nearest.rounded(.down))), to = Int(farthest.rounded(.up))
    guard to >= from else { return false }
    let a = angles[0], b = angles[1]
    let floor = bisectorFloor(contrast, x: x, y: y, angles: (a, b), halfLength: halfLength)
    func flanked(_ angle: Double) -> Bool {
        let stands = { (px: Double, py: Double) in
            lineStrength(contrast, x: px, y: py, angle: angle, halfLength: halfLength) - floor >= level
        }
        return !stands(x, y) && hasLinesOnBothSides(x: x, y: y, angle: angle, offsets: from...to, stands: stands)
    }
    return flanked(a) && flanked(b)
}

/// Whether a candidate on a crossing of two lines shows a cell's rim in the four quadrants
/// the lines leave open: along each quadrant's bisector and 15 degrees either side, the
/// darkest point between 0.75 and 1.2 radii lies `depth` below the point at 0.45 radii and
/// below the brighter of those at 1.5 and 1.7 radii, on at least two of the three rays, in
/// every quadrant. What line removal leaves of a crossing is the lines' own: between them lies
/// open background, no ring. (Also where the crossing test is misled: a cell on one line
/// between neighbours in a row, whose rims read as a second line.)
///
/// - Parameters:
///   - plane: smoothed log luminance (background 0).
///   - x, y, r: candidate centre and radius, pixels of `plane`.
///   - angles: the two line directions, radians.
///   - depth: how much darker the rim is, log-luminance units.
public func showsRimBetweenLines(_ plane: Plane, x: Double, y: Double, r: Double, angles: (Double, Double),
                                 depth: Float) -> Bool {
    guard r > 0, x.isFinite, y.isFinite, r.isFinite else { return false }
    let bisector = (angles.0 + angles.1) / 2
    for quadrant in 0..<4 {
        var rims = 0
        for offset in [-0.26, 0.0, 0.26] {
            let a = bisector + Double(quadrant) * .pi / 2 + offset
            let ux = r * cos(a), uy = r * sin(a)
            func at(_ d: Double) -> Float { plane.bilinear(x + d * ux, y + d * uy) }
            let rim = min(min(at(0.75), at(0.9)), min(at(1.05), at(1.2)))
            if rim <= at(0.45) - depth && rim <= max(at(1.5), at(1.7)) - depth { rims += 1 }
        }
        if rims < 2 { return false }
    }
    return true
}

/// Polarity of the ruling: -1 when its lines are darker than the background (bright-field),
/// +1 when brighter (phase contrast or a mirrored ruling), from the mean log luminance over
/// every 7th sample where the removed line map reaches `level`. -1 when there is no such line.
///
/// - Parameters:
///   - lines: removed line map (`separateLines`), same size as `logLuminance`.
///   - logLuminance: log of the flattened luminance (background 0).
///   - level: line strength that counts, log-contrast units.
public func rulingPolarity(lines: Plane, logLuminance: Plane, level: Float) -> Float {
    guard lines.count == logLuminance.count else { return -1 }
    var sum = 0.0
    for i in stride(from: 0, to: lines.count, by: 7) where lines.data[i] >= level {
        sum += Double(logLuminance.data[i])
    }
    return sum > 0 ? 1 : -1
}

/// Whether the line through (x, y) along `angle` has a core brighter than the background
/// there: the lower quartile of `logLuminance` sampled every half pixel from 1.5 to 6 radii
/// along the line, both ways (past the crossing and past neighbouring cells, which cover
/// stretches of it, not most of it), lies above 0. An etched groove shows a bright core
/// between dark flanks; a dark line or open background does not.
///
/// - Parameters:
///   - logLuminance: log of the flattened luminance (background 0).
///   - x, y, r: the candidate's centre and radius, pixels of `logLuminance`.
///   - angle: line direction, radians.
func hasBrightCore(_ logLuminance: Plane, x: Double, y: Double, r: Double, angle: Double) -> Bool {
    guard r > 0 else { return false }
    let dx = cos(angle), dy = sin(angle)
    var samples: [Float] = []
    var t = 1.5 * r
    while t <= 6 * r {
        samples.append(logLuminance.bilinear(x - t * dx, y - t * dy))
        samples.append(logLuminance.bilinear(x + t * dx, y + t * dy))
        t += 0.5
    }
    guard !samples.isEmpty else { return false }
    samples.sort()
    return samples[samples.count / 4] > 0
}

/// Whether a candidate is what line removal left of a ruling crossing: on a crossing
/// (`isOnCrossing`) and of the lines' polarity, not stained. What a crossing leaves behind has
/// the lines' polarity and no colour; a candidate of the other polarity (a clear cell on dark
/// lines, a dark one on bright lines) or a stained one is a cell lying on the crossing.
///
/// - Parameters:
///   - brightness: log luminance at the candidate's centre (background 0).
///   - polarity: the ruling's (`rulingPolarity`).
///   - stained: the candidate shows the dye.
///   - contrast, x, y, angles, halfLength, level: as for `isOnCrossing`.
///   - brightCores: asked of a bright candidate in a dark ruling once it is on a crossing;
///     true when the lines there show bright cores (`hasBrightCore`), whose crossing leaves a
///     bright residue. Nil: not asked.
public func isCrossingResidue(_ contrast: Plane, x: Double, y: Double, brightness: Float, polarity: Float,
                              stained: Bool, angles: [Double], halfLength: Int, level: Float,
                              brightCores: (() -> Bool)? = nil) -> Bool {
    if stained { return false }
    let ofPolarity = polarity < 0 ? brightness < 0 : brightness > 0
    let coresAsked = brightCores != nil && polarity < 0 && brightness > 0
    guard ofPolarity || coresAsked,
          isOnCrossing(contrast, x: x, y: y, angles: angles, halfLength: halfLength, level: level) else { return false }
    return ofPolarity || brightCores?() == true
}

/// Whether a point lies in the core of two crossing triple lines of the Neubauer ruling: in
/// chamber coordinates within `NeubauerGeometry.tripleLineOffsetUm` plus `marginUm` of a
/// triple line's middle in both axes, inside the ruled area. The core holds the little squares
/// between the strokes, whose corners face their centres as a cell's rim does.
///
/// - Parameters:
///   - x, y: image pixels.
///   - imageToChamber: the grid stage's mapping (image pixels to chamber µm).
///   - marginUm: allowance for the registration and the candidate's centre, µm.
///   - halfWidthUm: half the width the view's triple lines measure (`tripleLineHalfWidth`;
///     nil: not measured). Less `tripleStrokeAllowanceUm` it stands for the outer strokes'
///     middles, and it widens the core when that lies beyond `tripleLineOffsetUm`.
public func isInTripleCrossingCore(x: Double, y: Double, imageToChamber: Homography, marginUm: Double,
                                   halfWidthUm: Double? = nil) -> Bool {
    guard let p = imageToChamber.apply(Point(x: x, y: y)) else { return false }
    let reach = tripleCrossingCoreReachUm(marginUm: marginUm, halfWidthUm: halfWidthUm)
    func nearTriple(_ v: Double) -> Bool {
        tripleLinePositionsUm.contains { abs(v - $0) <= reach }
    }
    return nearTriple(p.x) && nearTriple(p.y)
}

/// Whether a point lies within `reachUm` of the ruled area's border line (0 or
/// `NeubauerGeometry.ruledAreaUm` on either chamber axis), where the other family's lines end.
///
/// - Parameters:
///   - x, y: image pixels.
///   - imageToChamber: the grid stage's mapping (image pixels to chamber µm).
func isOnRuledAreaBorder(x: Double, y: Double, imageToChamber: Homography, reachUm: Double) -> Bool {
    guard let p = imageToChamber.apply(Point(x: x, y: y)) else { return false }
    let edges = [0, NeubauerGeometry.ruledAreaUm]
    return edges.contains { abs(p.x - $0) <= reachUm || abs(p.y - $0) <= reachUm }
}

/// How far the core of a triple-line crossing reaches from each middle line, µm: the
/// geometry's outer strokes, or the measured ones where the lines are wider
/// (`tripleLineHalfWidth`), plus `marginUm`.
func tripleCrossingCoreReachUm(marginUm: Double, halfWidthUm: Double?) -> Double {
    max(NeubauerGeometry.tripleLineOffsetUm, (halfWidthUm ?? 0) - tripleStrokeAllowanceUm) + marginUm
}

/// How far a triple line's measured half width (`tripleLineHalfWidth`) reaches past its outer
/// strokes' middles, µm: half a stroke, and what the 10 µm box that merges the strokes adds.
/// (Measured 6-7.5 µm on synthetic rulings of 5 µm offset and 2-3 µm strokes; with 1.5 µm
/// allowed, the six independent draws lost 13 cells and with none 14, in the core's wider edge;
/// with 3 µm none.)
let tripleStrokeAllowanceUm = 3.0

/// Middle positions of the triple lines (the same for both axes; each spans the ruled area).
let tripleLinePositionsUm: [Double] = NeubauerGeometry.rulingLines().filter { $0.style == .triple }.map(\.positionUm)
