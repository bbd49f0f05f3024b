import Foundation

/// Per-sample noise (a standard deviation, in plane units) from the differences of samples
/// `gap` pixels apart along the rows: far enough apart that a light smoothing left their noise
/// independent, so each difference carries twice the sample variance. The 25th percentile of
/// |difference| (`robustNoise`) keeps the estimate right when most of the image is structure.
///
/// - Parameters:
///   - gap: distance of the compared samples, pixels (more than the smoothing's reach).
///   - stride: every `stride`-th sample is used.
public func sampleNoise(_ plane: Plane, gap: Int = 3, stride: Int = 7) -> Float {
    let w = plane.width
    guard w > gap, plane.height >= 1 else { return 0 }
    var differences: [Float] = []
    differences.reserveCapacity(plane.count / max(1, stride) + 1)
    plane.data.withUnsafeBufferPointer { d in
        var i = 0
        while i < d.count {
            if i % w < w - gap { differences.append(abs(d[i + gap] - d[i])) }
            i += max(1, stride)
        }
    }
    guard !differences.isEmpty else { return 0 }
    var bucket: [Float] = []
    let q = differences.withUnsafeBufferPointer { selectKthNonNegative($0, $0.count / 4, scratch: &bucket) }
    return q / 0.3186 / Float(2).squareRoot()
}

/// The whole-pixel step along a line direction, between `minLength` and `maxLength` pixels
/// long, that strays least from the line (perpendicular offset, pixels), or nil when every
/// such step strays more than `tolerance`. Whole-pixel steps compare samples without
/// interpolation, which would blur a sharp line's edges and stand for a difference.
public func lineStep(angle: Double, minLength: Double, maxLength: Double, tolerance: Double) -> (dx: Int, dy: Int)? {
    let c = cos(angle), s = sin(angle)
    var best: (dx: Int, dy: Int, off: Double)?
    let m = Int(maxLength.rounded(.up))
    for dy in -m...m {
        for dx in -m...m {
            let len2 = Double(dx * dx + dy * dy)
            guard len2 >= minLength * minLength, len2 <= maxLength * maxLength else { continue }
            let along = Double(dx) * c + Double(dy) * s
            guard along > 0 else { continue }
            let off = abs(-Double(dx) * s + Double(dy) * c)
            if off <= tolerance, best == nil || off < best!.off - 1e-12 { best = (dx, dy, off) }
        }
    }
    return best.map { ($0.dx, $0.dy) }
}

/// How much of a disc the same disc a whole-pixel `step` away does not explain: the mean
/// squared difference between the samples inside the disc and those `step` on, in both
/// directions, the larger of the two.
///
/// Why: a stretch of ruling line (the gaps between the three strokes of a triple line, a
/// line's noisy edge) can show a cell's boundary evidence, but it looks the same a little
/// further along the line, while a cell lying on the line does not. For a disc on a plain
/// line the value is about twice the sample variance of the noise; a cell adds its own
/// contrast squared. Nil when either shifted disc leaves the plane (nothing to compare).
///
/// - Parameters:
///   - x, y, r: the disc, plane pixels.
///   - step: the shift along the line, whole pixels (`lineStep`).
public func lineShiftResidual(_ plane: Plane, x: Double, y: Double, r: Double, step: (dx: Int, dy: Int)) -> Double? {
    let w = plane.width, h = plane.height
    let xLo = Int((x - r).rounded(.up)), xHi = Int((x + r).rounded(.down))
    let yLo = Int((y - r).rounded(.up)), yHi = Int((y + r).rounded(.down))
    let ax = abs(step.dx), ay = abs(step.dy)
    guard xLo <= xHi, yLo <= yHi, xLo - ax >= 0, xHi + ax < w, yLo - ay >= 0, yHi + ay < h else { return nil }
    let r2 = r * r
    let offset = step.dy * w + step.dx
    var forward = 0.0, backward = 0.0, n = 0.0
    plane.data.withUnsafeBufferPointer { d in
        for py in yLo...yHi {
            let dy = Double(py) - y
            for px in xLo...xHi {
                let dx = Double(px) - x
                guard dx * dx + dy * dy <= r2 else { continue }
                let i = py * w + px
                let a = Double(d[i] - d[i + offset]), b = Double(d[i] - d[i - offset])
                forward += a * a
                backward += b * b
                n += 1
            }
        }
    }
    return n > 0 ? max(forward, backward) / n : nil
}
