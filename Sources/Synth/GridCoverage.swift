import Foundation

/// The ruling's effect on transmission as a function of one chamber coordinate: a signed
/// change (negative = darker), sampled finely enough (1/8 µm) that nearest-sample lookup is
/// exact to well under a pixel.
///
/// Each stroke is a box of `widthPx` blurred by a Gaussian of `blurSigma` px (a difference
/// of two error functions); nearby strokes (a triple line's three) add up, capped at full
/// coverage. An optional fringe of the opposite sign borders the lines, as bright lines show
/// in real optics (dark edges) and dark lines sometimes do (a bright halo).
struct GridProfileTable {
    static let samplesPerUm = 8.0
    /// Chamber coordinates covered: the ruled area plus a margin for outer strokes and blur.
    static let marginUm = 300.0

    let values: [Float]

    /// - Parameters:
    ///   - strokesUm: stroke centre positions, µm.
    ///   - umPerPixel: image scale, µm per px.
    ///   - widthPx: stroke width, px.
    ///   - blurSigma: defocus, px (floored at 0.35 px to stand in for pixel integration).
    ///   - peak: transmission change on a line: negative for dark lines, positive for bright.
    ///   - fringe: magnitude of the opposite-sign change beside the lines (0 = none).
    ///   - fringeWidthPx: width of the fringe on each side, px.
    init(strokesUm: [Double], umPerPixel: Double, widthPx: Double, blurSigma: Double, peak: Double,
         fringe: Double = 0, fringeWidthPx: Double = 1.5) {
        let count = Int((ChamberRuling.ruledAreaUm + 2 * GridProfileTable.marginUm) * GridProfileTable.samplesPerUm) + 1
        var line = [Double](repeating: 0, count: count)
        var wide = [Double](repeating: 0, count: count)
        let sigma = max(blurSigma, 0.35)
        let wideWidth = widthPx + 2 * fringeWidthPx
        let reachPx = wideWidth / 2 + 4 * sigma + 1
        let scale = 1 / (sigma * 2.0.squareRoot())
        func box(_ d: Double, _ width: Double) -> Double {
            0.5 * (erf((d + width / 2) * scale) - erf((d - width / 2) * scale))
        }
        for stroke in strokesUm {
            let lo = max(0, Int(((stroke - reachPx * umPerPixel) + GridProfileTable.marginUm) * GridProfileTable.samplesPerUm))
            let hi = min(count - 1, Int(((stroke + reachPx * umPerPixel) + GridProfileTable.marginUm) * GridProfileTable.samplesPerUm) + 1)
            guard lo <= hi else { continue }
            for i in lo...hi {
                let u = Double(i) / GridProfileTable.samplesPerUm - GridProfileTable.marginUm
                let d = (u - stroke) / umPerPixel
                line[i] += box(d, widthPx)
                if fringe > 0 { wide[i] += box(d, wideWidth) }
            }
        }
        let opposite = peak < 0 ? fringe : -fringe
        values = (0..<count).map { i in
            let onLine = min(line[i], 1)
            let edge = fringe > 0 ? max(0, min(wide[i], 1) - onLine) : 0
            return Float(peak * onLine + opposite * edge)
        }
    }

    /// Signed transmission change at chamber coordinate `u` µm; 0 outside the table.
    @inline(__always)
    static func value(atUm u: Double, _ buffer: UnsafeBufferPointer<Float>) -> Float {
        let i = Int(((u + marginUm) * samplesPerUm).rounded(.down))
        return i >= 0 && i < buffer.count ? buffer[i] : 0
    }
}
