import Foundation

/// How far along its length the best line of a family runs: of the segments (`segment`
/// samples each) of every line the family's period and phase place in the view, the share
/// whose contrast on the line stands above the lower of its two sides an eighth of a period
/// away by 2.5 noise deviations (the noise measured from the sides' differences over the
/// family); the largest share over the lines, 0 ... 1.
///
/// Why: a ruling line crosses the view (or the part of it the ruled area covers, half of it
/// at a corner of that area), while the periodic-looking profile a few cells give a small
/// view comes from compact blobs, each one or two segments of a line. The test asks for the
/// line itself, where the halves' agreement (`HalfProfileAgreement`) can say nothing when one
/// half is flat.
/// - Parameters:
///   - contrast: absolute contrast of the flattened plane (`|flat - 1|`).
///   - normalAngle: the family's normal, radians.
///   - period, phase: line spacing and the normal coordinate (`x cos + y sin`) of one line,
///     pixels of `contrast`.
///   - segment: samples (pixels along the line) per segment.
/// - Returns: nil when no line of the family has four whole segments in view, or fewer than
///   four segments have both sides in view (no noise to judge by).
func lineContinuity(_ contrast: Plane, normalAngle: Double, period: Double, phase: Double,
                    segment: Int = 8) -> Double? {
    let w = contrast.width, h = contrast.height
    guard w > 0, h > 0, period.isFinite, period >= 2, phase.isFinite, segment > 0 else { return nil }
    let c = cos(normalAngle), s = sin(normalAngle)
    let corners = [(0.0, 0.0), (Double(w - 1), 0.0), (0.0, Double(h - 1)), (Double(w - 1), Double(h - 1))]
    let normals = corners.map { $0.0 * c + $0.1 * s }, alongs = corners.map { -$0.0 * s + $0.1 * c }
    let (tLow, tHigh) = (normals.min()!, normals.max()!), (uLow, uHigh) = (alongs.min()!, alongs.max()!)
    // The sides an eighth of a period away (at least 3 pixels, at most a fifth of a period):
    // midway between lines a ruling often has another (the 50 µm lines between 250 µm ones,
    // the 200 µm group squares' subdivisions at fifths).
    let side = min(max(period / 8, 3), period / 5)
    return contrast.data.withUnsafeBufferPointer { d -> Double? in
        func sample(_ x: Double, _ y: Double) -> Float? {
            let xi = Int(x.rounded()), yi = Int(y.rounded())
            guard xi >= 0, yi >= 0, xi < w, yi < h else { return nil }
            return d[yi * w + xi]
        }
        // Per line and segment: the line's mean over the lower of its sides' means (a cell
        // beside the line raises one side, not both); over the family, where both sides are in
        // view, the difference between the sides' means, whose spread is the noise the excesses
        // are judged against.
        var lines: [[Double]] = [], sideDifferences: [Double] = []
        var k = ((tLow - phase) / period).rounded(.up)
        while phase + k * period <= tHigh {
            defer { k += 1 }
            let t = phase + k * period
            var excesses: [Double] = []
            var on = 0.0, before = 0.0, after = 0.0, count = 0, beforeCount = 0, afterCount = 0
            var u = uLow.rounded(.up)
            while u <= uHigh {
                defer { u += 1 }
                let x = t * c - u * s, y = t * s + u * c
                // The line a pixel either way (a period's rounding, a turned ruling's drift), and
                // the sides read the same way, so that noise makes no difference between them.
                func across(_ offset: Double) -> Float? {
                    [offset - 1, offset, offset + 1].compactMap { sample(x + $0 * c, y + $0 * s) }.max()
                }
                guard let line = across(0) else { continue }
                on += Double(line)
                count += 1
                if let v = across(-side) { before += Double(v); beforeCount += 1 }
                if let v = across(side) { after += Double(v); afterCount += 1 }
                guard count == segment else { continue }
                let sides = [beforeCount == segment ? before : nil, afterCount == segment ? after : nil].compactMap { $0 }
                if let lower = sides.min() { excesses.append((on - lower) / Double(segment)) }
                if sides.count == 2 { sideDifferences.append((before - after) / Double(segment)) }
                on = 0; before = 0; after = 0
                count = 0; beforeCount = 0; afterCount = 0
            }
            if excesses.count >= 4 { lines.append(excesses) }
        }
        guard !lines.isEmpty, sideDifferences.count >= 4 else { return nil }
        // Noise alone: with a side's segment mean of deviation sigma, the sides differ by
        // sqrt(2) sigma, and the line over the lower side exceeds by 0.56 sigma on average with
        // a deviation of 1.30 sigma: 2.5 deviations above that mean is 2.69 x the difference's
        // deviation (robustly, 1.4826 x its median magnitude).
        let sorted = sideDifferences.map(abs).sorted()
        let limit = 2.69 * 1.4826 * sorted[sorted.count / 2]
        return lines.map { excesses in
            Double(excesses.count(where: { $0 > limit })) / Double(excesses.count)
        }.max()
    }
}
