import Foundation

/// Sliding-window minimum or maximum over a 1-D signal (van Herk / Gil-Werman: three
/// comparisons per sample whatever the window), window centred, samples beyond the ends ignored.
///
/// - Parameters:
///   - values: the signal, replaced by the filtered signal.
///   - count: number of valid samples at the start of `values`.
///   - radius: half window in samples.
///   - scratchA, scratchB: work buffers of at least `count + 2 * radius` samples.
///   - takeMax: false for erosion (min), true for dilation (max).
@inline(__always)
func slidingExtremum(_ values: UnsafeMutablePointer<Float>, count: Int, radius: Int,
                     scratchA: UnsafeMutablePointer<Float>, scratchB: UnsafeMutablePointer<Float>,
                     takeMax: Bool) {
    guard count > 0, radius > 0 else { return }
    let window = 2 * radius + 1
    let n = count + 2 * radius
    let pad: Float = takeMax ? -.infinity : .infinity
    // scratchA: prefix extremum within each block; scratchB: suffix extremum within each block,
    // both over the padded signal where padded[i] = values[i - radius].
    var i = 0
    while i < n {
        let end = min(i + window, n)
        var acc = pad
        for j in i..<end {
            let v = (j >= radius && j < radius + count) ? values[j - radius] : pad
            acc = takeMax ? max(acc, v) : min(acc, v)
            scratchA[j] = acc
        }
        acc = pad
        var j = end - 1
        while j >= i {
            let v = (j >= radius && j < radius + count) ? values[j - radius] : pad
            acc = takeMax ? max(acc, v) : min(acc, v)
            scratchB[j] = acc
            j -= 1
        }
        i = end
    }
    // The window for output k covers padded[k ... k + 2 radius].
    for k in 0..<count {
        let a = scratchB[k], b = scratchA[k + window - 1]
        values[k] = takeMax ? max(a, b) : min(a, b)
    }
}

/// Morphological opening (erosion then dilation) with a straight line segment as structuring
/// element: keeps bright structures that contain a segment of `length` pixels in `angle`'s
/// direction (grid lines, long fibres) and removes everything narrower (cells).
///
/// The line is walked as a sheared pixel path (one pixel per column for near-horizontal
/// directions, one per row otherwise), so every pixel lies on exactly one path and the cost is
/// O(1) per pixel whatever the length.
/// - Parameters:
///   - plane: input (typically a non-negative contrast map).
///   - angle: direction of the segment in radians, 0 = along +x, pi/2 = along +y (y down).
///   - length: segment length in path samples (>= 3; smaller returns the input).
public func lineOpening(_ plane: Plane, angle: Double, length: Int) -> Plane {
    let radius = length / 2
    guard radius >= 1, plane.count > 0 else { return plane }
    let w = plane.width, h = plane.height
    let c = cos(angle), s = sin(angle)
    let horizontal = abs(c) >= abs(s)
    // Per step along the major axis, the minor coordinate moves by `slope`.
    let slope = horizontal ? s / c : c / s
    let major = horizontal ? w : h, minor = horizontal ? h : w
    let maxShift = Int((abs(slope) * Double(major - 1)).rounded()) + 1
    var out = plane
    let capacity = major + 2 * radius + 2
    var line = [Float](repeating: 0, count: capacity)
    var scratchA = line, scratchB = line
    var offsets = [Int](repeating: 0, count: major)
    for m in 0..<major { offsets[m] = Int((Double(m) * slope).rounded()) }
    out.data.withUnsafeMutableBufferPointer { buf in
        line.withUnsafeMutableBufferPointer { ln in
            scratchA.withUnsafeMutableBufferPointer { sa in
                scratchB.withUnsafeMutableBufferPointer { sb in
                    for start in -maxShift..<(minor + maxShift) {
                        // Gather the valid (contiguous, since the path is monotonic) part.
                        var first = -1, n = 0
                        for m in 0..<major {
                            let q = start + offsets[m]
                            if q < 0 || q >= minor { if first >= 0 { break } else { continue } }
                            if first < 0 { first = m }
                            ln[n] = horizontal ? buf[q * w + m] : buf[m * w + q]
                            n += 1
                        }
                        guard n > 0 else { continue }
                        slidingExtremum(ln.baseAddress!, count: n, radius: radius,
                                        scratchA: sa.baseAddress!, scratchB: sb.baseAddress!, takeMax: false)
                        slidingExtremum(ln.baseAddress!, count: n, radius: radius,
                                        scratchA: sa.baseAddress!, scratchB: sb.baseAddress!, takeMax: true)
                        for k in 0..<n {
                            let m = first + k
                            let q = start + offsets[m]
                            if horizontal { buf[q * w + m] = ln[k] } else { buf[m * w + q] = ln[k] }
                        }
                    }
                }
            }
        }
    }
    return out
}
