/// Exact Euclidean distance from every foreground pixel to the nearest background pixel
/// (Felzenszwalb & Huttenlocher's lower envelope of parabolas, two 1-D passes). Background
/// pixels get 0; pixels outside the image count as background.
///
/// - Parameter mask: foreground flags, `width * height`, row-major.
/// - Returns: distances in pixels.
public func distanceTransform(mask: [Bool], width: Int, height: Int) -> Plane {
    var out = Plane(width: width, height: height)
    guard width > 0, height > 0, mask.count == width * height else { return out }
    let big: Float = 1e10
    // Pad by one pixel of background on each side so the border counts as background.
    let pw = width + 2, ph = height + 2
    var f = [Float](repeating: 0, count: pw * ph)
    for y in 0..<height {
        for x in 0..<width where mask[y * width + x] { f[(y + 1) * pw + x + 1] = big }
    }
    let n = max(pw, ph)
    var v = [Int](repeating: 0, count: n), z = [Float](repeating: 0, count: n + 1)
    var line = [Float](repeating: 0, count: n), result = [Float](repeating: 0, count: n)
    func transform1D(_ count: Int) {
        var k = 0
        v[0] = 0
        z[0] = -big
        z[1] = big
        if count > 1 {
            for q in 1..<count {
                var s: Float
                repeat {
                    let p = v[k]
                    s = ((line[q] + Float(q * q)) - (line[p] + Float(p * p))) / Float(2 * (q - p))
                    if s <= z[k] { k -= 1 } else { break }
                } while k >= 0
                k += 1
                v[k] = q
                z[k] = s
                z[k + 1] = big
            }
        }
        k = 0
        for q in 0..<count {
            while z[k + 1] < Float(q) { k += 1 }
            let d = Float(q - v[k])
            result[q] = d * d + line[v[k]]
        }
    }
    for x in 0..<pw {
        for y in 0..<ph { line[y] = f[y * pw + x] }
        transform1D(ph)
        for y in 0..<ph { f[y * pw + x] = result[y] }
    }
    for y in 0..<ph {
        for x in 0..<pw { line[x] = f[y * pw + x] }
        transform1D(pw)
        for x in 0..<pw { f[y * pw + x] = result[x] }
    }
    for y in 0..<height {
        for x in 0..<width { out.data[y * width + x] = f[(y + 1) * pw + x + 1].squareRoot() }
    }
    return out
}
