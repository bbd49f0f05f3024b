import Foundation

/// Robust estimate of the straight structures running in one direction: along every pixel
/// path in that direction, the median of each block of `block` samples, interpolated linearly
/// between block centres. A line running that way survives (every sample of the block is on
/// it); anything that covers less than half a block along the path (cells, crossing lines,
/// debris) does not, and unlike an opening the median has no downward noise bias.
///
/// Paths are sheared pixel rows (one pixel per column for near-horizontal directions, one per
/// row otherwise), so every pixel lies on exactly one path and the cost is O(1) per pixel.
/// - Parameters:
///   - plane: input (a contrast map).
///   - angle: direction, radians; 0 = +x, pi/2 = +y (y down).
///   - block: block length in path samples (>= 3; smaller returns the input).
public func lineMedian(_ plane: Plane, angle: Double, block: Int) -> Plane {
    guard block >= 3, plane.count > 0 else { return plane }
    let w = plane.width, h = plane.height
    let c = cos(angle), s = sin(angle)
    let horizontal = abs(c) >= abs(s)
    let slope = horizontal ? s / c : c / s
    let major = horizontal ? w : h, minor = horizontal ? h : w
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
                line[n] = horizontal ? buf[q * w + m] : buf[m * w + q]
                n += 1
            }
            guard n > 0 else { continue }
            // Blocks spread evenly over the path (the last one is not a stub).
            let blocks = max(1, Int((Double(n) / Double(block)).rounded()))
            let size = Double(n) / Double(blocks)
            for b in 0..<blocks {
                let lo = Int((Double(b) * size).rounded()), hi = max(lo + 1, Int((Double(b + 1) * size).rounded()))
                scratch.removeAll(keepingCapacity: true)
                for k in lo..<min(hi, n) { scratch.append(line[k]) }
                medians[b] = selectKth(&scratch, scratch.count / 2) ?? 0
            }
            for k in 0..<n {
                // Position in block-centre units.
                let t = (Double(k) + 0.5) / size - 0.5
                let b0 = max(0, min(blocks - 1, Int(t.rounded(.down))))
                let b1 = min(blocks - 1, b0 + 1)
                let a = Float(max(0, min(1, t - Double(b0))))
                let v = medians[b0] + (medians[b1] - medians[b0]) * a
                let m = first + k
                let q = start + offsets[m]
                if horizontal { buf[q * w + m] = v } else { buf[m * w + q] = v }
            }
        }
    }
    return out
}
