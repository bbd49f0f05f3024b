/// Shrinks a plane by an integer factor, each output sample the mean of a `factor x factor`
/// block (partial blocks at the right/bottom edge average what they have).
///
/// - Parameter factor: downsampling factor >= 1; 1 returns the input.
public func downsample(_ plane: Plane, factor: Int) -> Plane {
    guard factor > 1, plane.count > 0 else { return plane }
    let w = plane.width, h = plane.height
    let ow = (w + factor - 1) / factor, oh = (h + factor - 1) / factor
    let wholeColumns = w / factor
    let sums = UnsafeMutablePointer<Float>.allocate(capacity: ow)
    defer { sums.deallocate() }
    let out = Plane(width: ow, height: oh) { dst in
        plane.data.withUnsafeBufferPointer { src in
            for oy in 0..<oh {
                sums.update(repeating: 0, count: ow)
                let y0 = oy * factor, y1 = min(y0 + factor, h)
                for y in y0..<y1 {
                    let row = src.baseAddress! + y * w
                    // Each output adds its samples of this row in x order, from 0 in the first.
                    var ox = 0
                    if factor == 2 {
                        while ox &+ 4 <= wholeColumns {
                            let pair = UnsafeRawPointer(row + 2 &* ox).loadUnaligned(as: SIMD8<Float>.self)
                            let sum = UnsafeRawPointer(sums + ox).loadUnaligned(as: SIMD4<Float>.self)
                            UnsafeMutableRawPointer(sums + ox).storeBytes(of: sum + pair.evenHalf + pair.oddHalf,
                                                                          as: SIMD4<Float>.self)
                            ox &+= 4
                        }
                    }
                    for k in 0..<factor {
                        for c in ox..<wholeColumns { sums[c] += row[c &* factor &+ k] }
                    }
                    if wholeColumns < ow {
                        for x in (wholeColumns * factor)..<w { sums[wholeColumns] += row[x] }
                    }
                }
                // The sample counts, exact in Float as the running counts were.
                let o = dst + oy * ow, rows = y1 - y0
                for ox in 0..<wholeColumns { o[ox] = sums[ox] / Float(rows * factor) }
                if wholeColumns < ow {
                    o[wholeColumns] = sums[wholeColumns] / Float(rows * (w - wholeColumns * factor))
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
    let sx = Double(plane.width) / Double(width), sy = Double(plane.height) / Double(height)
    return resampleBilinear(plane, width: width, height: height,
                            sourceX: { (Double($0) + 0.5) * sx - 0.5 }, sourceY: { (Double($0) + 0.5) * sy - 0.5 })
}

/// Every `factor`-th sample of every `factor`-th row, from (0, 0): unlike `downsample`'s
/// block means, the samples keep the input's noise distribution (a quantile of them has the
/// same bias as a quantile of the input).
///
/// - Parameter factor: >= 1; 1 returns the input.
public func decimate(_ plane: Plane, factor: Int) -> Plane {
    guard factor > 1 else { return plane }
    let w = (plane.width + factor - 1) / factor, h = (plane.height + factor - 1) / factor
    return Plane(width: w, height: h) { out in
        plane.data.withUnsafeBufferPointer { src in
            for y in 0..<h {
                let row = src.baseAddress! + y * factor * plane.width
                for x in 0..<w { out[y * w + x] = row[x * factor] }
            }
        }
    }
}

/// Bilinear interpolation of a `decimate`d plane back to `width` x `height`: sample i stands
/// at input pixel `i * factor`.
public func undecimate(_ plane: Plane, factor: Int, width: Int, height: Int) -> Plane {
    let f = Double(max(1, factor))
    return resampleBilinear(plane, width: width, height: height, sourceX: { Double($0) / f }, sourceY: { Double($0) / f })
}

/// Output pixel (x, y) interpolated at source position (sourceX(x), sourceY(y)), clamped to
/// the plane.
private func resampleBilinear(_ plane: Plane, width: Int, height: Int,
                              sourceX: (Int) -> Double, sourceY: (Int) -> Double) -> Plane {
    guard plane.count > 0, width > 0, height > 0 else { return Plane(width: width, height: height) }
    // Per-column source indices and weights, computed once.
    var x0s = [Int](repeating: 0, count: width), x1s = x0s
    var ax = [Float](repeating: 0, count: width)
    for x in 0..<width {
        let fx = min(max(sourceX(x), 0), Double(plane.width - 1))
        let i = Int(fx)
        x0s[x] = i
        x1s[x] = min(i + 1, plane.width - 1)
        ax[x] = Float(fx - Double(i))
    }
    let pw = plane.width
    // Each output row blends two source rows already interpolated along x; consecutive output
    // rows mostly share them, so each source row is interpolated once into one of two slots.
    let slots = UnsafeMutablePointer<Float>.allocate(capacity: 2 * width)
    defer { slots.deallocate() }
    var slotRow = (-1, -1)
    // Every output sample is written once: the output is not zeroed first.
    return Plane(width: width, height: height) { dst in
        plane.data.withUnsafeBufferPointer { src in
            /// Source row `j` along x, in a slot not holding `keep`.
            func interpolated(_ j: Int, keep: Int) -> UnsafeMutablePointer<Float> {
                if slotRow.0 == j { return slots }
                if slotRow.1 == j { return slots + width }
                let slot = slotRow.0 == keep ? 1 : 0
                let row = src.baseAddress! + j * pw, o = slots + slot * width
                for x in 0..<width {
                    let a = ax[x], i0 = x0s[x], i1 = x1s[x]
                    o[x] = row[i0] + (row[i1] - row[i0]) * a
                }
                if slot == 0 { slotRow.0 = j } else { slotRow.1 = j }
                return o
            }
            for y in 0..<height {
                let fy = min(max(sourceY(y), 0), Double(plane.height - 1))
                let y0 = Int(fy), y1 = min(y0 + 1, plane.height - 1)
                let ay = Float(fy - Double(y0))
                let top = interpolated(y0, keep: -1), bottom = interpolated(y1, keep: y0)
                let o = dst + y * width
                for x in 0..<width { o[x] = top[x] + (bottom[x] - top[x]) * ay }
            }
        }
    }
}
