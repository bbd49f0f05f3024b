import Foundation

/// Coverage (0...1) of the ruling's strokes as a function of one chamber coordinate, sampled
/// finely enough (1/8 µm) that nearest-sample lookup is exact to well under a pixel.
///
/// Each stroke is a box of `widthPx` blurred by a Gaussian of `blurSigma` px, i.e. the
/// difference of two error functions; nearby strokes (a triple line's three) add up.
struct GridCoverageTable {
    static let samplesPerUm = 8.0
    /// Chamber coordinates covered: the ruled area plus a margin for outer strokes and blur.
    static let marginUm = 300.0

    let values: [Float]

    /// - Parameters:
    ///   - strokesUm: stroke centre positions, µm.
    ///   - umPerPixel: image scale, µm per px.
    ///   - widthPx: stroke width, px.
    ///   - blurSigma: defocus, px (0 for a sharp, box-filtered edge).
    ///   - strength: multiplies the coverage (fine lines are drawn fainter).
    init(strokesUm: [Double], umPerPixel: Double, widthPx: Double, blurSigma: Double, strength: Double = 1) {
        let count = Int((ChamberRuling.ruledAreaUm + 2 * GridCoverageTable.marginUm) * GridCoverageTable.samplesPerUm) + 1
        var table = [Float](repeating: 0, count: count)
        // Half a pixel of box filtering stands in for pixel integration when sigma is tiny.
        let sigma = max(blurSigma, 0.35)
        let reachPx = widthPx / 2 + 4 * sigma + 1
        let scale = 1 / (sigma * 2.0.squareRoot())
        for stroke in strokesUm {
            let lo = max(0, Int(((stroke - reachPx * umPerPixel) + GridCoverageTable.marginUm) * GridCoverageTable.samplesPerUm))
            let hi = min(count - 1, Int(((stroke + reachPx * umPerPixel) + GridCoverageTable.marginUm) * GridCoverageTable.samplesPerUm) + 1)
            guard lo <= hi else { continue }
            for i in lo...hi {
                let u = Double(i) / GridCoverageTable.samplesPerUm - GridCoverageTable.marginUm
                let d = (u - stroke) / umPerPixel
                let c = 0.5 * (erf((d + widthPx / 2) * scale) - erf((d - widthPx / 2) * scale))
                table[i] += Float(c * strength)
            }
        }
        values = table.map { min($0, 1) }
    }

    /// Coverage at chamber coordinate `u` µm; 0 outside the table.
    @inline(__always)
    func coverage(atUm u: Double, _ buffer: UnsafeBufferPointer<Float>) -> Float {
        let i = Int(((u + GridCoverageTable.marginUm) * GridCoverageTable.samplesPerUm).rounded(.down))
        return i >= 0 && i < buffer.count ? buffer[i] : 0
    }
}
