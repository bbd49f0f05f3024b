import Foundation
import Hemocytometer

/// A ruling line seen in one tile of the view: an image point on it and the chamber
/// coordinate of the line (`axis` 0: a line of constant chamber x, 1: of constant chamber y).
struct LineSighting: Sendable, Equatable {
    var x: Double
    var y: Double
    var chamber: Double
    var axis: Int
    /// A triple line's half width as seen, µm: half its profile's run above half the peak
    /// (`halfPeakRun`), or half its outer extent (`outerExtent`) where that is wider; nil for a
    /// single line, or where the run's ends were not seen.
    var halfWidthUm: Double? = nil
}

/// The registered image -> chamber map refined to a homography from where the ruling's lines
/// lie in tiles of the view; nil when too few lines are seen, or when the homography does not
/// fit them better than the map given.
///
/// Why: registration fits one spacing per line family over the whole view, an affine map. A
/// chamber photographed a little off square changes the spacing across the view and makes the
/// lines converge, and the affine map then misplaces the view's edges by tens of µm: squares
/// are counted with the wrong cells, and the triple-line crossings the candidates stage drops
/// are looked for in the wrong place.
///
/// Each tile's lines are looked for near where the current map predicts them: the profile of
/// `contrast` across the line, averaged along a stretch of it, peaks at the line (a triple
/// line's three strokes smoothed into one peak at its middle); the search reaches a third of
/// the way to the next line, so a map that is off by less than that finds each line and
/// never its neighbour. The homography is fitted to the sightings by linear least squares
/// (h33 = 1, coordinates normalised), sightings more than three times the median residual off
/// are dropped, and the lines are looked for again with the fitted map.
///
/// - Parameters:
///   - flat: the flattened luminance on the working plane (background 1; lines of either
///     polarity stand off it).
///   - imageToChamber: the registered map, image pixels -> chamber µm, row-major 3 x 3.
///   - scale: image pixels per working pixel.
///   - tiles: columns and rows the view is divided into.
/// - Returns: the refined map (row-major 3 x 3, image pixels -> chamber µm) and the median
///   distance of the sightings from their lines under it and under the map given, µm.
func perspectiveRefined(_ flat: Plane, imageToChamber: [Double], scale: Int, tiles: (columns: Int, rows: Int) = (4, 3))
    -> (imageToChamber: [Double], residualUm: Double, givenResidualUm: Double)? {
    guard Homography(matrix: imageToChamber) != nil, scale >= 1, flat.width >= 16, flat.height >= 16,
          tiles.columns >= 2, tiles.rows >= 2 else { return nil }
    let working = WorkingScale(scale)
    let width = Double(flat.width) * working.factor, height = Double(flat.height) * working.factor
    var map = imageToChamber
    var sightings: [LineSighting] = []
    // Two passes: the second looks again with the first fit's map, nearer the lines.
    for pass in 0..<2 {
        let found = lineSightings(flat, imageToChamber: map, scale: working, width: width, height: height,
                                  tiles: tiles, reach: pass == 0 ? (1.0 / 3, 40) : (0.25, 15))
        guard let fitted = robustHomography(found, width: width, height: height) else { return nil }
        sightings = fitted.inliers
        map = fitted.matrix
    }
    // A view seen nearly square on gains nothing; a fit that leaves the lines further off
    // than the given map is no refinement.
    let residual = medianResidual(sightings, map: map), given = medianResidual(sightings, map: imageToChamber)
    guard residual.isFinite, given.isFinite, residual < given, isViewPreserving(map, width: width, height: height)
    else { return nil }
    return (map, residual, given)
}

/// The lines of both axes, each tile's lines near where `imageToChamber` puts them
/// (`perspectiveRefined`). `reach`: how far across the line to look, as a share of the
/// distance to the next line and at most `um` µm.
func lineSightings(_ flat: Plane, imageToChamber m: [Double], scale: WorkingScale, width: Double, height: Double,
                   tiles: (columns: Int, rows: Int), reach: (share: Double, um: Double)) -> [LineSighting] {
    let lines = NeubauerGeometry.rulingLines()
    let positions = lines.map(\.positionUm)
    // The distance from each line to the next, µm.
    let separation = positions.indices.map { i in
        positions.indices.filter { $0 != i }.map { abs(positions[$0] - positions[i]) }.filter { $0 > 0 }.min() ?? 1000
    }
    let tileWidth = width / Double(tiles.columns), tileHeight = height / Double(tiles.rows)
    var found: [LineSighting] = []
    for row in 0..<tiles.rows {
        for column in 0..<tiles.columns {
            let cx = (Double(column) + 0.5) * tileWidth, cy = (Double(row) + 0.5) * tileHeight
            for axis in 0..<2 {
                guard let local = ChamberAxis(m, axis: axis, at: (cx, cy)) else { continue }
                // The tile's lines, nearest its centre first; three of them say as much as all
                // ten a tile of 50 µm squares holds (the fit wants spread across the view).
                let inTile = lines.indices.compactMap { i -> (index: Int, shift: Double)? in
                    let line = lines[i]
                    // The line's point nearest the tile's centre, to first order.
                    let shift = (line.positionUm - local.value) / local.gradientNorm
                    let px = cx + shift * local.normal.x, py = cy + shift * local.normal.y
                    guard abs(px - cx) <= tileWidth / 2, abs(py - cy) <= tileHeight / 2,
                          let other = chamber(m, axis: 1 - axis, x: px, y: py),
                          other >= line.extentStartUm, other <= line.extentEndUm else { return nil }
                    return (i, shift)
                }.sorted { (abs($0.shift), $0.index) < (abs($1.shift), $1.index) }.prefix(3)
                for (i, shift) in inTile {
                    let line = lines[i]
                    let px = cx + shift * local.normal.x, py = cy + shift * local.normal.y
                    let reachPx = min(reach.share * separation[i], reach.um) / local.gradientNorm
                    // A triple line's strokes merge into one peak over twice their offset.
                    let smoothing = line.style == .triple ? 2 * NeubauerGeometry.tripleLineOffsetUm / local.gradientNorm : 0
                    let length = 0.3 * min(tileWidth, tileHeight)
                    guard let peak = linePeak(flat, scale: scale, at: (px, py), normal: local.normal, reach: reachPx,
                                              smoothing: smoothing, length: length) else { continue }
                    found.append(LineSighting(x: px + peak.offset * local.normal.x, y: py + peak.offset * local.normal.y,
                                              chamber: line.positionUm, axis: axis,
                                              halfWidthUm: peak.halfWidth.map { $0 * local.gradientNorm }))
                }
            }
        }
    }
    return found
}

/// One chamber coordinate of a map near a point: its value, and the unit normal and length
/// of its gradient (µm per image pixel).
private struct ChamberAxis {
    let value: Double
    let normal: (x: Double, y: Double)
    let gradientNorm: Double

    init?(_ m: [Double], axis: Int, at p: (x: Double, y: Double)) {
        guard let v = chamber(m, axis: axis, x: p.x, y: p.y), let vx = chamber(m, axis: axis, x: p.x + 1, y: p.y),
              let vy = chamber(m, axis: axis, x: p.x, y: p.y + 1) else { return nil }
        let gx = vx - v, gy = vy - v, norm = (gx * gx + gy * gy).squareRoot()
        guard norm > 1e-9, norm.isFinite else { return nil }
        value = v
        normal = (gx / norm, gy / norm)
        gradientNorm = norm
    }
}

/// Chamber x (`axis` 0) or y (1) of image point (x, y) under the row-major map `m`
/// (`Homography.apply`); nil where it maps to infinity.
private func chamber(_ m: [Double], axis: Int, x: Double, y: Double) -> Double? {
    Homography(matrix: m)?.apply(Point(x: x, y: y)).map { axis == 0 ? $0.x : $0.y }
}

/// Where across a line the contrast profile peaks: the offset along `normal` (image pixels,
/// within `reach`) of the largest mean contrast (`|flat - 1|`) over a stretch `length` pixels
/// long, after a box of `smoothing` pixels; nil when the stretch leaves the plane, the peak lies
/// at the search's end, or stands less than 0.02 above the profile's median (no line there).
/// With a box (a triple line), the middle of the run above half the peak instead, and half
/// that run's width or of the line's outer extent, the wider (image pixels; nil when the run
/// reaches the profile's ends).
private func linePeak(_ flat: Plane, scale: WorkingScale, at p: (x: Double, y: Double), normal n: (x: Double, y: Double),
                      reach: Double, smoothing: Double, length: Double) -> (offset: Double, halfWidth: Double?)? {
    // One working pixel a step across, three along: the stretch's mean is what locates.
    let s = scale.factor, step = s, half = smoothing / 2
    let count = Int(((reach + half) / step).rounded(.up))
    guard count >= 2, count < 4096 else { return nil }
    let along = (x: -n.y, y: n.x)
    let samplesAlong = max(2, Int(length / (3 * s)))
    // The stretch must lie inside the plane at both ends of the search.
    for k in [-count, count] {
        for end in [-1.0, 1.0] {
            let d = Double(k) * step, t = end * length / 2
            let wx = scale.toWorking(p.x + d * n.x + t * along.x), wy = scale.toWorking(p.y + d * n.y + t * along.y)
            guard wx >= 0, wy >= 0, wx <= Double(flat.width - 1), wy <= Double(flat.height - 1) else { return nil }
        }
    }
    var profile = [Double](repeating: 0, count: 2 * count + 1)
    flat.data.withUnsafeBufferPointer { d in
        for k in -count...count {
            var sum = 0.0
            for j in 0..<samplesAlong {
                let t = (Double(j) / Double(samplesAlong - 1) - 0.5) * length
                let wx = scale.toWorking(p.x + Double(k) * step * n.x + t * along.x)
                let wy = scale.toWorking(p.y + Double(k) * step * n.y + t * along.y)
                sum += Double(abs(Plane.bilinear(d, width: flat.width, height: flat.height, wx, wy) - 1))
            }
            profile[k + count] = sum / Double(samplesAlong)
        }
    }
    let radius = Int((half / step).rounded())
    let smoothed = profile.indices.map { i in
        let lo = max(0, i - radius), hi = min(profile.count - 1, i + radius)
        return profile[lo...hi].reduce(0, +) / Double(hi - lo + 1)
    }
    let limit = Int((reach / step).rounded(.down))
    guard limit >= 1 else { return nil }
    var best = count
    for i in (count - limit)...(count + limit) where smoothed[i] > smoothed[best] { best = i }
    guard best > count - limit, best < count + limit else { return nil }
    let median = smoothed.sorted()[smoothed.count / 2]
    guard smoothed[best] - median >= 0.02 else { return nil }
    // A triple line whose strokes lie further apart than the box peaks at an outer stroke:
    // its middle is the middle of the run above half the peak, which spans all three.
    // Halfway up from the profile's lowest point: a heavy triple line fills much of the
    // search, and its median lies on the line.
    if smoothing > 0, let run = halfPeakRun(smoothed, peak: best, floor: smoothed.min()!) {
        // Its half width: the run's, or where heavy strokes lie further out than the box's
        // half-peak run reaches (the outer ones often the weaker), their outer edges.
        let extent = outerExtent(profile, share: tripleExtentShare).map { 0.5 * ($0.end - $0.start) } ?? 0
        return ((0.5 * (run.start + run.end) - Double(count)) * step, max(0.5 * (run.end - run.start), extent) * step)
    }
    // Sub-sample peak: the parabola through the peak and its neighbours.
    let fraction = parabolaMaximumOffset(smoothed[best - 1], smoothed[best], smoothed[best + 1])
    return ((Double(best - count) + fraction) * step, nil)
}

/// Where the run of `profile` round `peak` that stands above halfway from `floor` to the peak
/// starts and ends, in samples, each end placed between samples by linear interpolation; nil
/// when the run reaches either end of the profile (its extent unknown) or the peak does not
/// stand above the floor.
func halfPeakRun(_ profile: [Double], peak: Int, floor: Double) -> (start: Double, end: Double)? {
    // A peak above the floor keeps the run's ends apart from the level (no 0 / 0 below).
    guard profile.indices.contains(peak), profile[peak] > floor else { return nil }
    let level = 0.5 * (floor + profile[peak])
    var lo = peak, hi = peak
    while lo > 0, profile[lo - 1] > level { lo -= 1 }
    while hi < profile.count - 1, profile[hi + 1] > level { hi += 1 }
    guard lo > 0, hi < profile.count - 1 else { return nil }
    // Where the profile crosses the level between the run's ends and the samples outside.
    let left = Double(lo) - (profile[lo] - level) / (profile[lo] - profile[lo - 1])
    let right = Double(hi) + (profile[hi] - level) / (profile[hi] - profile[hi + 1])
    return (left, right)
}

/// Where a contrast profile first and last stands `share` of the way up from its lowest to its
/// highest sample, in samples, each end placed between samples by linear interpolation; nil
/// when either end lies on the profile's first or last sample (the extent runs past it) or the
/// profile is flat.
func outerExtent(_ profile: [Double], share: Double) -> (start: Double, end: Double)? {
    guard let low = profile.min(), let high = profile.max(), high > low else { return nil }
    let level = low + share * (high - low)
    guard let first = profile.firstIndex(where: { $0 > level }), let last = profile.lastIndex(where: { $0 > level }),
          first > 0, last < profile.count - 1 else { return nil }
    let start = Double(first) - (profile[first] - level) / (profile[first] - profile[first - 1])
    let end = Double(last) + (profile[last] - level) / (profile[last] - profile[last + 1])
    return (start, end)
}

/// The share of a triple line's contrast range (`outerExtent`) at which its outer edges are
/// placed: low enough that a heavy line's weaker outer strokes count, above the noise of a
/// profile averaged along a stretch of line.
let tripleExtentShare = 0.3

/// Half the width of the ruling's triple lines as the view shows them, µm: the median of
/// `LineSighting.halfWidthUm` over the triple lines seen near where `imageToChamber` puts
/// them (`lineSightings`, tiles of `perspectiveRefined`); nil when fewer than three are seen.
///
/// Why: manufacturers draw a triple line's strokes a few µm apart, more or less, and heavier
/// or lighter: where two cross, the little squares between their strokes pass for cells over
/// the whole extent the lines really cover, not over the geometry's nominal one.
func tripleLineHalfWidth(_ flat: Plane, imageToChamber: [Double], scale: Int, tiles: (columns: Int, rows: Int) = (4, 3))
    -> Double? {
    guard Homography(matrix: imageToChamber) != nil, scale >= 1, flat.width >= 16, flat.height >= 16 else { return nil }
    let working = WorkingScale(scale)
    let widths = lineSightings(flat, imageToChamber: imageToChamber, scale: working, width: Double(flat.width) * working.factor,
                               height: Double(flat.height) * working.factor, tiles: tiles, reach: (0.25, 15)).compactMap(\.halfWidthUm)
    guard widths.count >= 3 else { return nil }
    return widths.sorted()[widths.count / 2]
}

/// The homography (h33 = 1) through the sightings by linear least squares, refitted once
/// without those more than three times the median residual off (and more than 2 µm); nil
/// with fewer than six sightings of an axis or three tiles' worth of spread.
private func robustHomography(_ sightings: [LineSighting], width: Double, height: Double)
    -> (matrix: [Double], inliers: [LineSighting])? {
    guard var matrix = fitHomography(sightings, width: width, height: height) else { return nil }
    let residuals = sightings.map { residualUm($0, map: matrix) }
    let cut = max(2, 3 * (residuals.sorted()[residuals.count / 2]))
    let inliers = zip(sightings, residuals).filter { $0.1 <= cut }.map(\.0)
    guard inliers.count < sightings.count else { return (matrix, inliers) }
    guard let refitted = fitHomography(inliers, width: width, height: height) else { return nil }
    matrix = refitted
    return (matrix, inliers)
}

/// Least-squares homography through the sightings: for a line of chamber coordinate q on
/// axis a, (h_a1 x + h_a2 y + h_a3) - q (h31 x + h32 y) = q, in image coordinates centred on
/// the view and scaled by its half-diagonal, chamber coordinates centred on the ruled area.
private func fitHomography(_ sightings: [LineSighting], width: Double, height: Double) -> [Double]? {
    for axis in 0..<2 {
        let own = sightings.filter { $0.axis == axis }
        guard own.count >= 6 else { return nil }
        // Spread across the view both ways, or the fit cannot tell tilt from perspective.
        let xs = own.map(\.x), ys = own.map(\.y)
        guard xs.max()! - xs.min()! >= width / 3, ys.max()! - ys.min()! >= height / 3 else { return nil }
    }
    let cx = width / 2, cy = height / 2, ps = 0.5 * (width * width + height * height).squareRoot()
    let qc = NeubauerGeometry.ruledAreaUm / 2, qs = NeubauerGeometry.ruledAreaUm / 2
    // Normal equations of the 8 unknowns (h11 h12 h13 h21 h22 h23 h31 h32), augmented.
    var normal = [Double](repeating: 0, count: 8 * 9)
    for sighting in sightings {
        let x = (sighting.x - cx) / ps, y = (sighting.y - cy) / ps, q = (sighting.chamber - qc) / qs
        var row = [Double](repeating: 0, count: 8)
        let base = 3 * sighting.axis
        row[base] = x
        row[base + 1] = y
        row[base + 2] = 1
        row[6] = -q * x
        row[7] = -q * y
        for i in 0..<8 {
            guard row[i] != 0 else { continue }
            for j in 0..<8 { normal[i * 9 + j] += row[i] * row[j] }
            normal[i * 9 + 8] += row[i] * q
        }
    }
    guard let h = solveLinearSystem(augmented: normal, unknowns: 8) else { return nil }
    // Chamber = T_q^-1 H T_p: T_p(x) = (x - c) / ps, T_q^-1(q') = qs q' + qc.
    let n = [h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0]
    let tp = [1 / ps, 0, -cx / ps, 0, 1 / ps, -cy / ps, 0, 0, 1]
    let tq = [qs, 0, qc, 0, qs, qc, 0, 0, 1]
    guard let toChamber = Homography(matrix: tq), let fitted = Homography(matrix: n), let fromImage = Homography(matrix: tp)
    else { return nil }
    let m = toChamber.multiplied(by: fitted.multiplied(by: fromImage)).matrix
    guard abs(m[8]) > 1e-12 else { return nil }
    let out = m.map { $0 / m[8] }
    return out.allSatisfy(\.isFinite) ? out : nil
}

/// How far a sighting lies from its line under a map, µm along the line's chamber axis.
private func residualUm(_ sighting: LineSighting, map: [Double]) -> Double {
    guard let v = chamber(map, axis: sighting.axis, x: sighting.x, y: sighting.y) else { return .infinity }
    return abs(v - sighting.chamber)
}

private func medianResidual(_ sightings: [LineSighting], map: [Double]) -> Double {
    guard !sightings.isEmpty else { return .infinity }
    let r = sightings.map { residualUm($0, map: map) }.sorted()
    return 0.5 * (r[(r.count - 1) / 2] + r[r.count / 2])
}

/// Whether a map keeps the whole view on one side of its horizon, with the view's scale
/// changing by less than a third across it: a photograph of the chamber, not a fit gone wild.
private func isViewPreserving(_ m: [Double], width: Double, height: Double) -> Bool {
    let centre = m[6] * width / 2 + m[7] * height / 2 + m[8]
    guard abs(centre) > 1e-12 else { return false }
    return [(0.0, 0.0), (width, 0), (0, height), (width, height)].allSatisfy { x, y in
        let w = (m[6] * x + m[7] * y + m[8]) / centre
        return w > 0.75 && w < 1.33
    }
}
