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
    // Sheared row k samples y = k - maxShift + m * slope at column m. Pixel (m, y) lies on
    // sheared row u = y + maxShift - m * slope = kBase[m] + frac[m] + y: it takes the rows
    // kBase[m] + y and the next one with weights 1 - frac and frac. Each row's estimates are
    // scattered straight into the output with those weights (normalised at the end), so no
    // rows x width buffer is needed (at 45 degrees it would be 3.5x the image).
    var kBase = [Int](repeating: 0, count: w), frac = [Float](repeating: 0, count: w)
    for m in 0..<w {
        let u = Double(maxShift) - Double(m) * slope
        let k = u.rounded(.down)
        kBase[m] = Int(k)
        frac[m] = Float(u - k)
    }
    var out = Plane(width: w, height: h)
    var weights = [Float](repeating: 0, count: w * h)
    var line = [Float](repeating: 0, count: w)
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
            var y = base + Double(first) * slope
            let step = 2 * slope
            while m <= last {
                let yc = max(0, y)
                let y0 = min(Int(yc), top), a = Float(yc - Double(y0))
                let y1 = min(y0 &+ 1, h - 1)
                line[n] = src[y0 &* w &+ m] * (1 - a) + src[y1 &* w &+ m] * a
                n &+= 1
                m &+= 2
                y += step
            }
            let blocks = max(1, Int((Double(n) / Double(max(2, block / 2))).rounded()))
            let size = Double(n) / Double(blocks)
            for b in 0..<blocks {
                let lo = Int((Double(b) * size).rounded()), hi = max(lo + 1, Int((Double(b + 1) * size).rounded()))
                // In place: each block is selected once and `line` is not needed afterwards.
                let end = min(hi, n)
                medians[b] = line.withUnsafeMutableBufferPointer { ln in
                    let slice = UnsafeMutableBufferPointer(rebasing: ln[lo..<end])
                    return selectKth(slice, Int(Double(slice.count - 1) * q))
                }
            }
            // Position in block-centre units, t = ((column - first) / 2 + 0.5) / size - 0.5,
            // advanced incrementally.
            let dt = Float(0.5 / size)
            var t = Float(0.5 / size - 0.5)
            let lastBlock = blocks - 1
            out.data.withUnsafeMutableBufferPointer { dst in
                weights.withUnsafeMutableBufferPointer { wt in
                    medians.withUnsafeBufferPointer { md in
                        for column in first...last {
                            let tc = max(0, t)
                            let b0 = min(lastBlock, Int(tc))
                            let b1 = min(lastBlock, b0 &+ 1)
                            let a = min(1, tc - Float(b0))
                            let v = md[b0] + (md[b1] - md[b0]) * a
                            t += dt
                            let f = frac[column]
                            let y0 = k &- kBase[column]          // this row is its k0: weight 1 - f
                            if y0 >= 0 && y0 < h {
                                let i = y0 &* w &+ column
                                dst[i] += v * (1 - f)
                                wt[i] += 1 - f
                            }
                            let y1 = y0 &- 1                     // this row is its k1: weight f
                            if y1 >= 0 && y1 < h {
                                let i = y1 &* w &+ column
                                dst[i] += v * f
                                wt[i] += f
                            }
                        }
                    }
                }
            }
        }
    }
    out.data.withUnsafeMutableBufferPointer { dst in
        weights.withUnsafeBufferPointer { wt in
            for i in 0..<dst.count where wt[i] > 1e-6 { dst[i] /= wt[i] }
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
