import Foundation
import Imaging

/// Mean linear luminance of the full-resolution image in one-pixel-wide annuli round a point:
/// element k holds the pixels whose centres lie k ... k + 1 px from (x, y). Nil when the
/// outermost annulus leaves the image, or `bins` < 1.
///
/// - Parameters:
///   - x, y: centre, image pixels.
///   - bins: number of annuli (the profile reaches `bins` px).
func radialLuminanceProfile(_ image: Image, x: Double, y: Double, bins: Int) -> [Double]? {
    guard bins >= 1 else { return nil }
    var sums = [Double](repeating: 0, count: bins), counts = [Double](repeating: 0, count: bins)
    let inside = forEachLuminance(image, x: x, y: y, reach: Double(bins)) { d2, luminance in
        let k = Int(d2.squareRoot())
        guard k < bins else { return }
        sums[k] += luminance
        counts[k] += 1
    }
    guard inside, !counts.contains(0) else { return nil }
    return zip(sums, counts).map { $0 / $1 }
}

/// Calls `body` with the squared distance from (x, y) and the linear luminance of every pixel
/// of the square of half-side `reach` round it, row by row, left to right. False, and no
/// call, when that square leaves the image or holds no pixel centre.
///
/// - Parameters:
///   - x, y, reach: centre and half-side, image pixels.
@inline(__always)
func forEachLuminance(_ image: Image, x: Double, y: Double, reach: Double, _ body: (Double, Double) -> Void) -> Bool {
    // Compared as doubles first: an integer conversion of a coordinate far outside traps.
    guard reach >= 0, x - reach >= 0, y - reach >= 0, x + reach <= Double(image.width - 1),
          y + reach <= Double(image.height - 1), image.pixels.count >= image.width * image.height * 3 else { return false }
    let x0 = Int((x - reach).rounded(.up)), x1 = Int((x + reach).rounded(.down))
    let y0 = Int((y - reach).rounded(.up)), y1 = Int((y + reach).rounded(.down))
    guard x0 <= x1, y0 <= y1 else { return false }
    image.pixels.withUnsafeBufferPointer { px in
        srgbToLinear.withUnsafeBufferPointer { table in
            for yy in y0...y1 {
                let dy = Double(yy) - y
                for xx in x0...x1 {
                    let dx = Double(xx) - x
                    let p = (yy * image.width + xx) * 3
                    body(dx * dx + dy * dy, 0.2126 * Double(table[Int(px[p])]) + 0.7152 * Double(table[Int(px[p + 1])])
                        + 0.0722 * Double(table[Int(px[p + 2])]))
                }
            }
        }
    }
    return true
}

/// How far a candidate's centre stands above its darkest annulus, as a fraction of the
/// background luminance, when that annulus lies 0.4 r or more from the centre (else 0): the
/// ring of a clear cell's dark rim round a lighter centre, at whatever radius the rim really
/// is. Blur spreads a small cell's rim outwards, so a detection's radius overshoots and the
/// fixed zones of `CellAppearance.ringContrast` (rim 0.6 r ... 1.1 r) then average the rim
/// with the background; the darkest annulus finds it. Debris is darkest at its middle or flat.
///
/// - Parameters:
///   - x, y, r: candidate centre and radius, image pixels; annuli out to 1.2 r.
///   - background: the reference linear luminance (`CellAppearance.backgroundLuminance`).
func clearRingDepth(_ image: Image, x: Double, y: Double, r: Double, background: Double) -> Double {
    guard r > 0, r < 1e6, let profile = radialLuminanceProfile(image, x: x, y: y, bins: Int(1.2 * r) + 1),
          let darkest = profile.indices.min(by: { profile[$0] < profile[$1] }),
          Double(darkest) >= 0.4 * r else { return 0 }
    return (profile[0] - profile[darkest]) / (background + 1e-3)
}
