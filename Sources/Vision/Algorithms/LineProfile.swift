import Foundation

/// Robust estimate of the straight structures running in one direction.
///
/// The plane is sheared so that lines in that direction become rows (samples taken at the
/// exact sub-pixel position, linear interpolation across rows); along every sheared row the
/// `quantile` of each block of `block` samples is taken and interpolated between block
/// centres; the result is sheared back (again interpolating between the two nearest sheared
/// rows) and dilated by two pixels across the lines to absorb perspective drift. A line running
/// that way survives; anything covering less than (1 - quantile) of a block along the row
/// (cells, crossing lines, debris) does not, and unlike a morphological opening the quantile
/// has no strong downward noise bias. Sub-pixel shearing matters: a rounded pixel path wobbles
/// across a one-pixel line and the quantile then sees its shoulders instead of its ridge.
/// - Parameters:
///   - plane: input (a contrast map).
///   - angle: direction, radians; 0 = +x, pi/2 = +y (y down).
///   - block: block length in samples (>= 3; smaller returns the input).
///   - quantile: the block statistic, 0.5 = median. A lower quantile stays on the line while
///     more of the block is covered by brighter objects (dense cells): 0.3 tolerates 70%.
public func lineMedian(_ plane: Plane, angle: Double, block: Int, quantile: Double = 0.5) -> Plane {
    guard block >= 3, plane.count > 0 else { return plane }
    let c = cos(angle), s = sin(angle)
    // Near-vertical directions run on the transposed plane so that rows read memory in order.
    if abs(c) < abs(s) {
        return transposed(lineMedian(transposed(plane), angle: atan2(c, s), block: block, quantile: quantile))
    }
    let w = plane.width, h = plane.height
    let q = min(1, max(0, quantile))
    let slope = s / c
    let maxShift = Int((abs(slope) * Double(w - 1)).rounded(.up)) + 1
    let rows = h + 2 * maxShift
    // Sheared row k samples y = k - maxShift + m * slope at column m.
    var estimate = [Float](repeating: .nan, count: rows * w)
    var line = [Float](repeating: 0, count: w)
    var scratch: [Float] = []
    scratch.reserveCapacity(block)
    var medians = [Float](repeating: 0, count: w / block + 2)
    plane.data.withUnsafeBufferPointer { src in
        for k in 0..<rows {
            let base = Double(k - maxShift)
            // Valid columns: 0 <= base + m * slope <= h - 1, a contiguous range.
            var first = -1, n = 0
            for m in 0..<w {
                let y = base + Double(m) * slope
                if y < 0 || y > Double(h - 1) { if first >= 0 { break } else { continue } }
                if first < 0 { first = m }
                let y0 = min(Int(y), h - 2 >= 0 ? h - 2 : 0), a = Float(y - Double(y0))
                let y1 = min(y0 + 1, h - 1)
                line[n] = src[y0 * w + m] * (1 - a) + src[y1 * w + m] * a
                n += 1
            }
            guard n > 0 else { continue }
            let blocks = max(1, Int((Double(n) / Double(block)).rounded()))
            let size = Double(n) / Double(blocks)
            for b in 0..<blocks {
                let lo = Int((Double(b) * size).rounded()), hi = max(lo + 1, Int((Double(b + 1) * size).rounded()))
                scratch.removeAll(keepingCapacity: true)
                for i in lo..<min(hi, n) { scratch.append(line[i]) }
                medians[b] = selectKth(&scratch, Int(Double(scratch.count - 1) * q)) ?? 0
            }
            let row = k * w
            for i in 0..<n {
                let t = (Double(i) + 0.5) / size - 0.5
                let b0 = max(0, min(blocks - 1, Int(t.rounded(.down))))
                let b1 = min(blocks - 1, b0 + 1)
                let a = Float(max(0, min(1, t - Double(b0))))
                estimate[row + first + i] = medians[b0] + (medians[b1] - medians[b0]) * a
            }
        }
    }
    // Shear back: pixel (m, y) lies on sheared row u = y + maxShift - m * slope.
    var out = Plane(width: w, height: h)
    out.data.withUnsafeMutableBufferPointer { dst in
        for y in 0..<h {
            for m in 0..<w {
                let u = Double(y + maxShift) - Double(m) * slope
                let k0 = max(0, min(rows - 1, Int(u.rounded(.down))))
                let k1 = min(rows - 1, k0 + 1)
                let a = Float(max(0, min(1, u - Double(k0))))
                let e0 = estimate[k0 * w + m], e1 = estimate[k1 * w + m]
                let v: Float
                if e0.isNaN { v = e1.isNaN ? 0 : e1 } else if e1.isNaN { v = e0 } else { v = e0 + (e1 - e0) * a }
                dst[y * w + m] = v
            }
        }
    }
    return verticalMax(out, radius: 2)
}

/// Each sample replaced by the largest sample within `radius` rows above or below.
func verticalMax(_ plane: Plane, radius: Int) -> Plane {
    let w = plane.width, h = plane.height
    guard h >= 2, radius > 0 else { return plane }
    var out = plane
    plane.data.withUnsafeBufferPointer { src in
        out.data.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                let o = dst.baseAddress! + y * w
                for dy in -radius...radius where dy != 0 {
                    let r = src.baseAddress! + min(h - 1, max(0, y + dy)) * w
                    for x in 0..<w { o[x] = max(o[x], r[x]) }
                }
            }
        }
    }
    return out
}
