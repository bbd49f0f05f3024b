import Imaging

/// Radius of a candidate's boundary measured on the full-resolution image: the mean distance
/// from the centre of the pixels whose Sobel gradient points along the ray from the centre
/// (within about 25 degrees), weighted by that gradient. Working at full resolution keeps a
/// 2-pixel debris speck apart from a 5-pixel cell even when the pipeline's working scale
/// blurs them into the same blob.
///
/// - Parameters:
///   - image: the decoded image.
///   - x, y: centre, image pixels.
///   - r: candidate radius, image pixels; pixels up to 1.6 r are considered.
/// - Returns: the boundary radius in image pixels, 0 when no pixel qualifies.
public func boundaryRadius(_ image: Image, x: Double, y: Double, r: Double) -> Double {
    let w = image.width, h = image.height
    let outer = 1.6 * r
    guard x.isFinite, y.isFinite, outer.isFinite else { return 0 }
    let x0 = max(1, Int((x - outer).rounded(.down))), x1 = min(w - 2, Int((x + outer).rounded(.up)))
    let y0 = max(1, Int((y - outer).rounded(.down))), y1 = min(h - 2, Int((y + outer).rounded(.up)))
    guard x0 <= x1, y0 <= y1, r > 0 else { return 0 }
    // Grey values (R + 2G + B) of the window plus a one-pixel border; per column its offset
    // from the centre (its square, and as Float), per row the Sobel derivatives.
    let ww = x1 - x0 + 3, wh = y1 - y0 + 3, iw = ww - 2
    var grey = [Float](repeating: 0, count: ww * wh)
    var columns = [Double](repeating: 0, count: iw), columnsF = [Float](repeating: 0, count: 3 * iw)
    var sum = 0.0, weight = 0.0
    let cosLimit: Float = 0.9
    let limit = outer * outer
    grey.withUnsafeMutableBufferPointer { g in
        readGreyWindow(image, x0: x0 - 1, y0: y0 - 1, width: ww, height: wh, into: g.baseAddress!)
        columns.withUnsafeMutableBufferPointer { cb in
            columnsF.withUnsafeMutableBufferPointer { fb in
                let dx2 = cb.baseAddress!
                let fdx = fb.baseAddress!, gxs = fdx + iw, gys = gxs + iw
                for xx in 0..<iw {
                    let dx = Double(x0 + xx) - x
                    dx2[xx] = dx * dx
                    fdx[xx] = Float(dx)
                }
                for yy in 0..<(wh - 2) {
                    let dy = Double(y0 + yy) - y
                    let dy2 = dy * dy
                    // dx * dx + dy * dy >= dy * dy in floating point too: the row holds no
                    // pixel within reach.
                    guard dy2 <= limit else { continue }
                    sobelRow(g.baseAddress!, width: ww, row: yy, gx: gxs, gy: gys)
                    let fdy = Float(dy)
                    for xx in 0..<iw {
                        let dist2 = dx2[xx] + dy2
                        guard dist2 > 0.25, dist2 <= limit else { continue }
                        let gx = gxs[xx], gy = gys[xx]
                        let g2 = gx * gx + gy * gy
                        guard g2 > 0 else { continue }
                        let dist = Float(dist2.squareRoot())
                        let along = (gx * fdx[xx] + gy * fdy) / dist
                        guard along * along >= cosLimit * cosLimit * g2 else { continue }
                        let a = Double(abs(along))
                        sum += a * Double(dist)
                        weight += a
                    }
                }
            }
        }
    }
    return weight > 0 ? sum / weight : 0
}
