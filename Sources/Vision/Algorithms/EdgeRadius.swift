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
    let x0 = max(1, Int((x - outer).rounded(.down))), x1 = min(w - 2, Int((x + outer).rounded(.up)))
    let y0 = max(1, Int((y - outer).rounded(.down))), y1 = min(h - 2, Int((y + outer).rounded(.up)))
    guard x0 <= x1, y0 <= y1, r > 0 else { return 0 }
    // Grey values (R + 2G + B) of the window plus a one-pixel border.
    let ww = x1 - x0 + 3, wh = y1 - y0 + 3
    var grey = [Float](repeating: 0, count: ww * wh)
    image.pixels.withUnsafeBufferPointer { px in
        for yy in 0..<wh {
            let sy = y0 - 1 + yy
            for xx in 0..<ww {
                let p = (sy * w + x0 - 1 + xx) * 3
                grey[yy * ww + xx] = Float(Int(px[p]) + 2 * Int(px[p + 1]) + Int(px[p + 2]))
            }
        }
    }
    var sum = 0.0, weight = 0.0
    let cosLimit: Float = 0.9
    for yy in 1..<(wh - 1) {
        let dy = Double(y0 - 1 + yy) - y
        for xx in 1..<(ww - 1) {
            let dx = Double(x0 - 1 + xx) - x
            let dist2 = dx * dx + dy * dy
            guard dist2 > 0.25, dist2 <= outer * outer else { continue }
            let i = yy * ww + xx
            let gx = (grey[i - ww + 1] + 2 * grey[i + 1] + grey[i + ww + 1]) - (grey[i - ww - 1] + 2 * grey[i - 1] + grey[i + ww - 1])
            let gy = (grey[i + ww - 1] + 2 * grey[i + ww] + grey[i + ww + 1]) - (grey[i - ww - 1] + 2 * grey[i - ww] + grey[i - ww + 1])
            let g2 = gx * gx + gy * gy
            guard g2 > 0 else { continue }
            let dist = Float(dist2.squareRoot())
            let along = (gx * Float(dx) + gy * Float(dy)) / dist
            guard along * along >= cosLimit * cosLimit * g2 else { continue }
            let a = Double(abs(along))
            sum += a * Double(dist)
            weight += a
        }
    }
    return weight > 0 ? sum / weight : 0
}
