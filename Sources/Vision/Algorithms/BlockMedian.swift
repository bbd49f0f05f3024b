/// Shrinks a plane by an integer factor, each output sample the median of a `factor x factor`
/// block: every pixel of blocks up to 7 x 7, every `factor / 4`-th pixel each way of larger
/// ones (4 x 4 to 7 x 7 samples; the estimate is blurred over several blocks afterwards).
/// Partial blocks at the right/bottom edge take the median of what they have; of an even
/// count, the upper middle value.
///
/// A block's mean follows whatever covers part of it; ruling lines, dark or bright, and cells
/// that cover less than half a block do not move its median.
///
/// - Parameter factor: downsampling factor >= 1; 1 returns the input.
public func downsampleMedian(_ plane: Plane, factor: Int) -> Plane {
    guard factor > 1, plane.count > 0 else { return plane }
    let w = plane.width, h = plane.height
    let ow = (w + factor - 1) / factor, oh = (h + factor - 1) / factor
    var out = Plane(width: ow, height: oh)
    let step = max(1, factor / 4)
    var block = [Float](repeating: 0, count: factor * factor)
    plane.data.withUnsafeBufferPointer { src in
        out.data.withUnsafeMutableBufferPointer { dst in
            block.withUnsafeMutableBufferPointer { b in
                for oy in 0..<oh {
                    let y0 = oy * factor, y1 = min(y0 + factor, h)
                    for ox in 0..<ow {
                        let x0 = ox * factor, x1 = min(x0 + factor, w)
                        var n = 0
                        for y in stride(from: y0, to: y1, by: step) {
                            let row = src.baseAddress! + y * w
                            for x in stride(from: x0, to: x1, by: step) {
                                b[n] = row[x]
                                n += 1
                            }
                        }
                        dst[oy * ow + ox] = selectKthByRank(UnsafeMutableBufferPointer(rebasing: b[0..<n]), n / 2)
                    }
                }
            }
        }
    }
    return out
}
