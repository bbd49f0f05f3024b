import Foundation

/// Robust estimate of the straight structures running in one direction: along every pixel
/// path in that direction, the median of each block of `block` samples, interpolated linearly
/// between block centres. A line running that way survives (every sample of the block is on
/// it); anything that covers less than half a block along the path (cells, crossing lines,
/// debris) does not, and unlike an opening the median has no downward noise bias.
///
/// Paths are sheared pixel rows (one pixel per column; near-vertical directions go through the
/// transposed plane), so every pixel lies on exactly one path and the cost is O(1) per pixel.
/// - Parameters:
///   - plane: input (a contrast map).
///   - angle: direction, radians; 0 = +x, pi/2 = +y (y down).
///   - block: block length in path samples (>= 3; smaller returns the input).
///   - quantile: the block statistic, 0.5 = median. A lower quantile stays on the line while
///     more of the block is covered by brighter objects (dense cells): 0.3 tolerates 70%.
public func lineMedian(_ plane: Plane, angle: Double, block: Int, quantile: Double = 0.5) -> Plane {
    guard block >= 3, plane.count > 0 else { return plane }
    let c = cos(angle), s = sin(angle)
    let q = min(1, max(0, quantile))
    // Near-vertical directions run on the transposed plane so that paths read memory in order.
    if abs(c) < abs(s) {
        return transposed(lineMedian(transposed(plane), angle: atan2(c, s), block: block, quantile: quantile))
    }
    let w = plane.width, h = plane.height
    let slope = s / c
    let major = w, minor = h
    let maxShift = Int((abs(slope) * Double(major - 1)).rounded()) + 1
    var out = plane
    var offsets = [Int](repeating: 0, count: major)
    for m in 0..<major { offsets[m] = Int((Double(m) * slope).rounded()) }
    var line = [Float](repeating: 0, count: major)
    var scratch = [Float](repeating: 0, count: block)
    var medians = [Float](repeating: 0, count: major / block + 2)
    out.data.withUnsafeMutableBufferPointer { buf in
        for start in -maxShift..<(minor + maxShift) {
            // The valid part of a monotonic path is contiguous.
            var first = -1, n = 0
            for m in 0..<major {
                let q = start + offsets[m]
                if q < 0 || q >= minor { if first >= 0 { break } else { continue } }
                if first < 0 { first = m }
                line[n] = buf[q &* w &+ m]
                n += 1
            }
            guard n > 0 else { continue }
            // Blocks spread evenly over the path (the last one is not a stub).
            let blocks = max(1, Int((Double(n) / Double(block)).rounded()))
            let size = Double(n) / Double(blocks)
            for b in 0..<blocks {
                let lo = Int((Double(b) * size).rounded()), hi = max(lo + 1, Int((Double(b + 1) * size).rounded()))
                scratch.removeAll(keepingCapacity: true)
                // Every other sample: the median of half the block is as robust and costs half.
                var k = lo
                let end = min(hi, n)
                while k < end { scratch.append(line[k]); k += 2 }
                medians[b] = selectKth(&scratch, Int(Double(scratch.count - 1) * q)) ?? 0
            }
            // Perpendicular tolerance: a line drifting by up to two pixels across a block
            // (perspective, angle error) must still be covered, so the estimate is dilated
            // across the path at the end; here only the along-path interpolation.
            for k in 0..<n {
                // Position in block-centre units.
                let t = (Double(k) + 0.5) / size - 0.5
                let b0 = max(0, min(blocks - 1, Int(t.rounded(.down))))
                let b1 = min(blocks - 1, b0 + 1)
                let a = Float(max(0, min(1, t - Double(b0))))
                let v = medians[b0] + (medians[b1] - medians[b0]) * a
                let m = first + k
                let q = start + offsets[m]
                buf[q &* w &+ m] = v
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
