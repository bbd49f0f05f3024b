import Foundation
import Hemocytometer

/// The projective map that makes a ruling seen at an angle parallel again: from the working
/// plane to a rectified plane of the same size, where each line family's lines run parallel
/// (an affine view of the chamber, which the grid search and registration read).
///
/// Why: a chamber photographed off square (a phone over the eyepiece, a tilted stage) shows
/// its lines converging. The grid search projects the whole view along one direction per
/// family; with lines a few degrees apart across the view the projection smears and no
/// ruling registers, and without one neither the crossings nor the counting squares are
/// known. Each tile of the view still shows its lines nearly parallel: their directions,
/// tile by tile, meet at each family's vanishing point, and the line through the two
/// vanishing points (the horizon) is sent back to infinity.
struct KeystoneRectification: Sendable, Equatable {
    /// Working plane -> rectified plane, row-major 3 x 3, pixels of both.
    let matrix: [Double]
    /// Its inverse.
    let inverse: [Double]
    /// How far the families' directions turn across the view (the larger of the two), degrees.
    let convergenceDegrees: Double
    /// The families' normal directions at the view's centre, degrees: on the rectified plane,
    /// everywhere (the rectification leaves directions at the centre as they are).
    let normalDegrees: [Double]
    /// Below this convergence the lines run parallel within the search's precision (a third
    /// of its 0.5-degree first steps each way): the view needs no rectification.
    static let parallelDegrees = 0.3

    /// Nil when fewer than four tiles, and three fifths of those that show a sharp direction,
    /// show each family converging on one point (the view holds no ruling), or when the
    /// horizon crosses the view.
    /// - Parameters:
    ///   - contrast: |flat - 1| on the working plane (lines of either polarity).
    ///   - startNormals: the two families' normal directions over the whole view, degrees
    ///     (the orientation histogram's peaks): each tile searches within 10 degrees of them.
    ///   - tiles: columns and rows of the tiling.
    init?(contrast: Plane, startNormals: [Double], tiles: (columns: Int, rows: Int) = (4, 3)) {
        let w = contrast.width, h = contrast.height
        guard startNormals.count == 2, w >= 64, h >= 64, tiles.columns >= 2, tiles.rows >= 2 else { return nil }
        // Centred and scaled coordinates keep the 3 x 3 sums well conditioned.
        let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2, unit = 0.5 * Double(max(w, h))
        var horizonPoints: [[Double]] = []
        var normals: [Double] = []
        var convergence = 0.0
        for tileSightings in tileDirections(contrast, startNormals: startNormals, tiles: tiles) {
            var sightings = tileSightings
            // Each tile's direction must point at the vanishing point: a view of cells alone
            // gives directions that meet nowhere in particular. A tile whose sharpest direction
            // is a chance alignment (a row of cells, a fibre) is dropped, the worst first,
            // while four and three fifths of them are left.
            let least = max(4, (3 * sightings.count + 4) / 5)
            var fit: [Double]?
            while sightings.count >= least {
                guard let v = commonPoint(sightings.map { $0.line(centre: (cx, cy), unit: unit) }) else { return nil }
                let misses = sightings.map { $0.missDegrees(v, centre: (cx, cy), unit: unit) }
                let worst = misses.indices.max { misses[$0] < misses[$1] }!
                if misses[worst] <= 0.75 {
                    fit = v
                    break
                }
                sightings.remove(at: worst)
            }
            guard let v = fit else { return nil }
            // The directions at the view's two far sides (along the normal) differ by about the
            // view's size over the vanishing point's distance.
            let distance = (v[0] * v[0] + v[1] * v[1]).squareRoot()
            convergence = max(convergence, distance > 0 ? 2 * atan(v[2].magnitude / distance) * 180 / .pi : 0)
            horizonPoints.append(v)
            // The direction towards the vanishing point (either way) is the lines' at the centre.
            let normal = (atan2(v[1], v[0]) * 180 / .pi + 90).truncatingRemainder(dividingBy: 180)
            normals.append(normal < 0 ? normal + 180 : normal)
        }
        convergenceDegrees = convergence
        normalDegrees = normals
        guard convergence >= Self.parallelDegrees else {
            matrix = [1, 0, 0, 0, 1, 0, 0, 0, 1]
            inverse = matrix
            return
        }
        let (v1, v2) = (horizonPoints[0], horizonPoints[1])
        // The horizon through both vanishing points: a x + b y + c = 0 in centred units.
        var horizon = [v1[1] * v2[2] - v1[2] * v2[1], v1[2] * v2[0] - v1[0] * v2[2], v1[0] * v2[1] - v1[1] * v2[0]]
        guard horizon[2].magnitude > 1e-12 else { return nil }
        horizon = horizon.map { $0 / horizon[2] }
        // Every corner of the view on the side of the horizon the centre lies on (w > 0).
        for (x, y) in [(-cx, -cy), (cx, -cy), (-cx, cy), (cx, cy)] {
            guard horizon[0] * x / unit + horizon[1] * y / unit + 1 > 0.2 else { return nil }
        }
        // (x, y) -> (x, y) / (a x + b y + 1) in centred units, then back to pixels.
        let a = horizon[0] / unit, b = horizon[1] / unit
        let centred = Homography.similarity(scale: 1, rotationRadians: 0, translation: Point(x: -cx, y: -cy))
        let uncentred = Homography.similarity(scale: 1, rotationRadians: 0, translation: Point(x: cx, y: cy))
        guard let projective = Homography(matrix: [1, 0, 0, 0, 1, 0, a, b, 1]),
              case let m = uncentred.multiplied(by: projective.multiplied(by: centred)),
              m.matrix.allSatisfy(\.isFinite), let inv = m.inverse else { return nil }
        matrix = m.matrix
        inverse = inv.matrix
    }

    /// The view's rectification, starting each family's tiles from the orientation
    /// histogram's perpendicular peaks (`startNormals`, degrees, where the grid search already
    /// found them; otherwise found here); nil as `init` is, or for a plane under 64 pixels.
    /// A second look on the rectified view refines it: a tile's sharpest direction is its
    /// lines' mean, which strong convergence within the tile biases.
    static func of(_ flat: Plane, startNormals: [Double]? = nil) -> KeystoneRectification? {
        guard flat.width >= 64, flat.height >= 64 else { return nil }
        let starts = startNormals ?? {
            let peaks = perpendicularPeaks(orientationHistogram(gaussianBlur(flat, sigma: 1), minMagnitude: 0.005))
            return [peaks.first, peaks.second]
        }()
        guard let first = KeystoneRectification(contrast: lineContrast(flat), startNormals: starts) else { return nil }
        guard first.convergenceDegrees >= parallelDegrees,
              let second = KeystoneRectification(contrast: lineContrast(first.warp(flat, fill: 1)),
                                                 startNormals: first.normalDegrees),
              second.convergenceDegrees >= parallelDegrees else { return first }
        return first.followed(by: second)
    }

    private init(matrix: [Double], inverse: [Double], convergenceDegrees: Double, normalDegrees: [Double]) {
        self.matrix = matrix
        self.inverse = inverse
        self.convergenceDegrees = convergenceDegrees
        self.normalDegrees = normalDegrees
    }

    /// This rectification, then `next` on the plane it rectifies: the directions at the
    /// centre are `next`'s (neither moves them), the convergence this one's.
    func followed(by next: KeystoneRectification) -> KeystoneRectification? {
        guard let this = Homography(matrix: matrix), let then = Homography(matrix: next.matrix),
              case let m = then.multiplied(by: this), m.matrix.allSatisfy(\.isFinite), let inv = m.inverse
        else { return nil }
        return KeystoneRectification(matrix: m.matrix, inverse: inv.matrix, convergenceDegrees: convergenceDegrees,
                                     normalDegrees: next.normalDegrees)
    }

    /// A map from the rectified view's image pixels (`map`, row-major 3 x 3) as a map from the
    /// view's own image pixels: through the working plane (`scale` image pixels per working
    /// pixel, pixel centres aligned as `WorkingScale` aligns them), rectified, and back.
    func composed(_ map: [Double], scale: Int) -> [Double]? {
        let s = Double(max(1, scale)), o = (s - 1) / 2
        let toWorking = Homography.similarity(scale: 1 / s, rotationRadians: 0, translation: Point(x: -o / s, y: -o / s))
        let toImage = Homography.similarity(scale: s, rotationRadians: 0, translation: Point(x: o, y: o))
        guard let found = Homography(matrix: map), let rectify = Homography(matrix: matrix) else { return nil }
        let h = found.multiplied(by: toImage.multiplied(by: rectify.multiplied(by: toWorking))).matrix
        guard h[8].magnitude > 1e-12, let m = Homography(matrix: h.map { $0 / h[8] }),
              m.determinant.magnitude > 1e-300 else { return nil }
        return m.matrix
    }

    /// `plane` resampled on the rectified plane (same size; bilinear), `fill` where the
    /// rectified pixel comes from outside the view.
    func warp(_ plane: Plane, fill: Float) -> Plane {
        let w = plane.width, h = plane.height
        let m = inverse
        return Plane(width: w, height: h) { out in
            plane.data.withUnsafeBufferPointer { d in
                for y in 0..<h {
                    for x in 0..<w {
                        let X = Double(x), Y = Double(y)
                        let s = m[6] * X + m[7] * Y + m[8]
                        let sx = (m[0] * X + m[1] * Y + m[2]) / s, sy = (m[3] * X + m[4] * Y + m[5]) / s
                        guard s > 0, sx >= 0, sy >= 0, sx <= Double(w - 1), sy <= Double(h - 1) else {
                            out[y * w + x] = fill
                            continue
                        }
                        out[y * w + x] = Plane.bilinear(d, width: w, height: h, sx, sy)
                    }
                }
            }
        }
    }
}

/// One tile's sighting of a line family: the tile's centre (working pixels) and the normal
/// direction (degrees) along which its projection is sharpest.
struct TileDirection: Sendable, Equatable {
    var x: Double
    var y: Double
    var normalDegrees: Double

    /// The line through the tile's centre along its direction, a x + b y + c = 0 (a^2 + b^2
    /// = 1) in coordinates centred on `centre` and divided by `unit`.
    func line(centre: (x: Double, y: Double), unit: Double) -> [Double] {
        let t = (normalDegrees + 90) * .pi / 180
        let px = (x - centre.x) / unit, py = (y - centre.y) / unit
        return [-sin(t), cos(t), sin(t) * px - cos(t) * py]
    }

    /// The angle (degrees) between the tile's direction and the direction from its centre
    /// to the point `v` (homogeneous, in the coordinates of `line`).
    func missDegrees(_ v: [Double], centre: (x: Double, y: Double), unit: Double) -> Double {
        let l = line(centre: centre, unit: unit)
        let px = (x - centre.x) / unit, py = (y - centre.y) / unit
        let tx = v[0] - px * v[2], ty = v[1] - py * v[2]
        let n = (tx * tx + ty * ty).squareRoot()
        guard n > 0 else { return 90 }
        return asin(min(1, abs(l[0] * tx + l[1] * ty) / n)) * 180 / .pi
    }
}

/// Per family, the tiles whose projection along some direction within 10 degrees of the
/// family's start (`startNormals`, degrees) is sharp (`projectionSharpness`) and peaked: at
/// least twice the median over the directions searched, so a tile of cells alone, sharp in
/// no direction in particular, says nothing. Searched on a half-size copy, in whole degrees,
/// then to a fifth of a degree; both families' directions in shared passes.
func tileDirections(_ contrast: Plane, startNormals: [Double], tiles: (columns: Int, rows: Int)) -> [[TileDirection]] {
    let small = downsample(contrast, factor: 2)
    let tw = small.width / tiles.columns, th = small.height / tiles.rows
    var found = [[TileDirection]](repeating: [], count: startNormals.count)
    guard tw >= 24, th >= 24 else { return found }
    let coarse = startNormals.map { start in (-10...10).map { start + Double($0) } }
    for row in 0..<tiles.rows {
        for column in 0..<tiles.columns {
            let tile = small.crop(x: column * tw, y: row * th, width: tw, height: th)
            var scores = projectionSharpness(coarse.flatMap { $0 }, on: tile)[...]
            var bests: [(family: Int, degrees: Double)] = []
            for (k, directions) in coarse.enumerated() {
                let these = Array(scores.prefix(directions.count))
                scores = scores.dropFirst(directions.count)
                guard let best = these.indices.max(by: { these[$0] < these[$1] }) else { continue }
                let median = these.sorted()[these.count / 2]
                guard these[best] > 0, these[best] >= 2 * median else { continue }
                bests.append((k, directions[best]))
            }
            guard !bests.isEmpty else { continue }
            let fine = bests.map { b in (-5...5).map { b.degrees + Double($0) * 0.2 } }
            var fineScores = projectionSharpness(fine.flatMap { $0 }, on: tile)[...]
            for (b, directions) in zip(bests, fine) {
                let these = Array(fineScores.prefix(directions.count))
                fineScores = fineScores.dropFirst(directions.count)
                guard let top = these.indices.max(by: { these[$0] < these[$1] }) else { continue }
                // Tile centres in the working plane's pixels.
                found[b.family].append(TileDirection(x: 2 * (Double(column * tw) + Double(tw - 1) / 2) + 0.5,
                                                     y: 2 * (Double(row * th) + Double(th - 1) / 2) + 0.5,
                                                     normalDegrees: directions[top]))
            }
        }
    }
    return found
}

/// The point (homogeneous, unit length) nearest to all `lines` (each a x + b y + c = 0 with
/// a^2 + b^2 = 1): the eigenvector of the smallest eigenvalue of the sum of their outer
/// products. Nil when the sum is degenerate.
func commonPoint(_ lines: [[Double]]) -> [Double]? {
    var m = [Double](repeating: 0, count: 9)
    for l in lines {
        for i in 0..<3 { for j in 0..<3 { m[i * 3 + j] += l[i] * l[j] } }
    }
    guard let (values, vectors) = symmetricEigen3(m) else { return nil }
    let k = (0..<3).min { values[$0] < values[$1] }!
    return [vectors[k], vectors[3 + k], vectors[6 + k]]
}

/// Eigenvalues and eigenvectors (columns of the row-major 3 x 3 result) of a symmetric 3 x 3
/// matrix by cyclic Jacobi rotations.
func symmetricEigen3(_ matrix: [Double]) -> (values: [Double], vectors: [Double])? {
    guard matrix.count == 9, matrix.allSatisfy(\.isFinite) else { return nil }
    var a = matrix
    var v: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    for _ in 0..<50 {
        let off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5]
        if off < 1e-30 { break }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            let apq = a[p * 3 + q]
            guard apq.magnitude > 1e-300 else { continue }
            let theta = (a[q * 3 + q] - a[p * 3 + p]) / (2 * apq)
            let t = (theta >= 0 ? 1 : -1) / (theta.magnitude + (theta * theta + 1).squareRoot())
            let c = 1 / (t * t + 1).squareRoot(), s = t * c
            // A <- J^T A J, V <- V J, with J the rotation in the (p, q) plane.
            for k in 0..<3 {
                let akp = a[k * 3 + p], akq = a[k * 3 + q]
                a[k * 3 + p] = c * akp - s * akq
                a[k * 3 + q] = s * akp + c * akq
            }
            for k in 0..<3 {
                let apk = a[p * 3 + k], aqk = a[q * 3 + k]
                a[p * 3 + k] = c * apk - s * aqk
                a[q * 3 + k] = s * apk + c * aqk
            }
            for k in 0..<3 {
                let vkp = v[k * 3 + p], vkq = v[k * 3 + q]
                v[k * 3 + p] = c * vkp - s * vkq
                v[k * 3 + q] = s * vkp + c * vkq
            }
        }
    }
    return ([a[0], a[4], a[8]], v)
}

extension Plane {
    /// The samples of the rectangle at (x, y), `width` x `height`, clipped to the plane.
    func crop(x: Int, y: Int, width cw: Int, height ch: Int) -> Plane {
        let x0 = max(0, min(x, width)), y0 = max(0, min(y, height))
        let w = max(0, min(cw, width - x0)), h = max(0, min(ch, height - y0))
        return Plane(width: w, height: h) { out in
            data.withUnsafeBufferPointer { d in
                for row in 0..<h { (out + row * w).update(from: d.baseAddress! + (y0 + row) * width + x0, count: w) }
            }
        }
    }
}
