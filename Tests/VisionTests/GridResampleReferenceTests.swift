import Foundation
import Testing
import Imaging
@testable import Vision

/// Grid projection, downsampling and the normalize stage's luminance against their first,
/// plain versions (kept here verbatim): the rewritten loops must give the same bits (projection
/// profiles: the same bins and counts, sums to within rounding).
@Suite("Grid and resample reference")
struct GridResampleReferenceTests {
    @Test func projectionProfileMatchesReference() {
        let plane = LineProfileReferenceTests.ruledPlane(width: 203, height: 117)
        for degrees in [0.0, 0.4, 3.0, 44.9, 45, 89.6, 90, 90.3, 135, 179.2, -12] {
            let a = degrees * .pi / 180
            let got = projectionProfile(plane, normalAngle: a), want = Self.referenceProfile(plane, normalAngle: a)
            #expect(Self.sameProfile(got, want), "normal \(degrees)")
        }
    }

    /// The same bins, origin and trimming as the pixel-by-pixel reference; bin means summed by
    /// runs differ from it only in the last bits.
    static func sameProfile(_ got: (profile: [Double], origin: Double), _ want: (profile: [Double], origin: Double)) -> Bool {
        got.origin.bitPattern == want.origin.bitPattern
            && got.profile.elementsEqual(want.profile) { abs($0 - $1) <= 1e-12 * max(1, abs($1)) }
    }

    /// Runs along rows and along columns, bins clamped at both ends, planes one pixel wide or high.
    @Test func projectionProfileMatchesReferenceOnNoise() {
        for (w, h) in [(1, 1), (1, 40), (40, 1), (2, 2), (97, 61), (61, 97), (300, 7)] {
            let plane = KernelReferenceTests.noisePlane(width: w, height: h, seed: UInt64(w + 7 * h))
            var sequence = TestSequence(state: UInt64(w * h + 5))
            let random = (0..<40).map { _ in sequence.next() * 360 - 90 }
            for degrees in [0.0, 0.01, 1.7, 30, 44.99, 45.01, 60, 88.8, 90, 91.3, 135, 180, 200, 269.9, 315, -0.3] + random {
                let a = degrees * .pi / 180
                let got = projectionProfile(plane, normalAngle: a), want = Self.referenceProfile(plane, normalAngle: a)
                #expect(Self.sameProfile(got, want), "\(w)x\(h) normal \(degrees)")
            }
        }
    }

    /// Several directions in one pass (groups of four, two and one), each as the reference.
    @Test func batchedProjectionProfilesMatchReference() {
        let plane = LineProfileReferenceTests.ruledPlane(width: 151, height: 97)
        for count in [1, 2, 3, 4, 5, 7, 13] {
            let degrees = (0..<count).map { 30.0 + 37.3 * Double($0) }
            let got = projectionProfiles(plane, normalAngles: degrees.map { $0 * .pi / 180 })
            #expect(got.count == count)
            for (deg, g) in zip(degrees, got) {
                let want = Self.referenceProfile(plane, normalAngle: deg * .pi / 180)
                #expect(Self.sameProfile(g, want), "\(count) directions: normal \(deg)")
            }
        }
    }

    /// The polynomial bin against atan2f: random directions at several scales, the axes, both
    /// zeros, diagonals and directions right on bin edges (tan of whole degrees).
    @Test func orientationBinMatchesAtan2() {
        func exact(_ gy: Float, _ gx: Float) -> Int {
            var a = atan2(gy, gx) * (180 / Float.pi)
            if a < 0 { a += 180 }
            return min(179, Int(a))
        }
        var pairs: [(Float, Float)] = [(0, 0), (-0.0, 1), (-0.0, -1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1),
                                       (-1, -1), (1e-30, 1), (1, 1e-30), (3e38, 1), (-Float.leastNonzeroMagnitude, -1)]
        for deg in 0..<360 {
            let a = Double(deg) * .pi / 180
            for scale in [1.0, 0.01, 1e-20] { pairs.append((Float(sin(a) * scale), Float(cos(a) * scale))) }
        }
        var state: UInt64 = 11
        for i in 0..<300_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let gx = Float(Int(state >> 44) - (1 << 19)) / Float(1 << (i % 20))
            let gy = Float(Int(state >> 20 & 0xF_FFFF) - (1 << 19)) / Float(1 << (i % 7))
            pairs.append((gy, gx))
        }
        let mismatches = pairs.filter { orientationBin($0.0, $0.1) != exact($0.0, $0.1) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func orientationHistogramMatchesReference() {
        let plane = gaussianBlur(LineProfileReferenceTests.ruledPlane(width: 131, height: 89), sigma: 1)
        for threshold: Float in [0, 0.005, 0.05] {
            let got = orientationHistogram(plane, minMagnitude: threshold)
            let want = Self.referenceHistogram(plane, minMagnitude: threshold)
            #expect(got.elementsEqual(want) { $0.bitPattern == $1.bitPattern }, "threshold \(threshold)")
        }
    }

    /// Every gradient direction and size, four-pixel groups and row tails (widths 3 ... 10),
    /// flat runs (zero gradients) and exact ties between |gx| and |gy|.
    @Test func orientationHistogramMatchesReferenceOnNoise() {
        var state: UInt64 = 7
        func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
        for width in [3, 4, 5, 6, 7, 10, 203] {
            var plane = Plane(width: width, height: 61)
            for i in plane.data.indices { plane.data[i] = next() < 0.2 ? 0.5 : (next() * 8).rounded() / 8 }
            for threshold: Float in [0, 0.01, 0.2] {
                let got = orientationHistogram(plane, minMagnitude: threshold)
                let want = Self.referenceHistogram(plane, minMagnitude: threshold)
                #expect(got.elementsEqual(want) { $0.bitPattern == $1.bitPattern }, "width \(width) threshold \(threshold)")
            }
        }
    }

    /// Searches sharing their projection passes end where each would on its own.
    @Test func sharedNormalSearchesMatchReference() {
        let plane = LineProfileReferenceTests.ruledPlane(width: 211, height: 157)
        for starts in [[12.0, 97.0], [11.0], [8.5, 100.2, 45.0], [98.0, 98.0]] {
            let got = refineLineNormals(plane, degrees: starts)
            let want = starts.map { Self.referenceRefineLineNormal(plane, degrees: $0) }
            #expect(got.elementsEqual(want) { $0.bitPattern == $1.bitPattern }, "starts \(starts): \(got) vs \(want)")
        }
    }

    /// The search as first written: one direction, its own passes.
    static func referenceRefineLineNormal(_ contrast: Plane, degrees: Double) -> Double {
        let coarse = downsample(contrast, factor: 2)
        func sharpness(_ degrees: [Double], on plane: Plane) -> [Double] {
            degrees.map { detrendedEnergy(projectionProfile(plane, normalAngle: $0 * .pi / 180).profile) }
        }
        var best = degrees
        for (step, reach, fine) in [(0.5, 6, false), (0.15, 2, true), (0.05, 1, true)] {
            let centre = best
            let candidates = [centre] + (-reach...reach).filter { $0 != 0 }.map { centre + Double($0) * step }
            let scores = sharpness(candidates, on: fine ? contrast : coarse)
            var bestValue = scores[0]
            for (candidate, v) in zip(candidates, scores).dropFirst() {
                if v > bestValue { bestValue = v; best = candidate }
            }
        }
        return best
    }

    @Test func downsampleMatchesReference() {
        for (w, h) in [(1, 1), (7, 5), (203, 117), (64, 3)] {
            let plane = KernelReferenceTests.noisePlane(width: w, height: h, seed: UInt64(w * h))
            for factor in [1, 2, 3, 5, 8] {
                #expect(KernelReferenceTests.identical(downsample(plane, factor: factor), Self.referenceDownsample(plane, factor: factor)),
                        "\(w)x\(h) factor \(factor)")
            }
        }
    }

    @Test func resizeBilinearMatchesReference() {
        for (w, h) in [(1, 1), (7, 5), (160, 90), (33, 2)] {
            let plane = KernelReferenceTests.noisePlane(width: w, height: h, seed: UInt64(3 * w + h))
            for (ow, oh) in [(1, 1), (w * 6, h * 6), (w * 3 + 1, h * 2 + 5), (max(1, w / 2), max(1, h / 3)), (5, 40)] {
                #expect(KernelReferenceTests.identical(resizeBilinear(plane, width: ow, height: oh),
                                                       Self.referenceResize(plane, width: ow, height: oh)),
                        "\(w)x\(h) -> \(ow)x\(oh)")
            }
        }
    }

    /// `decimate` keeps sample (i f, j f) unchanged; `undecimate` puts it back there and fills
    /// between linearly, so a plane linear in x and y comes back exactly wherever it was sampled
    /// around (beyond the last sample, the last one holds).
    @Test func decimateAndUndecimateKeepSamplesInPlace() {
        for (w, h, f) in [(9, 7, 2), (10, 6, 2), (13, 11, 3), (1, 1, 2), (5, 4, 1)] {
            var plane = Plane(width: w, height: h)
            for y in 0..<h { for x in 0..<w { plane[x, y] = Float(3 * x - 2 * y) } }
            let coarse = decimate(plane, factor: f)
            #expect(coarse.width == (w + f - 1) / f && coarse.height == (h + f - 1) / f, "\(w)x\(h) / \(f)")
            for j in 0..<coarse.height { for i in 0..<coarse.width {
                #expect(coarse[i, j] == plane[i * f, j * f], "\(w)x\(h) / \(f): sample \(i), \(j)")
            } }
            let back = undecimate(coarse, factor: f, width: w, height: h)
            for y in 0..<h { for x in 0..<w {
                let sx = min(x, (coarse.width - 1) * f), sy = min(y, (coarse.height - 1) * f)
                #expect(abs(back[x, y] - Float(3 * sx - 2 * sy)) < 1e-4, "\(w)x\(h) / \(f): pixel \(x), \(y) = \(back[x, y])")
            } }
        }
    }

    static func referenceResize(_ plane: Plane, width: Int, height: Int) -> Plane {
        var out = Plane(width: width, height: height)
        guard plane.count > 0, out.count > 0 else { return out }
        let sx = Double(plane.width) / Double(width), sy = Double(plane.height) / Double(height)
        for y in 0..<height {
            let fy = min(max((Double(y) + 0.5) * sy - 0.5, 0), Double(plane.height - 1))
            let y0 = Int(fy), y1 = min(y0 + 1, plane.height - 1)
            let ay = Float(fy - Double(y0))
            for x in 0..<width {
                let fx = min(max((Double(x) + 0.5) * sx - 0.5, 0), Double(plane.width - 1))
                let i0 = Int(fx), i1 = min(i0 + 1, plane.width - 1)
                let a = Float(fx - Double(i0))
                let top = plane[i0, y0] + (plane[i1, y0] - plane[i0, y0]) * a
                let bottom = plane[i0, y1] + (plane[i1, y1] - plane[i0, y1]) * a
                out[x, y] = top + (bottom - top) * ay
            }
        }
        return out
    }

    @Test func laplacianVarianceMatchesReference() {
        for (w, h) in [(2, 9), (3, 3), (3, 4), (9, 5), (10, 4), (11, 3), (50, 7), (97, 60), (8, 101)] {
            let plane = KernelReferenceTests.noisePlane(width: w, height: h, seed: UInt64(w * 31 + h))
            for scale: Float in [1, 255] {
                let got = laplacianVariance(plane, scale: scale)
                var sum = 0.0, sumSq = 0.0
                if w >= 3 && h >= 3 {
                    func laplacian(_ x: Int, _ y: Int) -> Float {
                        (plane[x - 1, y] + plane[x + 1, y] + plane[x, y - 1] + plane[x, y + 1] - 4 * plane[x, y]) * scale
                    }
                    // Per row: eight lane sums over the whole groups of eight (lane k takes
                    // columns 1 + k, 9 + k, ...), added in lane order, then the rest in order.
                    for y in 1..<(h - 1) {
                        let groups = (w - 2) / 8
                        var laneSums = [Float](repeating: 0, count: 8), laneSquares = [Float](repeating: 0, count: 8)
                        for g in 0..<groups {
                            for k in 0..<8 {
                                let l = laplacian(1 + 8 * g + k, y)
                                laneSums[k] += l
                                laneSquares[k] += l * l
                            }
                        }
                        var rowSum: Float = 0, rowSq: Float = 0
                        for k in 0..<8 {
                            rowSum += laneSums[k]
                            rowSq += laneSquares[k]
                        }
                        for x in (1 + 8 * groups)..<(w - 1) {
                            let l = laplacian(x, y)
                            rowSum += l
                            rowSq += l * l
                        }
                        sum += Double(rowSum)
                        sumSq += Double(rowSq)
                    }
                }
                let n = Double(max(1, (w - 2) * (h - 2)))
                let want = w >= 3 && h >= 3 ? max(0, sumSq / n - (sum / n) * (sum / n)) : 0
                #expect(got.bitPattern == want.bitPattern, "\(w)x\(h) scale \(scale)")
            }
        }
    }

    @Test func normalizeLuminanceMatchesReference() throws {
        var canvas = Canvas(width: 123, height: 77)
        canvas.grid(spacing: 20, angle: 0.2)
        canvas.liveCell(x: 40, y: 30, r: 9)
        canvas.deadCell(x: 90, y: 50, r: 7)
        let image = canvas.image(noise: 0.05)
        for scale in [1, 2, 3, 4, 5, 8, 130] {
            var config = PipelineConfig()
            config.workingScale = scale
            var frame = Frame(image: image, config: config)
            try NormalizeStage().run(&frame)
            let want = Self.referenceLuminance(image, config: config, f: scale)
            #expect(KernelReferenceTests.identical(frame.luminance, want.lum), "scale \(scale)")
            #expect(frame.glareRatio == Double(want.glare) / Double(image.pixelCount))
            #expect(frame.isGreyscale == (Double(want.chroma) / Double(image.pixelCount) < 0.01))
        }
    }

    static func referenceLuminance(_ image: Image, config: PipelineConfig, f: Int) -> (lum: Plane, glare: Int, chroma: Int) {
            let w = image.width, h = image.height
        let ow = (w + f - 1) / f, oh = (h + f - 1) / f
        var lum = Plane(width: ow, height: oh)
        var counts = [Float](repeating: 0, count: ow)
        var glare = 0
        var saturatedChroma = 0
        let glareLevel = UInt8(clamping: config.glareLevel)
        // Chroma (max - min of the 8-bit channels) above this marks a coloured pixel.
        let chromaLimit = Int((config.greyscaleSaturation * 255).rounded())
        image.pixels.withUnsafeBufferPointer { px in
            srgbToLinear.withUnsafeBufferPointer { lut in
                lum.data.withUnsafeMutableBufferPointer { out in
                    counts.withUnsafeMutableBufferPointer { cnt in
                        for oy in 0..<oh {
                            let o = out.baseAddress! + oy * ow
                            for x in 0..<ow { cnt[x] = 0 }
                            let y0 = oy * f, y1 = min(y0 + f, h)
                            for y in y0..<y1 {
                                var p = y * w * 3
                                for x in 0..<w {
                                    let r = px[p], g = px[p &+ 1], b = px[p &+ 2]
                                    p &+= 3
                                    let v = 0.2126 * lut[Int(r)] + 0.7152 * lut[Int(g)] + 0.0722 * lut[Int(b)]
                                    let ox = x / f
                                    o[ox] += v
                                    cnt[ox] += 1
                                    let hi = max(r, max(g, b)), lo = min(r, min(g, b))
                                    if hi >= glareLevel { glare &+= 1 }
                                    if Int(hi) &- Int(lo) > chromaLimit { saturatedChroma &+= 1 }
                                }
                            }
                            for x in 0..<ow { o[x] /= cnt[x] }
                        }
                    }
                }
            }
        }
        return (lum, glare, saturatedChroma)
    }

    static func referenceProfile(_ plane: Plane, normalAngle: Double) -> (profile: [Double], origin: Double) {
        let w = plane.width, h = plane.height
        guard w > 0, h > 0 else { return ([], 0) }
        let nx = cos(normalAngle), ny = sin(normalAngle)
        let corners = [0.0, nx * Double(w - 1), ny * Double(h - 1), nx * Double(w - 1) + ny * Double(h - 1)]
        let lo = corners.min()!, hi = corners.max()!
        let bins = Int(hi - lo) + 1
        var sums = [Double](repeating: 0, count: bins), counts = [Double](repeating: 0, count: bins)
        // Per row the bin index advances by nx per pixel: accumulate in Float per row segment.
        plane.data.withUnsafeBufferPointer { d in
            sums.withUnsafeMutableBufferPointer { sm in
                counts.withUnsafeMutableBufferPointer { ct in
                    let fx = Float(nx)
                    for y in 0..<h {
                        let base = Float(Double(y) * ny - lo)
                        let row = d.baseAddress! + y * w
                        for x in 0..<w {
                            let b = min(bins - 1, max(0, Int(base + Float(x) * fx)))
                            sm[b] += Double(row[x])
                            ct[b] += 1
                        }
                    }
                }
            }
        }
        var profile = [Double](repeating: 0, count: bins)
        for i in 0..<bins { profile[i] = counts[i] > 0 ? sums[i] / counts[i] : 0 }
        // Bins near the image corners hold few pixels and are noisy: replace by the neighbour.
        let minCount = Double(min(w, h)) * 0.25
        var firstGood = 0, lastGood = bins - 1
        while firstGood < bins - 1 && counts[firstGood] < minCount { firstGood += 1 }
        while lastGood > 0 && counts[lastGood] < minCount { lastGood -= 1 }
        if firstGood <= lastGood {
            return (Array(profile[firstGood...lastGood]), lo + Double(firstGood))
        }
        return (profile, lo)
    }

    static func referenceDownsample(_ plane: Plane, factor: Int) -> Plane {
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
                            for x in 0..<w {
                                let ox = x / factor
                                o[ox] += row[x]
                                cnt[ox] += 1
                            }
                        }
                        for x in 0..<ow { o[x] /= cnt[x] }
                    }
                }
            }
        }
        return out
    }

    static func referenceHistogram(_ plane: Plane, minMagnitude: Float) -> [Double] {
        var hist = [Double](repeating: 0, count: 180)
        let w = plane.width, h = plane.height
        guard w >= 3, h >= 3 else { return hist }
        let minSq = minMagnitude * minMagnitude
        plane.data.withUnsafeBufferPointer { d in
            for y in 1..<(h - 1) {
                let c = d.baseAddress! + y * w
                for x in 1..<(w - 1) {
                    let gx = (c[x + 1] - c[x - 1]) * 0.5, gy = (c[x + w] - c[x - w]) * 0.5
                    let m2 = gx * gx + gy * gy
                    if m2 < minSq { continue }
                    var a = atan2(gy, gx) * (180 / Float.pi)
                    if a < 0 { a += 180 }
                    let bin = min(179, Int(a))
                    hist[bin] += Double(m2.squareRoot())
                }
            }
        }
        return hist
    }
}
