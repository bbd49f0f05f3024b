/// Shrinks a plane by an integer factor, each output sample the mean of a `factor x factor`
/// block (partial blocks at the right/bottom edge average what they have).
///
/// - Parameter factor: downsampling factor >= 1; 1 returns the input.
public func downsample(_ plane: Plane, factor: Int) -> Plane {
    guard factor > 1, plane.count > 0 else { return plane }
    let ow = (plane.width + factor - 1) / factor, oh = (plane.height + factor - 1) / factor
    var out = Plane(width: ow, height: oh)
    var counts = [Float](repeating: 0, count: ow)
    let w = plane.width
    plane.data.withUnsafeBufferPointer { src in
        out.data.withUnsafeMutableBufferPointer { dst in
            counts.withUnsafeMutableBufferPointer { cnt in
                for oy in 0..<oh {
                    let o = dst.baseAddress! + oy * ow
                    for x in 0..<ow { cnt[x] = 0 }
                    let y0 = oy * factor, y1 = min(y0 + factor, plane.height)
                    for y in y0..<y1 {
                        let row = src.baseAddress! + y * w
                        // Output column by output column: no division per sample, and each
                        // output still sums its samples in x order.
                        for ox in 0..<ow {
                            let xEnd = min(w, (ox &+ 1) &* factor)
                            var sum = o[ox], n = cnt[ox]
                            for x in (ox &* factor)..<xEnd {
                                sum += row[x]
                                n += 1
                            }
                            o[ox] = sum
                            cnt[ox] = n
                        }
                    }
                    for x in 0..<ow { o[x] /= cnt[x] }
                }
            }
        }
    }
    return out
}

/// Bilinear resize to an exact size, sample centres aligned (pixel-centre convention), so a
/// plane downsampled by `f` and resized back lines up with the original.
///
/// - Parameters:
///   - width, height: output size in pixels (>= 0).
public func resizeBilinear(_ plane: Plane, width: Int, height: Int) -> Plane {
    var out = Plane(width: width, height: height)
    guard plane.count > 0, out.count > 0 else { return out }
    let sx = Double(plane.width) / Double(width), sy = Double(plane.height) / Double(height)
    // Per-column source indices and weights, computed once.
    var x0s = [Int](repeating: 0, count: width), x1s = x0s
    var ax = [Float](repeating: 0, count: width)
    for x in 0..<width {
        let fx = min(max((Double(x) + 0.5) * sx - 0.5, 0), Double(plane.width - 1))
        let i = Int(fx)
        x0s[x] = i
        x1s[x] = min(i + 1, plane.width - 1)
        ax[x] = Float(fx - Double(i))
    }
    let pw = plane.width
    plane.data.withUnsafeBufferPointer { src in
        out.data.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                let fy = min(max((Double(y) + 0.5) * sy - 0.5, 0), Double(plane.height - 1))
                let y0 = Int(fy), y1 = min(y0 + 1, plane.height - 1)
                let ay = Float(fy - Double(y0))
                let r0 = src.baseAddress! + y0 * pw, r1 = src.baseAddress! + y1 * pw
                let o = dst.baseAddress! + y * width
                for x in 0..<width {
                    let a = ax[x], i0 = x0s[x], i1 = x1s[x]
                    let top = r0[i0] + (r0[i1] - r0[i0]) * a
                    let bottom = r1[i0] + (r1[i1] - r1[i0]) * a
                    o[x] = top + (bottom - top) * ay
                }
            }
        }
    }
    return out
}
