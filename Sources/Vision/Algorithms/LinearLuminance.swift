import Imaging

/// `weight * srgbToLinear[v]` for the Rec. 709 luminance weights: red at 0 ..< 256, green at
/// 256 ..< 512, blue at 512 ..< 768. The same Float products the per-pixel expression forms.
let weightedLinearChannels: [Float] = (0..<768).map { i in
    let weight: Float = i < 256 ? 0.2126 : i < 512 ? 0.7152 : 0.0722
    return weight * srgbToLinear[i & 255]
}

/// Linear-light luminance of an 8-bit sRGB image shrunk by an integer factor (each output the
/// mean of its `factor x factor` block, partial blocks at the right/bottom edge the mean of
/// what they have), with two pixel counts taken on the way.
///
/// Per output, the block's pixels are summed in row order, x order within a row, from 0, then
/// divided by their count: what adding each pixel to its output as it is read gives. Each
/// input row is converted into a row buffer first, so that the block sums run over buffers
/// with no per-pixel bookkeeping.
///
/// - Parameters:
///   - factor: downsampling factor >= 1.
///   - glareLevel: a pixel whose largest channel reaches this counts as glare.
///   - chromaLimit: a pixel whose largest minus smallest channel exceeds this counts as coloured.
/// - Returns: the plane (empty for an empty image), the glare and the coloured pixel counts.
func linearLuminance(_ image: Image, factor: Int, glareLevel: UInt8,
                     chromaLimit: Int) -> (plane: Plane, glare: Int, coloured: Int) {
    let f = max(1, factor)
    let w = image.width, h = image.height
    guard w > 0, h > 0 else { return (Plane(width: 0, height: 0), 0, 0) }
    let ow = (w + f - 1) / f, oh = (h + f - 1) / f
    let wholeColumns = w / f
    var glare = 0, coloured = 0
    let v = UnsafeMutablePointer<Float>.allocate(capacity: w), s = UnsafeMutablePointer<Float>.allocate(capacity: ow)
    defer {
        v.deallocate()
        s.deallocate()
    }
    let plane = Plane(width: ow, height: oh) { out in
        image.pixels.withUnsafeBufferPointer { px in
            weightedLinearChannels.withUnsafeBufferPointer { terms in
                let t = terms.baseAddress!
                for oy in 0..<oh {
                    s.update(repeating: 0, count: ow)
                    let y0 = oy * f, y1 = min(y0 + f, h)
                    for y in y0..<y1 {
                        let rgb = px.baseAddress! + y * w * 3
                        var p = rgb
                        for x in 0..<w {
                            v[x] = t[Int(p[0])] + t[256 &+ Int(p[1])] + t[512 &+ Int(p[2])]
                            p += 3
                        }
                        let counts = countGlareAndColour(rgb, pixels: w, glareLevel: glareLevel, chromaLimit: chromaLimit)
                        glare &+= counts.glare
                        coloured &+= counts.coloured
                        // Per output its block's pixels of this row in x order.
                        var ox = 0
                        if f == 2 {
                            while ox &+ 4 <= wholeColumns {
                                let pair = UnsafeRawPointer(v + 2 &* ox).loadUnaligned(as: SIMD8<Float>.self)
                                let sum = UnsafeRawPointer(s + ox).loadUnaligned(as: SIMD4<Float>.self)
                                UnsafeMutableRawPointer(s + ox).storeBytes(of: sum + pair.evenHalf + pair.oddHalf,
                                                                           as: SIMD4<Float>.self)
                                ox &+= 4
                            }
                        }
                        for k in 0..<f {
                            for c in ox..<wholeColumns { s[c] += v[c &* f &+ k] }
                        }
                        if wholeColumns < ow {
                            for x in (wholeColumns * f)..<w { s[wholeColumns] += v[x] }
                        }
                    }
                    let o = out + oy * ow, rows = y1 - y0
                    for ox in 0..<wholeColumns { o[ox] = s[ox] / Float(rows * f) }
                    if wholeColumns < ow {
                        o[wholeColumns] = s[wholeColumns] / Float(rows * (w - wholeColumns * f))
                    }
                }
            }
        }
    }
    return (plane, glare, coloured)
}

/// Pixels of an RGB run whose largest channel reaches `glareLevel`, and those whose largest
/// minus smallest channel exceeds `chromaLimit`.
///
/// Five pixels at a time: three byte vectors loaded one channel apart hold a pixel's red,
/// green and blue in the same lane (lanes 0, 3, 6, 9, 12); per-lane counters are emptied
/// before they can wrap.
func countGlareAndColour(_ rgb: UnsafePointer<UInt8>, pixels n: Int, glareLevel: UInt8,
                         chromaLimit: Int) -> (glare: Int, coloured: Int) {
    var glare = 0, coloured = 0
    var i = 0
    if (0...254).contains(chromaLimit) {
        typealias Bytes = SIMD16<UInt8>
        var lanes = SIMDMask<SIMD16<Int8>>()
        for l in stride(from: 0, to: 15, by: 3) { lanes[l] = true }
        let level = Bytes(repeating: glareLevel), limit = Bytes(repeating: UInt8(chromaLimit))
        var glareLanes = Bytes(), colourLanes = Bytes(), pending = 0
        /// Adds the lane counters to the totals.
        func empty() {
            for l in 0..<16 {
                glare &+= Int(glareLanes[l])
                coloured &+= Int(colourLanes[l])
            }
            glareLanes = Bytes()
            colourLanes = Bytes()
            pending = 0
        }
        // The last load reads bytes 3i ... 3i + 17: six pixels.
        while i &+ 6 <= n {
            let p = UnsafeRawPointer(rgb + 3 &* i)
            let a = p.loadUnaligned(as: Bytes.self), b = (p + 1).loadUnaligned(as: Bytes.self)
            let c = (p + 2).loadUnaligned(as: Bytes.self)
            let abMax = a.replacing(with: b, where: b .> a)
            let hi = abMax.replacing(with: c, where: c .> abMax)
            let abMin = a.replacing(with: b, where: b .< a)
            let lo = abMin.replacing(with: c, where: c .< abMin)
            // A true mask lane is -1: subtracting counts it.
            glareLanes &-= unsafeBitCast(lanes .& (hi .>= level), to: Bytes.self)
            colourLanes &-= unsafeBitCast(lanes .& ((hi &- lo) .> limit), to: Bytes.self)
            i &+= 5
            pending &+= 1
            if pending == 255 { empty() }
        }
        empty()
    }
    while i < n {
        let r = rgb[3 &* i], g = rgb[3 &* i &+ 1], b = rgb[3 &* i &+ 2]
        let hi = max(r, max(g, b)), lo = min(r, min(g, b))
        if hi >= glareLevel { glare &+= 1 }
        if Int(hi) &- Int(lo) > chromaLimit { coloured &+= 1 }
        i &+= 1
    }
    return (glare, coloured)
}
