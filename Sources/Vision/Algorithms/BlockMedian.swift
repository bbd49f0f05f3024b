/// Shrinks a plane by an integer factor, each output sample the median of a `factor x factor`
/// block: every pixel of blocks up to 7 x 7, every `factor / 4`-th pixel each way of larger
/// ones (4 x 4 to 7 x 7 samples; the estimate is blurred over several blocks afterwards).
/// Partial blocks at the right/bottom edge take the median of what they have; of an even
/// count, the upper middle value.
///
/// A block's mean follows whatever covers part of it; ruling lines, dark or bright, and cells
/// that cover less than half a block do not move its median.
///
/// Whole blocks go eight at a time through a `SelectionNetwork` (one block per lane, no
/// data-dependent branches); partial blocks, blocks with a NaN and zero medians (the sign of
/// zero) through `selectKthByRank`. Both give the same value.
///
/// - Parameter factor: downsampling factor >= 1; 1 returns the input.
public func downsampleMedian(_ plane: Plane, factor: Int) -> Plane {
    guard factor > 1, plane.count > 0 else { return plane }
    let w = plane.width, h = plane.height
    let ow = (w + factor - 1) / factor, oh = (h + factor - 1) / factor
    var out = Plane(width: ow, height: oh)
    let step = max(1, factor / 4)
    let side = (factor + step - 1) / step
    var block = [Float](repeating: 0, count: factor * factor)
    let network = SelectionNetwork(count: side * side, rank: side * side / 2)
    let lanes = 8
    // Whole blocks: columns ox < fullColumns, rows oy < h / factor.
    let fullColumns = network.count == side * side ? w / factor : 0
    let wires = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: network.count)
    defer { wires.deallocate() }
    plane.data.withUnsafeBufferPointer { src in
        out.data.withUnsafeMutableBufferPointer { dst in
            block.withUnsafeMutableBufferPointer { b in
                /// One block by rank selection.
                func scalarMedian(_ ox: Int, _ oy: Int) {
                    let y0 = oy * factor, y1 = min(y0 + factor, h)
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
                for oy in 0..<oh {
                    var ox = 0
                    if oy < h / factor {
                        while ox + lanes <= fullColumns {
                            // Wire (sy, sx) of lane l: sample (sx, sy) of block ox + l.
                            // Lanes that met a NaN (a true mask lane is -1).
                            var nan = SIMD8<Int32>()
                            var wire = 0
                            for sy in 0..<side {
                                let row = src.baseAddress! + (oy * factor + sy * step) * w + ox * factor
                                for sx in 0..<side {
                                    let p = row + sx * step
                                    let v = SIMD8<Float>(p[0], p[factor], p[2 &* factor], p[3 &* factor], p[4 &* factor],
                                                         p[5 &* factor], p[6 &* factor], p[7 &* factor])
                                    nan |= unsafeBitCast(v .!= v, to: SIMD8<Int32>.self)
                                    wires[wire] = v
                                    wire += 1
                                }
                            }
                            let m = network.selectLanes(wires)
                            for l in 0..<lanes {
                                // A zero median may come from a block holding both -0 and +0,
                                // where the network's choice of sign is arbitrary.
                                if nan[l] != 0 || m[l] == 0 {
                                    scalarMedian(ox + l, oy)
                                } else {
                                    dst[oy * ow + ox + l] = m[l]
                                }
                            }
                            ox += lanes
                        }
                    }
                    while ox < ow {
                        scalarMedian(ox, oy)
                        ox += 1
                    }
                }
            }
        }
    }
    return out
}
