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
    let inside = forEachLuminance(image, x: x, y: y, reach: Double(bins)) { dx, dy, luminance in
        let k = Int((dx * dx + dy * dy).squareRoot())
        guard k < bins else { return }
        sums[k] += luminance
        counts[k] += 1
    }
    guard inside, !counts.contains(0) else { return nil }
    return zip(sums, counts).map { $0 / $1 }
}

/// Calls `body` with the offset (dx, dy) from (x, y) and the linear luminance of every pixel
/// of the square of half-side `reach` round it, row by row, left to right. False, and no
/// call, when that square leaves the image or holds no pixel centre.
///
/// - Parameters:
///   - x, y, reach: centre and half-side, image pixels.
@inline(__always)
func forEachLuminance(_ image: Image, x: Double, y: Double, reach: Double, _ body: (Double, Double, Double) -> Void) -> Bool {
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
                    body(dx, dy, 0.2126 * Double(table[Int(px[p])]) + 0.7152 * Double(table[Int(px[p + 1])])
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

/// How many of 16 sectors round a candidate show a dark disc inside a bright halo: the mean
/// linear luminance of the sector's annulus 1.05 ... 1.45 r out lies at least `contrast`
/// (fraction) above the background and that of its annulus 0.55 ... 0.9 r out at least
/// `contrast` below it, the background being the median of the 16 sectors' means
/// 1.8 ... 2.5 r out. 0 when that reach leaves the image.
///
/// Why: a live cell is refractile. In focus it shows a bright centre inside a dark rim; a
/// little out of focus the other way it shows as a grey disc inside a bright halo, which the
/// debris rule would take for a dark unstained blob. Debris absorbs light and draws no halo,
/// and a speck smaller than the candidate leaves its edge annulus at the background's level.
///
/// A sector whose outer annulus lies `blockedDarkness` or more below the background is blocked:
/// a ruling line or a neighbour crosses it, and darkens the halo there too. Where at least
/// `minOpenSectors` sectors are open, the count is also taken over the open ones and scaled to
/// 16, and the larger of the two is returned: a cell beside a heavy line shows its halo in the
/// sectors the line leaves free.
///
/// - Parameters:
///   - x, y, r: candidate centre and radius, image pixels.
///   - contrast: how far the halo and the disc's edge must stand from the background
///     (0.03 = 3 %).
///   - blockedDarkness: fraction below the background that blocks a sector; 0 = none is.
///   - minOpenSectors: open sectors needed for the scaled count.
///   - excused: 16 flags (sector k spanning angles k ... k + 1 times 22.5 degrees), or empty:
///     sectors a touching cell fills (`TouchingNeighbours`), where no halo can show. With any
///     set, the count is also taken over the others (at least `minExcusedOpen` of them) and
///     scaled to 16, and the largest count is returned.
func haloSectors(_ image: Image, x: Double, y: Double, r: Double, contrast: Double,
                 blockedDarkness: Double = 0, minOpenSectors: Int = 16,
                 excused: [Bool] = [], minExcusedOpen: Int = 16) -> Int {
    guard r > 0, r < 1e6 else { return 0 }
    let sectorOf = SectorLocator(sectors: 16)
    // Per sector, sum and count of each annulus.
    var edge = [Double](repeating: 0, count: 32), halo = edge, outer = edge
    let r2 = r * r
    let edgeRange = (0.55 * 0.55 * r2)...(0.9 * 0.9 * r2)
    let haloRange = (1.05 * 1.05 * r2)...(1.45 * 1.45 * r2), outerRange = (1.8 * 1.8 * r2)...(2.5 * 2.5 * r2)
    guard forEachLuminance(image, x: x, y: y, reach: 2.5 * r, { dx, dy, luminance in
        let d2 = dx * dx + dy * dy
        guard d2 >= edgeRange.lowerBound else { return }
        let k = 2 * sectorOf(dx: dx, dy: dy)
        if edgeRange.contains(d2) {
            edge[k] += luminance
            edge[k + 1] += 1
        } else if haloRange.contains(d2) {
            halo[k] += luminance
            halo[k + 1] += 1
        } else if outerRange.contains(d2) {
            outer[k] += luminance
            outer[k + 1] += 1
        }
    }) else { return 0 }
    let outerMeans = stride(from: 0, to: 32, by: 2).compactMap { outer[$0 + 1] > 0 ? outer[$0] / outer[$0 + 1] : nil }.sorted()
    guard !outerMeans.isEmpty else { return 0 }
    let background = 0.5 * (outerMeans[(outerMeans.count - 1) / 2] + outerMeans[outerMeans.count / 2])
    let bright = background * (1 + contrast), dark = background * (1 - contrast)
    let blocked = background * (1 - blockedDarkness)
    var sectors = 0, open = 0, openShowing = 0, free = 0, freeShowing = 0
    let excusing = excused.count == 16 && excused.contains(true)
    for k in stride(from: 0, to: 32, by: 2) where halo[k + 1] > 0 && edge[k + 1] > 0 {
        let haloMean = halo[k] / halo[k + 1], edgeMean = edge[k] / edge[k + 1]
        let shows = haloMean > bright && edgeMean < dark
        if shows { sectors += 1 }
        if excusing && !excused[k / 2] {
            free += 1
            if shows { freeShowing += 1 }
        }
        guard blockedDarkness > 0, outer[k + 1] > 0, outer[k] / outer[k + 1] >= blocked else { continue }
        open += 1
        if shows { openShowing += 1 }
    }
    if excusing && free >= minExcusedOpen && free > 0 { sectors = max(sectors, freeShowing * 16 / free) }
    guard blockedDarkness > 0, open >= minOpenSectors, open > 0, open < 16 else { return sectors }
    return max(sectors, openShowing * 16 / open)
}
