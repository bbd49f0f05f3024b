import Foundation
import Imaging

/// sRGB 8-bit value -> linear light 0 ... 1 (IEC 61966-2-1).
let srgbToLinear: [Float] = (0..<256).map { i in
    let c = Double(i) / 255
    return Float(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4))
}

/// Integer downsampling factor that keeps the smallest cell radius at least
/// `minWorkingRadius` working pixels.
///
/// - Parameters:
///   - minRadiusPx: smallest cell radius, image pixels.
///   - minWorkingRadius: smallest acceptable radius after downsampling, pixels.
///   - explicit: a configured factor (> 0 wins).
public func workingScale(minRadiusPx: Double, minWorkingRadius: Double, explicit: Int) -> Int {
    if explicit > 0 { return explicit }
    guard minRadiusPx.isFinite, minWorkingRadius > 0 else { return 1 }
    return max(1, min(64, Int((minRadiusPx / minWorkingRadius).rounded(.down))))
}

/// Stage 1: linear luminance at the working scale, glare ratio, focus score, greyscale test.
struct NormalizeStage: Stage {
    let name = "normalize"

    func run(_ frame: inout Frame) throws {
        let config = frame.config
        let image = frame.image
        let radii = config.radiusRangeBeforeRulingPx
        let f = workingScale(minRadiusPx: radii.min, minWorkingRadius: config.minWorkingRadiusPx,
                             explicit: config.workingScale)
        frame.scale = f
        frame.minRadius = radii.min / Double(f)
        frame.maxRadius = radii.max / Double(f)
        guard image.width > 0, image.height > 0 else {
            frame.flag("empty-image")
            return
        }
        let w = image.width, h = image.height
        // Chroma (max - min of the 8-bit channels) above this marks a coloured pixel.
        let (lum, glare, saturatedChroma) = linearLuminance(
            image, factor: f, glareLevel: UInt8(clamping: config.glareLevel),
            chromaLimit: Int((config.greyscaleSaturation * 255).rounded()))
        frame.luminance = lum
        let total = Double(w) * Double(h)
        frame.glareRatio = Double(glare) / total
        // Greyscale when fewer than 1% of the pixels carry visible colour.
        frame.isGreyscale = Double(saturatedChroma) / total < 0.01
        frame.focusScore = laplacianVariance(lum, scale: 255)
        if frame.glareRatio > config.glareMaxRatio { frame.flag("glare") }
        if frame.focusScore < config.minFocus { frame.flag("low-focus") }
        if frame.isGreyscale { frame.flag("greyscale") }
    }
}

/// Variance of the 4-neighbour Laplacian over the interior pixels (a focus measure: sharp
/// images have strong second derivatives).
///
/// - Parameters:
///   - plane: input samples.
///   - scale: factor applied to samples first (255 reports it in 8-bit units).
public func laplacianVariance(_ plane: Plane, scale: Float = 1) -> Double {
    let w = plane.width, h = plane.height
    guard w >= 3, h >= 3 else { return 0 }
    var sum = 0.0, sumSq = 0.0
    typealias V = SIMD8<Float>
    @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
    plane.data.withUnsafeBufferPointer { d in
        for y in 1..<(h - 1) {
            let c = d.baseAddress! + y * w
            // Eight running sums a row (one per lane), added up lane by lane after the row's
            // last whole group of eight, then the rest one by one: a single running sum is a
            // chain of dependent additions the compiler may not reorder.
            var lanes = V(), laneSquares = V()
            var x = 1
            while x &+ 8 <= w &- 1 {
                let l = (load(c + (x &- 1)) + load(c + (x &+ 1)) + load(c + (x &- w)) + load(c + (x &+ w))
                    - 4 * load(c + x)) * scale
                lanes += l
                laneSquares += l * l
                x &+= 8
            }
            var rowSum: Float = 0, rowSq: Float = 0
            for k in 0..<8 {
                rowSum += lanes[k]
                rowSq += laneSquares[k]
            }
            while x < w &- 1 {
                let l = (c[x &- 1] + c[x &+ 1] + c[x &- w] + c[x &+ w] - 4 * c[x]) * scale
                rowSum += l
                rowSq += l * l
                x &+= 1
            }
            sum += Double(rowSum)
            sumSq += Double(rowSq)
        }
    }
    let n = Double((w - 2) * (h - 2))
    let mean = sum / n
    return max(0, sumSq / n - mean * mean)
}
