import Foundation
import Hemocytometer

/// The Neubauer-improved ruling drawn along one axis, for `RulingView.agreement`, per half
/// micrometre of chamber coordinate, as running counts: how many table steps before each step
/// the strokes of a class of lines cover, so that the share of any window they cover is the
/// difference of two counts (`RulingView.agreement`, whatever each map's window). Each stroke
/// is `2 * halfWidthUm` wide.
///
/// The classes: `full`, every line that spans the whole ruled area; `central`, the 50 µm lines,
/// drawn only across the central large square; and, for chambers whose side squares are left
/// empty (ruled with their borders only), the lines spanning the ruled area split by where
/// they lie: `frame`, the large squares' borders (every 1000 µm); `group`, the triple lines
/// between the central column's group squares; `corner`, the single lines of the corner
/// squares' 250 µm subdivision.
struct RulingDrawing {
    static let marginUm = 200.0
    static let samplesPerUm = 2.0
    static let classes = 5
    /// Table steps per axis (from -`marginUm` to the ruled area's far side plus the margin).
    let count: Int
    /// `classes` counts a step, for steps 0 ... count (full, central, frame, group, corner):
    /// the covered steps before it.
    let covered: [Int32]

    /// The window's reach either side, table steps, for a window `windowUm` wide.
    static func reach(windowUm: Double) -> Int { max(0, Int((windowUm * samplesPerUm / 2).rounded(.down))) }

    init(halfWidthUm: Double) {
        let count = Int((NeubauerGeometry.ruledAreaUm + 2 * Self.marginUm) * Self.samplesPerUm) + 1
        let classes = Self.classes
        var masks = [UInt8](repeating: 0, count: count * classes)
        let large = NeubauerGeometry.largeSquareUm
        for line in NeubauerGeometry.rulingLines() {
            let spansAll = line.extentEndUm - line.extentStartUm >= NeubauerGeometry.ruledAreaUm
            let inCentralColumn = line.positionUm > large && line.positionUm < 2 * large
            let onFrame = (line.positionUm / large).rounded() * large == line.positionUm
            let split = !spansAll ? 1 : onFrame ? 2 : inCentralColumn ? 3 : 4
            for k in spansAll ? [0, split] : [1] {
                for p in line.strokePositionsUm {
                    let lo = max(0, Int(((p - halfWidthUm + Self.marginUm) * Self.samplesPerUm).rounded(.up)))
                    let hi = min(count - 1, Int(((p + halfWidthUm + Self.marginUm) * Self.samplesPerUm).rounded(.down)))
                    guard lo <= hi else { continue }
                    for i in lo...hi { masks[i * classes + k] = 1 }
                }
            }
        }
        var covered = [Int32](repeating: 0, count: (count + 1) * classes)
        for i in 0..<count {
            for k in 0..<classes { covered[(i + 1) * classes + k] = covered[i * classes + k] + Int32(masks[i * classes + k]) }
        }
        self.count = count
        self.covered = covered
    }
}

/// The view's line contrast in blocks: the mean of |flat - 1| over each `step` x `step` block
/// of the working plane, taken once per image and scored against every chamber map the
/// registration weighs (`agreement`). Means over whole blocks, not point samples: a lattice of
/// points in step with the 50 µm lines (4 working pixels a square at some magnifications) sees
/// them everywhere or nowhere.
struct RulingView {
    let samples: [Float]
    let columns: Int, rows: Int
    /// Image pixel coordinates of the first block's centre, and between block centres.
    let origin: Double, spacing: Double
    /// The drawings made so far, by stroke width: the pairs share them (at up to about 5 µm
    /// per pixel every map draws its strokes 2.5 µm either side of their middle).
    private let drawings = DrawingCache()

    private final class DrawingCache {
        var drawings: [Double: RulingDrawing] = [:]
        func drawing(halfWidthUm: Double) -> RulingDrawing {
            if let known = drawings[halfWidthUm] { return known }
            let made = RulingDrawing(halfWidthUm: halfWidthUm)
            drawings[halfWidthUm] = made
            return made
        }
    }

    /// - Parameters:
    ///   - flat: the flattened working plane (1 = background).
    ///   - scale: image pixels per working pixel.
    ///   - step: block size, working pixels.
    init(_ flat: Plane, scale: Int, step: Int) {
        let step = max(1, step), s = Double(max(1, scale))
        let (columns, rows, width) = (flat.width / step, flat.height / step, flat.width)
        self.columns = columns
        self.rows = rows
        origin = Double(step - 1) / 2 * s + (s - 1) / 2
        spacing = Double(step) * s
        var sums = [Float](repeating: 0, count: columns * rows)
        sums.withUnsafeMutableBufferPointer { out in
            flat.data.withUnsafeBufferPointer { f in
                for y in 0..<(rows * step) {
                    let row = y / step * columns, line = y * width
                    if step == 4 {
                        // Four pixels, one block, a vector at a time.
                        let base = UnsafeRawPointer(f.baseAddress! + line)
                        for column in 0..<columns {
                            let v = base.loadUnaligned(fromByteOffset: 16 * column, as: SIMD4<Float>.self) - 1
                            // |v| by clearing the sign bits.
                            let a = unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt32>.self) & 0x7fff_ffff, to: SIMD4<Float>.self)
                            out[row + column] += (a[0] + a[1]) + (a[2] + a[3])
                        }
                        continue
                    }
                    for column in 0..<columns {
                        var sum: Float = 0
                        for x in (column * step)..<(column * step + step) { sum += abs(f[line + x] - 1) }
                        out[row + column] += sum
                    }
                }
            }
        }
        let area = Float(step * step)
        samples = sums.map { $0 / area }
    }

    /// `fine`'s blocks merged `factor` x `factor` (the same as blocks `factor` times larger on
    /// the plane, but from the fine blocks' sums).
    init(coarsening fine: RulingView, by factor: Int) {
        let factor = max(1, factor)
        columns = fine.columns / factor
        rows = fine.rows / factor
        spacing = fine.spacing * Double(factor)
        origin = fine.origin + fine.spacing * Double(factor - 1) / 2
        var sums = [Float](repeating: 0, count: columns * rows)
        for y in 0..<(rows * factor) {
            for x in 0..<(columns * factor) { sums[y / factor * columns + x / factor] += fine.samples[y * fine.columns + x] }
        }
        let area = Float(factor * factor)
        samples = sums.map { $0 / area }
    }

    /// How well a chamber map explains the ruling in view: the correlation between the blocks'
    /// line contrast and the share of each block the Neubauer-improved ruling covers, drawn
    /// through the map (the 50 µm lines only inside the central large square, nothing outside
    /// the ruled area).
    ///
    /// Why: `registerRuling` scores each line family on its projection, which averages the view
    /// along the lines. A view that straddles the central large square and a neighbour folds
    /// the central square's 50 µm lines and the neighbour's 250 µm squares into one profile,
    /// where the 200 µm group squares score about as well as 250 µm squares: a quarter of the
    /// calibration off and the concentration up to 56 %. Drawn in two dimensions, each
    /// hypothesis says where the 50 µm lines stop and where the spacing changes, and the view
    /// shows it or not.
    ///
    /// - Parameters:
    ///   - imageToChamber: image pixels to chamber µm, row-major 3 x 3, affine (the registration's).
    ///   - umPerPixel: the map's scale, µm per image pixel.
    ///   - workingScale: image pixels per working pixel (a blurred stroke spreads over a
    ///     working pixel or so either side of its middle).
    ///   - emptySideSquares: also compare the view with the ruling drawn with empty side
    ///     squares (`RulingDrawing`), and take the better correlation...
    ///   - emptySidesMargin: ...that one less this. Every map gets a second drawing to fit;
    ///     without a handicap, a wrong scale fitted that way beat the right one fitted to the
    ///     standard drawing in 3 of the 624 calibrated views of 25 evaluation sets (fourth and
    ///     fifth generators, side squares ruled); from 0.04 none did, and below 0.06 the two
    ///     sixth-generator views it corrects (side squares empty) kept their right scale.
    /// - Returns: the correlation (-1 ... 1), or nil when the blocks or the drawing are flat.
    func agreement(imageToChamber h: [Double], umPerPixel: Double, workingScale: Int,
                   emptySideSquares: Bool = false, emptySidesMargin: Double = 0.04) -> Double? {
        guard h.count == 9, h[6] == 0, h[7] == 0, h[8] == 1, h.allSatisfy(\.isFinite),
              umPerPixel.isFinite, umPerPixel > 0 else { return nil }
        let area = NeubauerGeometry.ruledAreaUm
        // A block spans `spacing` image pixels either way: along each chamber axis the sum of the
        // map's two terms times that. (Neither wider than the ruled area: an absurd map must not
        // reach the table's conversions.)
        let windowU = min(spacing * (abs(h[0]) + abs(h[1])), area), windowV = min(spacing * (abs(h[3]) + abs(h[4])), area)
        let halfWidth = min(max(2.5, 0.5 * umPerPixel * Double(max(1, workingScale))), area)
        let drawing = drawings.drawing(halfWidthUm: halfWidth)
        let reachU = RulingDrawing.reach(windowUm: windowU), reachV = RulingDrawing.reach(windowUm: windowV)
        // Table positions in fixed point (16 fractional bits): (chamber µm + margin) x samples
        // per µm, stepped by a constant along a row of blocks (the map is affine), so the loop
        // converts no floating point and checks no range but the table's.
        let k = RulingDrawing.samplesPerUm * 65536, m = RulingDrawing.marginUm * k
        // A map that puts the view farther off than Int can step is not the chamber.
        let reach = 4 * Double(max(columns, rows)) * spacing * (abs(h[0]) + abs(h[1]) + abs(h[3]) + abs(h[4]))
            + abs(h[2]) + abs(h[5])
        guard reach * k < 1e15, columns * rows >= 16 else { return nil }
        let tableCount = UInt(drawing.count), classes = RulingDrawing.classes
        // The central large square in table positions (a 50 µm line counts only there).
        let low = Int((NeubauerGeometry.largeSquareUm + RulingDrawing.marginUm) * RulingDrawing.samplesPerUm)
        let high = Int((2 * NeubauerGeometry.largeSquareUm + RulingDrawing.marginUm) * RulingDrawing.samplesPerUm)
        let du = Int((h[0] * spacing * k).rounded()), dv = Int((h[3] * spacing * k).rounded())
        // Sums over the blocks of the view (o) and of both drawings: the standard ruling (p)
        // and the one with empty side squares (q).
        var sumO = 0.0, sumOO = 0.0
        var sumP = 0.0, sumPP = 0.0, sumOP = 0.0, sumQ = 0.0, sumQQ = 0.0, sumOQ = 0.0
        samples.withUnsafeBufferPointer { f in
            drawing.covered.withUnsafeBufferPointer { t in
                let count = drawing.count
                let widthU = Float(2 * reachU + 1), widthV = Float(2 * reachV + 1)
                // Coverage of a block by one axis's lines, in each drawing: the share of the
                // window `reach` steps either side of step i that each class covers (the window
                // cut at the table's ends, where nothing is drawn, but always divided by its
                // full width), `otherCentral` whether the block lies in the central band of the
                // other axis (the 50 µm lines, and in the drawing with empty side squares the
                // group lines, are drawn only there, the corner lines only outside it).
                @inline(__always) func cover(_ i: Int, reach: Int, width: Float, otherCentral: Bool) -> (Float, Float) {
                    let hi = min(i &+ reach &+ 1, count) &* classes, lo = max(i &- reach, 0) &* classes
                    @inline(__always) func share(_ k: Int) -> Float { Float(t[hi &+ k] &- t[lo &+ k]) / width }
                    let standard = min(1, share(0) + (otherCentral ? share(1) : 0))
                    let emptySides = min(1, share(2) + (otherCentral ? share(3) + share(1) : share(4)))
                    return (standard, emptySides)
                }
                for row in 0..<rows {
                    let py = origin + Double(row) * spacing
                    var u = Int(((h[0] * origin + h[1] * py + h[2]) * k + m).rounded())
                    var v = Int(((h[3] * origin + h[4] * py + h[5]) * k + m).rounded())
                    var at = row &* columns
                    for _ in 0..<columns {
                        let iu = u >> 16, iv = v >> 16
                        let inU = UInt(bitPattern: iu) < tableCount, inV = UInt(bitPattern: iv) < tableCount
                        let (cu, cu2) = inU ? cover(iu, reach: reachU, width: widthU, otherCentral: iv >= low && iv <= high) : (0, 0)
                        let (cv, cv2) = inV ? cover(iv, reach: reachV, width: widthV, otherCentral: iu >= low && iu <= high) : (0, 0)
                        // Lines of either axis cover a block independently of each other.
                        let p = Double(1 - (1 - cu) * (1 - cv)), q = Double(1 - (1 - cu2) * (1 - cv2))
                        let o = Double(f[at])
                        sumO += o
                        sumOO += o * o
                        sumP += p
                        sumPP += p * p
                        sumOP += o * p
                        sumQ += q
                        sumQQ += q * q
                        sumOQ += o * q
                        u &+= du
                        v &+= dv
                        at &+= 1
                    }
                }
            }
        }
        let n = Double(columns * rows)
        let meanO = sumO / n, varO = sumOO / n - meanO * meanO
        guard varO > 1e-18 else { return nil }
        func correlation(_ sum: Double, _ sumSquares: Double, _ sumWithView: Double) -> Double? {
            let mean = sum / n, variance = sumSquares / n - mean * mean
            guard variance > 1e-12 else { return nil }
            return (sumWithView / n - mean * meanO) / (variance * varO).squareRoot()
        }
        let standard = correlation(sumP, sumPP, sumOP)
        guard emptySideSquares, let emptySides = correlation(sumQ, sumQQ, sumOQ) else { return standard }
        return max(standard ?? -1, emptySides - emptySidesMargin)
    }
}
