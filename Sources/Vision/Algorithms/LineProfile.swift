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
            // Valid columns: 0 <= base + m * slope <= h - 1, a contiguous range found directly
            // (scanning every column of every sheared row would cost 3x more at 45 degrees).
            var lowest = 0.0, highest = Double(w - 1)
            if slope > 1e-12 {
                lowest = max(lowest, (-base) / slope)
                highest = min(highest, (Double(h - 1) - base) / slope)
            } else if slope < -1e-12 {
                lowest = max(lowest, (Double(h - 1) - base) / slope)
                highest = min(highest, (-base) / slope)
            } else if base < 0 || base > Double(h - 1) {
                continue
            }
            let first = Int(lowest.rounded(.up)), last = Int(highest.rounded(.down))
            guard first <= last else { continue }
            // Every other column along the row: the estimate is interpolated between block
            // centres anyway, so this halves the work without losing the line.
            var n = 0
            let top = max(0, h - 2)
            var m = first
            while m <= last {
                let y = max(0, base + Double(m) * slope)
                let y0 = min(Int(y), top), a = Float(y - Double(y0))
                let y1 = min(y0 + 1, h - 1)
                line[n] = src[y0 &* w &+ m] * (1 - a) + src[y1 &* w &+ m] * a
                n &+= 1
                m &+= 2
            }
            let blocks = max(1, Int((Double(n) / Double(max(2, block / 2))).rounded()))
            let size = Double(n) / Double(blocks)
            for b in 0..<blocks {
                let lo = Int((Double(b) * size).rounded()), hi = max(lo + 1, Int((Double(b + 1) * size).rounded()))
                scratch.removeAll(keepingCapacity: true)
                for i in lo..<min(hi, n) { scratch.append(line[i]) }
                medians[b] = selectKth(&scratch, Int(Double(scratch.count - 1) * q)) ?? 0
            }
            let row = k * w
            for column in first...last {
                // Sample index of this column is (column - first) / 2.
                let t = (Double(column - first) / 2 + 0.5) / size - 0.5
                let b0 = max(0, min(blocks - 1, Int(t.rounded(.down))))
                let b1 = min(blocks - 1, b0 + 1)
                let a = Float(max(0, min(1, t - Double(b0))))
                estimate[row + column] = medians[b0] + (medians[b1] - medians[b0]) * a
            }
        }
    }
    // Shear back: pixel (m, y) lies on sheared row u = y + maxShift - m * slope, i.e. row
    // kBase[m] + y with the same fraction for the whole column.
    var kBase = [Int](repeating: 0, count: w), frac = [Float](repeating: 0, count: w)
    for m in 0..<w {
        let u = Double(maxShift) - Double(m) * slope
        let k = u.rounded(.down)
        kBase[m] = Int(k)
        frac[m] = Float(u - k)
    }
    var out = Plane(width: w, height: h)
    estimate.withUnsafeBufferPointer { est in
        out.data.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                let o = dst.baseAddress! + y * w
                for m in 0..<w {
                    let k0 = min(rows - 1, max(0, kBase[m] &+ y)), k1 = min(rows - 1, k0 &+ 1)
                    let e0 = est[k0 &* w &+ m], e1 = est[k1 &* w &+ m]
                    let a = frac[m]
                    // NaN marks a sheared row that does not reach this column.
                    o[m] = e0.isNaN ? (e1.isNaN ? 0 : e1) : (e1.isNaN ? e0 : e0 + (e1 - e0) * a)
                }
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
