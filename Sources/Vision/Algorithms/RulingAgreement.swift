import Foundation
import Hemocytometer

/// The Neubauer-improved ruling drawn along one axis, for `RulingView.agreement`: per half
/// micrometre of chamber coordinate, whether a stroke of a line that spans the whole ruled
/// area lies within `halfWidthUm` (bit 0), and whether a stroke of a line drawn only across
/// the central large square does (bit 1: the 50 µm lines).
struct RulingDrawing {
    static let marginUm = 200.0
    static let samplesPerUm = 2.0
    let strokes: [UInt8]

    init(halfWidthUm: Double) {
        let count = Int((NeubauerGeometry.ruledAreaUm + 2 * Self.marginUm) * Self.samplesPerUm) + 1
        var strokes = [UInt8](repeating: 0, count: count)
        for line in NeubauerGeometry.rulingLines() {
            let bit: UInt8 = line.extentEndUm - line.extentStartUm < NeubauerGeometry.ruledAreaUm ? 2 : 1
            for p in line.strokePositionsUm {
                let lo = max(0, Int(((p - halfWidthUm + Self.marginUm) * Self.samplesPerUm).rounded(.up)))
                let hi = min(count - 1, Int(((p + halfWidthUm + Self.marginUm) * Self.samplesPerUm).rounded(.down)))
                guard lo <= hi else { continue }
                for i in lo...hi { strokes[i] |= bit }
            }
        }
        self.strokes = strokes
    }
}

/// The view's line contrast on a lattice of samples: |flat - 1| every `step` working pixels
/// either way, taken once per image and scored against every chamber map the registration
/// weighs (`agreement`).
struct RulingView {
    let samples: [Float]
    let columns: Int, rows: Int
    /// Image pixel coordinates of the lattice's first sample, and between samples.
    let origin: Double, spacing: Double

    /// - Parameters:
    ///   - flat: the flattened working plane (1 = background).
    ///   - scale: image pixels per working pixel.
    ///   - step: working pixels between samples, either way.
    init(_ flat: Plane, scale: Int, step: Int = 4) {
        let step = max(1, step), s = Double(max(1, scale))
        columns = flat.width > step / 2 ? (flat.width - step / 2 + step - 1) / step : 0
        rows = flat.height > step / 2 ? (flat.height - step / 2 + step - 1) / step : 0
        origin = Double(step / 2) * s + (s - 1) / 2
        spacing = Double(step) * s
        let (columns, rows, width) = (columns, rows, flat.width)
        samples = flat.data.withUnsafeBufferPointer { f in
            (0..<(columns * rows)).map { i in abs(f[(step / 2 + i / columns * step) * width + step / 2 + i % columns * step] - 1) }
        }
    }

    /// How well a chamber map explains the ruling in view: the correlation between the samples
    /// and the Neubauer-improved ruling drawn through the map (1 on a stroke, 0 elsewhere; the
    /// 50 µm lines only inside the central large square, nothing outside the ruled area).
    ///
    /// Why: `registerRuling` scores each line family on its projection, which averages the view
    /// along the lines. A view that straddles the central large square and a neighbour folds
    /// the central square's 50 µm lines and the neighbour's 250 µm squares into one profile,
    /// where the 200 µm group squares score about as well as 250 µm squares: a quarter of the
    /// calibration off and the concentration up to 56 %. Drawn in two dimensions, each hypothesis
    /// says where the 50 µm lines stop and where the spacing changes, and the view shows it or
    /// not.
    ///
    /// - Parameters:
    ///   - imageToChamber: image pixels to chamber µm, row-major 3 x 3, affine (the registration's).
    ///   - umPerPixel: the map's scale, µm per image pixel (for the strokes' drawn width).
    ///   - workingScale: image pixels per working pixel (a blurred stroke spreads over a
    ///     working pixel or so either side of its middle).
    ///   - stride: use every `stride`-th sample of the lattice either way (a coarse look).
    /// - Returns: the correlation (-1 ... 1), or nil when the samples or the drawing are flat.
    func agreement(imageToChamber h: [Double], umPerPixel: Double, workingScale: Int, stride: Int = 1) -> Double? {
        guard h.count == 9, h[6] == 0, h[7] == 0, h[8] == 1, h.allSatisfy(\.isFinite),
              umPerPixel.isFinite, umPerPixel > 0, stride >= 1 else { return nil }
        // (No wider than the ruled area: an absurd scale must not reach the table's conversions.)
        let drawing = RulingDrawing(halfWidthUm: min(max(2.5, 0.75 * umPerPixel * Double(max(1, workingScale))),
                                                     NeubauerGeometry.ruledAreaUm))
        // Table positions in fixed point (16 fractional bits): (chamber µm + margin) x samples
        // per µm, stepped by a constant along a row of samples (the map is affine), so the
        // loop converts no floating point and checks no range but the table's.
        let k = RulingDrawing.samplesPerUm * 65536, m = RulingDrawing.marginUm * k
        // A map that puts the view farther off than Int can step is not the chamber.
        let reach = 4 * Double(max(columns, rows)) * spacing * Double(stride) * (abs(h[0]) + abs(h[1]) + abs(h[3]) + abs(h[4]))
            + abs(h[2]) + abs(h[5])
        guard reach * k < 1e15 else { return nil }
        let tableCount = UInt(drawing.strokes.count)
        // The central large square in table positions (bit 1, a 50 µm line, counts only there).
        let low = Int((NeubauerGeometry.largeSquareUm + RulingDrawing.marginUm) * RulingDrawing.samplesPerUm)
        let high = Int((2 * NeubauerGeometry.largeSquareUm + RulingDrawing.marginUm) * RulingDrawing.samplesPerUm)
        let dx = spacing * Double(stride)
        let du = Int((h[0] * dx * k).rounded()), dv = Int((h[3] * dx * k).rounded())
        let (n, sum, sumSquares) = moments(stride: stride)
        var onLine = 0
        var sumOnLine: Float = 0
        samples.withUnsafeBufferPointer { f in
            drawing.strokes.withUnsafeBufferPointer { table in
                var row = 0
                while row < rows {
                    let py = origin + Double(row) * spacing
                    var u = Int(((h[0] * origin + h[1] * py + h[2]) * k + m).rounded())
                    var v = Int(((h[3] * origin + h[4] * py + h[5]) * k + m).rounded())
                    var at = row &* columns
                    var column = 0
                    while column < columns {
                        let iu = u >> 16, iv = v >> 16
                        let across = UInt(bitPattern: iu) < tableCount ? table[iu] : 0
                        let down = UInt(bitPattern: iv) < tableCount ? table[iv] : 0
                        let insideU: UInt8 = iu >= low && iu <= high ? 3 : 1, insideV: UInt8 = iv >= low && iv <= high ? 3 : 1
                        let drawn = (across & insideV) | (down & insideU) != 0
                        onLine &+= drawn ? 1 : 0
                        sumOnLine += drawn ? f[at] : 0
                        u &+= du
                        v &+= dv
                        at &+= stride
                        column &+= stride
                    }
                    row &+= stride
                }
            }
        }
        guard n >= 16, onLine > 0, onLine < n else { return nil }
        let total = Double(n), p = Double(onLine) / total, mean = sum / total
        let variance = sumSquares / total - mean * mean
        guard variance > 1e-18 else { return nil }
        return (Double(sumOnLine) / total - p * mean) / (p * (1 - p) * variance).squareRoot()
    }

    /// Count, sum and sum of squares of the samples every `stride`-th either way.
    private func moments(stride: Int) -> (n: Int, sum: Double, sumSquares: Double) {
        var n = 0, sum = 0.0, sumSquares = 0.0
        samples.withUnsafeBufferPointer { f in
            var row = 0
            while row < rows {
                var at = row &* columns, column = 0
                while column < columns {
                    let o = Double(f[at])
                    n &+= 1
                    sum += o
                    sumSquares += o * o
                    at &+= stride
                    column &+= stride
                }
                row &+= stride
            }
        }
        return (n, sum, sumSquares)
    }
}
