import Foundation

/// How a line family's projection shows in the two halves of the plane, cut along the lines
/// (top and bottom halves for lines nearer vertical, left and right otherwise): each half
/// projected onto the family's normal and detrended over one period.
///
/// Why: a ruling line runs through both halves at the same place, so where both halves show
/// structure their profiles agree; the peaks a few cells or specks give a projection lie in
/// one half or the other and do not. A small view with a handful of cells and no ruling can
/// show a periodic-looking profile by chance: the autocorrelation test alone accepted a ruling
/// in 51 of ldc-maxkudi's 246 crops, most of which show no line at all. A view where the
/// ruled area ends (a corner of it in view) shows lines in one half only: there the other
/// half is nearly flat, which says nothing against the lines.
struct HalfProfileAgreement: Equatable {
    /// Best Pearson correlation of the halves' profiles over shifts within a twentieth of a
    /// period either way (lines seen in perspective converge, so a line's place may differ
    /// between the halves by a few pixels), -1 ... 1.
    let correlation: Double
    /// Mean square of the weaker half's profile over the stronger's, 0 ... 1.
    let energyRatio: Double

    /// Both halves show structure (energy ratio at least `minEnergyRatio`) and it does not
    /// line up (correlation below `minCorrelation`).
    func contradicts(minCorrelation: Double, minEnergyRatio: Double = 0.1) -> Bool {
        energyRatio >= minEnergyRatio && correlation < minCorrelation
    }

    /// - Parameters:
    ///   - normalAngle: the family's normal, radians.
    ///   - period: the family's line spacing, pixels (detrending window, shift range).
    /// - Returns: nil when a half is under 8 pixels either way, or the profiles overlap by
    ///   less than two periods at every shift.
    init?(_ plane: Plane, normalAngle: Double, period: Double) {
        let w = plane.width, h = plane.height
        let c = cos(normalAngle), s = sin(normalAngle)
        // Lines run along (-s, c): nearer vertical when |c| >= |s|, then cut top / bottom.
        let halves: [(x0: Int, y0: Int, width: Int, height: Int)] = abs(c) >= abs(s)
            ? [(0, 0, w, h / 2), (0, h / 2, w, h - h / 2)]
            : [(0, 0, w / 2, h), (w / 2, 0, w - w / 2, h)]
        guard period.isFinite, period > 0, halves.allSatisfy({ $0.width >= 8 && $0.height >= 8 }) else { return nil }
        let window = max(1, Int((period / 2).rounded()))
        let profiles: [(values: [Double], origin: Int)] = halves.map { half in
            let sub = Plane(width: half.width, height: half.height) { out in
                plane.data.withUnsafeBufferPointer { src in
                    for y in 0..<half.height {
                        for x in 0..<half.width { out[y * half.width + x] = src[(half.y0 + y) * w + half.x0 + x] }
                    }
                }
            }
            let (profile, origin) = projectionProfile(sub, normalAngle: normalAngle)
            // Bin k of the half covers the full plane's coordinate origin + shift + k along the normal.
            let start = origin + Double(half.x0) * c + Double(half.y0) * s
            return (detrendedProfile(profile, halfWindow: window), Int(start.rounded()))
        }
        let (a, b) = (profiles[0], profiles[1])
        let maxShift = max(1, Int((0.05 * period).rounded()))
        var best: Double?
        for shift in -maxShift...maxShift {
            let lo = max(a.origin, b.origin + shift), hi = min(a.origin + a.values.count, b.origin + shift + b.values.count)
            guard Double(hi - lo) >= 2 * period else { continue }
            var sab = 0.0, saa = 0.0, sbb = 0.0
            for k in lo..<hi {
                let va = a.values[k - a.origin], vb = b.values[k - b.origin - shift]
                sab += va * vb
                saa += va * va
                sbb += vb * vb
            }
            guard saa > 0, sbb > 0 else { continue }
            let r = sab / (saa * sbb).squareRoot()
            if best.map({ r > $0 }) ?? true { best = r }
        }
        guard let best else { return nil }
        func meanSquare(_ v: [Double]) -> Double { v.reduce(0) { $0 + $1 * $1 } / Double(max(1, v.count)) }
        let ea = meanSquare(a.values), eb = meanSquare(b.values)
        correlation = best
        energyRatio = max(ea, eb) > 0 ? min(ea, eb) / max(ea, eb) : 0
    }
}
