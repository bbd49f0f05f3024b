import Foundation
import Hemocytometer
import Imaging

/// Whether a window of the image is the ruling itself: the same window one ruling period
/// away, along either of the ruling's directions, looks the same.
///
/// Why: heavy rulings hold small light squares ringed by dark strokes (between the strokes of
/// a triple line where a single line or another triple line crosses it) that pass every test
/// a cell's rim is put to. The ruling repeats (`NeubauerGeometry`: 50 µm small squares and
/// 200 µm groups in the central square, 250 µm squares in the corners); a cell does not.
/// Where copies of a candidate's window a period away match it up to a residual small beside
/// the window's own structure, the window holds nothing the ruling does not. One copy is not
/// enough: a dense sample holds cells with a look-alike neighbour exactly a period away.
struct RulingCopies {
    /// Ruling periods, µm.
    static let periodsUm = [NeubauerGeometry.smallSquareUm, NeubauerGeometry.groupSquareUm,
                            NeubauerGeometry.cornerSubsquareUm]
    /// The window's radius, candidate radii (plus 2 px): the candidate and its rim, little
    /// else. (At 1.25 the window holds more of what lies beside the candidate, which does not
    /// repeat: a residual limit of 0.25 then cost 7 cells of the third generator's draws,
    /// offline; at 1.0 no cell of them.)
    static let windowRadii = 1.0
    /// Registration error allowed, image pixels each way: whole pixels are searched, then the
    /// best is refined to a fraction of a pixel.
    static let reach = 2
    /// A copy whose residual at its registered position is above this is not searched: on
    /// the third generator's draws, where the registration is up to 2 px off, 95 % of the
    /// copies that match after the search are below 0.36 there, and a candidate with two
    /// matching copies always had two below 0.4; half the copies of a cell are above 1
    /// (offline, with the window at 1.25 radii).
    static let searchBelow: Float = 0.45

    private let image: Image
    private let toChamber: Homography
    private let toImage: Homography
    /// Disc layouts by radius, built on first use.
    private var layouts: [Int: DiscLayout] = [:]
    /// The differences of one comparison, kept from candidate to candidate.
    private var scratch: [Float] = []

    /// The mean absolute deviation of the log-grey difference of two windows of the same
    /// scene that the image's noise alone gives (`logGreyNoise` x sqrt(2) x sqrt(2 / pi)).
    let noiseResidual: Float

    /// Nil when the chamber map has no inverse. `measuringNoise` false leaves `noiseResidual`
    /// 0 (a pass over the image saved where the noise rule is off).
    init?(_ image: Image, imageToChamber: Homography, measuringNoise: Bool = true) {
        guard let inverse = imageToChamber.inverse else { return nil }
        self.image = image
        toChamber = imageToChamber
        toImage = inverse
        noiseResidual = measuringNoise ? logGreyNoise(image) * (4 / Float.pi).squareRoot() : 0
    }

    /// What `matches` found: how many copies matched, and the smallest residual of any copy
    /// searched (relative to the window's own structure; infinity when none was).
    struct Verdict: Equatable {
        var matches: Int
        var best: Float
    }

    /// A disc's samples as offsets from its centre in the image (all of them, and every third
    /// row and column: the cheap look), and as indices into a window `side` wide centred on
    /// it with the search's margin round the disc (all of them, and every other row and
    /// column: the whole-pixel search).
    private struct DiscLayout {
        let half: Int, side: Int
        let inImage: [Int], gateInImage: [Int]
        let inWindow: [Int], sparseInWindow: [Int], sparseInImage: [Int]

        /// Half the side of the window: the disc and the search's margin (the reach, and a
        /// pixel for the bilinear read beyond it).
        static func half(radius: Int) -> Int { radius + RulingCopies.reach + 2 }

        init(radius: Int, imageWidth: Int) {
            half = Self.half(radius: radius)
            side = 2 * half + 1
            var inImage: [Int] = [], gateInImage: [Int] = [], inWindow: [Int] = [], sparseInWindow: [Int] = []
            var sparseInImage: [Int] = []
            for dy in -radius...radius {
                for dx in -radius...radius where dx * dx + dy * dy <= radius * radius {
                    let image = dy * imageWidth + dx, window = (dy + half) * side + dx + half
                    inImage.append(image)
                    inWindow.append(window)
                    if dx & 1 == 0 && dy & 1 == 0 {
                        sparseInImage.append(image)
                        sparseInWindow.append(window)
                    }
                    if dx % 3 == 0 && dy % 3 == 0 { gateInImage.append(image) }
                }
            }
            (self.inImage, self.gateInImage, self.inWindow, self.sparseInWindow, self.sparseInImage)
                = (inImage, gateInImage, inWindow, sparseInWindow, sparseInImage)
        }
    }

    /// Copies of the disc of radius `windowRadii` r + 2 round (x, y) (image pixels) one period
    /// away along either ruling direction whose residual is below `maxResidual`, counted up to
    /// `enough`. The residual is the mean absolute deviation from its mean of the log-grey
    /// difference between the disc and the copy, at the copy's best alignment, over the disc's
    /// own mean absolute deviation (a slowly varying illumination adds a constant to the
    /// difference and drops out). Nil when the disc (with the search's margin) leaves the
    /// image or is flat.
    ///
    /// With `noiseMultiple` above 0 a copy also matches where its residual is at most that many
    /// `noiseResidual`s and at most `noiseStructure` of the disc's structure.
    ///
    /// With `maxFlattening` above 1 the copy's structure is first scaled down to the disc's by
    /// the gain that fits best, down to 1 / `maxFlattening` (`CopyResidual.flattened`): veiling
    /// glare over the disc flattens it beside a copy outside the glare. Never up: a cell adds
    /// structure to its disc, which a copy with less, scaled up, could hide. The noise rule
    /// still reads the plain residual (a gain below 1 shrinks the copy's noise too).
    mutating func matches(x: Double, y: Double, r: Double, maxResidual: Float, enough: Int,
                          noiseMultiple: Float = 0, noiseStructure: Float = 0,
                          maxFlattening: Float = 1) -> Verdict? {
        guard r > 0, r < 1e4, x.magnitude < 1e9, y.magnitude < 1e9 else { return nil }
        let radius = Int((Self.windowRadii * r + 2).rounded(.up))
        let cx = Int(x.rounded()), cy = Int(y.rounded())
        guard fits(cx, cy, DiscLayout.half(radius: radius)),
              let centre = toChamber.apply(Point(x: x, y: y)) else { return nil }
        let layout: DiscLayout
        if let known = layouts[radius] {
            layout = known
        } else {
            layout = DiscLayout(radius: radius, imageWidth: image.width)
            layouts[radius] = layout
        }
        let half = layout.half, side = layout.side
        let ownGate = logGrey(at: layout.gateInImage, x: cx, y: cy)
        // Taken out of `self` while in use (the comparisons read `self`), and put back.
        var scratch = self.scratch
        self.scratch = []
        defer { self.scratch = scratch }
        if scratch.count < layout.inImage.count { scratch = [Float](repeating: 0, count: layout.inImage.count) }
        let gateStructure = meanDeviation(ownGate, count: ownGate.count, sum: ownGate.reduce(0, +))
        guard gateStructure > 1e-4 else { return nil }
        // The disc and its structure, read when a copy is searched.
        var own: [Float] = [], ownSparse: [Float] = [], structure: Float = 0
        var verdict = Verdict(matches: 0, best: .infinity)
        for period in Self.periodsUm {
            for (ux, uy) in [(period, 0.0), (-period, 0), (0, period), (0, -period)] {
                guard let q = toImage.apply(Point(x: centre.x + ux, y: centre.y + uy)),
                      q.x.magnitude < 1e9, q.y.magnitude < 1e9 else { continue }
                let qx = Int(q.x.rounded()), qy = Int(q.y.rounded())
                guard fits(qx, qy, half) else { continue }
                let gate = gateResidual(ownGate, at: layout.gateInImage, x: qx, y: qy, maxFlattening: maxFlattening,
                                        scratch: &scratch)
                // The gate's ninth of the samples sees the noise too: half as much again.
                guard gate.flattened <= Self.searchBelow * gateStructure
                        || (noiseMultiple > 0 && gate.plain <= 1.5 * noiseMultiple * noiseResidual) else { continue }
                if own.isEmpty {
                    own = logGrey(at: layout.inImage, x: cx, y: cy)
                    ownSparse = logGrey(at: layout.sparseInImage, x: cx, y: cy)
                    structure = meanDeviation(own, count: own.count, sum: own.reduce(0, +))
                }
                let copy = logWindow(qx, qy, half)
                func residual(_ tx: Double, _ ty: Double, _ values: [Float], _ at: [Int]) -> CopyResidual {
                    shiftedResidual(values, at: at, copy: copy, side: side, tx: tx, ty: ty,
                                    maxFlattening: maxFlattening, scratch: &scratch)
                }
                // Whole pixels downhill from the registered position, on every other row and
                // column; then the vertex of the parabolas through the best and its four
                // neighbours. The residual over the whole disc at whichever is better.
                var bx = 0, by = 0
                var around = [Float](repeating: 0, count: 9)
                let span = 2 * Self.reach + 3
                var seen = [Float](repeating: .nan, count: span * span)
                search: while true {
                    for k in 0..<9 {
                        let sx = bx + k % 3 - 1, sy = by + k / 3 - 1
                        let at = (sy + Self.reach + 1) * span + sx + Self.reach + 1
                        if seen[at].isNaN {
                            seen[at] = residual(Double(sx), Double(sy), ownSparse, layout.sparseInWindow).flattened
                        }
                        around[k] = seen[at]
                    }
                    let k = around.indices.min { around[$0] < around[$1] }!
                    let nx = bx + k % 3 - 1, ny = by + k / 3 - 1
                    guard k != 4, abs(nx) <= Self.reach, abs(ny) <= Self.reach else { break search }
                    (bx, by) = (nx, ny)
                }
                let vx = Double(bx) + parabolaMinimumOffset(Double(around[3]), Double(around[4]), Double(around[5]))
                let vy = Double(by) + parabolaMinimumOffset(Double(around[1]), Double(around[4]), Double(around[7]))
                let atWhole = residual(Double(bx), Double(by), own, layout.inWindow)
                let atVertex = residual(vx, vy, own, layout.inWindow)
                let best = min(atWhole.flattened, atVertex.flattened) / structure
                let absolute = min(atWhole.plain, atVertex.plain)
                verdict.best = min(verdict.best, best)
                if best < maxResidual
                    || (noiseMultiple > 0 && absolute <= noiseMultiple * noiseResidual
                        && absolute / structure <= noiseStructure) {
                    verdict.matches += 1
                    if verdict.matches >= enough { return verdict }
                }
            }
        }
        return verdict
    }

    private func fits(_ x: Int, _ y: Int, _ half: Int) -> Bool {
        x - half >= 0 && y - half >= 0 && x + half < image.width && y + half < image.height
    }

    /// Log grey of the square window of half-side `half` round (x, y), row by row.
    private func logWindow(_ x: Int, _ y: Int, _ half: Int) -> [Float] {
        let side = 2 * half + 1, width = image.width
        return [Float](unsafeUninitializedCapacity: side * side) { out, count in
            image.pixels.withUnsafeBufferPointer { px in
                logGreyTable.withUnsafeBufferPointer { table in
                    for row in 0..<side {
                        var p = ((y - half + row) * width + x - half) * 3
                        for column in 0..<side {
                            out[row * side + column] = logGreyOfPixel(px, at: p, table: table)
                            p &+= 3
                        }
                    }
                }
            }
            count = side * side
        }
    }

    /// Log grey at `at` (offsets from (x, y) in image samples).
    private func logGrey(at: [Int], x: Int, y: Int) -> [Float] {
        let origin = y * image.width + x
        return image.pixels.withUnsafeBufferPointer { px in
            logGreyTable.withUnsafeBufferPointer { table in
                at.map { offset in
                    logGreyOfPixel(px, at: (origin &+ offset) &* 3, table: table)
                }
            }
        }
    }

    /// `shiftedResidual` of the whole-pixel copy at (x, y), read straight from the image at
    /// `at` (offsets from (x, y) in image samples): the cheap look that decides whether a copy
    /// is worth its search.
    private func gateResidual(_ values: [Float], at: [Int], x: Int, y: Int, maxFlattening: Float,
                              scratch: inout [Float]) -> CopyResidual {
        let origin = y * image.width + x
        image.pixels.withUnsafeBufferPointer { px in
            logGreyTable.withUnsafeBufferPointer { table in
                at.withUnsafeBufferPointer { offsets in
                    scratch.withUnsafeMutableBufferPointer { copy in
                        for k in values.indices {
                            copy[k] = logGreyOfPixel(px, at: (origin &+ offsets[k]) &* 3, table: table)
                        }
                    }
                }
            }
        }
        return CopyResidual(values, scratch, maxFlattening: maxFlattening)
    }
}

/// Noise of the log grey (`logGreyOfPixel`) per pixel, a standard deviation: from the
/// differences of pixels three apart along every fourth row, every fifth pixel (as
/// `sampleNoise` estimates it; a 1920 x 1080 view gives over 100,000 differences, and every
/// pixel's would cost a few per cent of the pipeline for the same percentile). 0 where more
/// than a quarter of the differences are 0 (a smooth, heavily compressed view).
func logGreyNoise(_ image: Image) -> Float {
    let w = image.width, h = image.height, gap = 3
    guard w > gap, h > 0 else { return 0 }
    var differences: [Float] = []
    differences.reserveCapacity((h / 4 + 1) * (w / 5 + 1))
    image.pixels.withUnsafeBufferPointer { px in
        logGreyTable.withUnsafeBufferPointer { table in
            for y in stride(from: 0, to: h, by: 4) {
                for x in stride(from: 0, to: w - gap, by: 5) {
                    let i = y * w + x
                    differences.append(abs(logGreyOfPixel(px, at: (i + gap) * 3, table: table)
                                           - logGreyOfPixel(px, at: i * 3, table: table)))
                }
            }
        }
    }
    return sigmaFromMagnitudes(differences) / Float(2).squareRoot()
}

/// Mean absolute deviation from their mean of the first `count` values (summing to `sum`).
private func meanDeviation(_ values: [Float], count: Int, sum: Float) -> Float {
    guard count > 0 else { return 0 }
    let n = Float(count), mean = sum / n
    var deviation: Float = 0
    values.withUnsafeBufferPointer { d in
        for k in 0..<count { deviation += abs(d[k] - mean) }
    }
    return deviation / n
}

/// `CopyResidual` of `values` against `copy(at[k] + (tx, ty))`, the copy read bilinearly (a
/// window `side` wide; the shift at most the window's margin less one).
private func shiftedResidual(_ values: [Float], at: [Int], copy: [Float], side: Int, tx: Double, ty: Double,
                             maxFlattening: Float, scratch: inout [Float]) -> CopyResidual {
    let fx = floor(tx), fy = floor(ty)
    let ax = Float(tx - fx), ay = Float(ty - fy)
    let w00 = (1 - ax) * (1 - ay), w10 = ax * (1 - ay), w01 = (1 - ax) * ay, w11 = ax * ay
    let offset = Int(fy) * side + Int(fx)
    let whole = ax == 0 && ay == 0
    copy.withUnsafeBufferPointer { c in
        at.withUnsafeBufferPointer { positions in
            scratch.withUnsafeMutableBufferPointer { d in
                if whole {
                    for k in values.indices { d[k] = c[positions[k] &+ offset] }
                    return
                }
                for k in values.indices {
                    let i = positions[k] &+ offset
                    d[k] = w00 * c[i] + w10 * c[i &+ 1] + w01 * c[i &+ side] + w11 * c[i &+ side &+ 1]
                }
            }
        }
    }
    return CopyResidual(values, scratch, maxFlattening: maxFlattening)
}

/// How a copy differs from a window: `plain`, the mean absolute deviation from its mean of the
/// difference (window minus copy; a constant offset, a slowly varying illumination in log grey,
/// drops out); `flattened`, the same with the copy's deviations from its mean first scaled by
/// the least-squares gain in [1 / maxFlattening, 1], or `plain` where that is lower (equal to
/// `plain` at 1): flattening only ever adds matches.
struct CopyResidual {
    var plain: Float
    var flattened: Float

    /// The first `values.count` of `copy` against `values` (a copy shorter than that matches
    /// nothing: infinite residuals).
    init(_ values: [Float], _ copy: [Float], maxFlattening: Float) {
        let n = values.count
        guard copy.count >= n else {
            (plain, flattened) = (.infinity, .infinity)
            return
        }
        guard n > 0 else {
            (plain, flattened) = (0, 0)
            return
        }
        (plain, flattened) = values.withUnsafeBufferPointer { v in
            copy.withUnsafeBufferPointer { c in
                var sv: Float = 0, sc: Float = 0
                for k in 0..<n {
                    sv += v[k]
                    sc += c[k]
                }
                let mv = sv / Float(n), mc = sc / Float(n)
                // The plain deviation and the gain's sums in one pass; a second only where the
                // copy is scaled.
                var plain: Float = 0, cross: Float = 0, copyEnergy: Float = 0
                for k in 0..<n {
                    let a = v[k] - mv, b = c[k] - mc
                    plain += abs(a - b)
                    cross += a * b
                    copyEnergy += b * b
                }
                plain /= Float(n)
                let gain = maxFlattening > 1 && copyEnergy > 0 ? min(max(cross / copyEnergy, 1 / maxFlattening), 1) : 1
                guard gain < 1 else { return (plain, plain) }
                var flattened: Float = 0
                for k in 0..<n { flattened += abs((v[k] - mv) - gain * (c[k] - mc)) }
                // The gain fits squares and the residual sums magnitudes: at 1 it can be lower.
                return (plain, min(plain, flattened / Float(n)))
            }
        }
    }
}
