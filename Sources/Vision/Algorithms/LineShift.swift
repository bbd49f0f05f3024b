import Foundation

/// Per-sample noise (a standard deviation, in plane units) from the differences of samples
/// `gap` pixels apart along the rows: far enough apart that a light smoothing left their noise
/// independent, so each difference carries twice the sample variance. The 25th percentile of
/// |difference| (`sigmaFromMagnitudes`) keeps the estimate right when most of the image is
/// structure.
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
    return sigmaFromMagnitudes(differences) / Float(2).squareRoot()
}

/// The whole-pixel steps along one line direction that stray from it by at most a tolerance,
/// formed once per image: every candidate of the image asks for one of them.
///
/// Whole-pixel steps compare samples without interpolation, which would blur a sharp line's
/// edges and stand for a difference of its own.
public struct LineSteps: Sendable {
    /// Steps up to the longest asked for, each with its perpendicular offset from the line.
    private let steps: [(dx: Int, dy: Int, length: Double, offset: Double)]

    /// - Parameters:
    ///   - angle: the line's direction, radians (x right, y down).
    ///   - maxLength: the longest step any candidate will ask for, pixels.
    ///   - tolerance: the largest perpendicular offset from the line, pixels.
    public init(angle: Double, maxLength: Double, tolerance: Double) {
        let c = cos(angle), s = sin(angle)
        let m = Int(max(0, maxLength).rounded(.up))
        var steps: [(dx: Int, dy: Int, length: Double, offset: Double)] = []
        for dy in -m...m {
            for dx in -m...m {
                // Both directions are compared: one step of each opposite pair will do.
                guard Double(dx) * c + Double(dy) * s > 0 else { continue }
                let offset = abs(-Double(dx) * s + Double(dy) * c)
                let length = Double(dx * dx + dy * dy).squareRoot()
                if offset <= tolerance, length <= maxLength { steps.append((dx, dy, length, offset)) }
            }
        }
        self.steps = steps
    }

    /// The step between `minLength` and `maxLength` pixels long that strays least from the
    /// line, or nil when there is none within the tolerance.
    public func step(minLength: Double, maxLength: Double) -> (dx: Int, dy: Int)? {
        var best: (dx: Int, dy: Int, offset: Double)?
        for s in steps where s.length >= minLength && s.length <= maxLength {
            if best == nil || s.offset < best!.offset - 1e-12 { best = (s.dx, s.dy, s.offset) }
        }
        return best.map { ($0.dx, $0.dy) }
    }
}

/// How much of a disc the same disc a whole-pixel `step` away does not explain: the mean
/// squared difference between the samples inside the disc and the mean of those `step` on
/// in either direction.
///
/// Why: a stretch of ruling line (the gaps between the three strokes of a triple line, a
/// line's noisy edge) can show a cell's boundary evidence, but it looks the same a little
/// further along the line, while a cell lying on the line does not. Against the mean of both
/// sides, whatever changes linearly along the line cancels: the step's stray across the
/// line (up to the `LineSteps` tolerance, opposite on the two sides), which at a sharp,
/// dark line's edges alone gave several times the noise, and a gradient of the lamp or of
/// the line's darkness. For a disc on a plain line the value is about 1.5 times the sample
/// variance of the noise; a cell adds its own contrast squared. Nil when either shifted disc
/// leaves the plane (nothing to compare).
///
/// - Parameters:
///   - x, y, r: the disc, plane pixels.
///   - step: the shift along the line, whole pixels (`LineSteps`).
public func lineShiftResidual(_ plane: Plane, x: Double, y: Double, r: Double, step: (dx: Int, dy: Int)) -> Double? {
    let w = plane.width, h = plane.height
    let xLo = Int((x - r).rounded(.up)), xHi = Int((x + r).rounded(.down))
    let yLo = Int((y - r).rounded(.up)), yHi = Int((y + r).rounded(.down))
    let ax = abs(step.dx), ay = abs(step.dy)
    guard xLo <= xHi, yLo <= yHi, xLo - ax >= 0, xHi + ax < w, yLo - ay >= 0, yHi + ay < h else { return nil }
    let r2 = r * r
    let offset = step.dy * w + step.dx
    var sum = 0.0, n = 0.0
    plane.data.withUnsafeBufferPointer { d in
        for py in yLo...yHi {
            let dy = Double(py) - y
            for px in xLo...xHi {
                let dx = Double(px) - x
                guard dx * dx + dy * dy <= r2 else { continue }
                let i = py * w + px
                let e = Double(d[i]) - 0.5 * (Double(d[i + offset]) + Double(d[i - offset]))
                sum += e * e
                n += 1
            }
        }
    }
    return n > 0 ? sum / n : nil
}
