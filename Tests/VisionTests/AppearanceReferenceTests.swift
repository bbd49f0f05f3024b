import Testing
import Imaging
@testable import Vision

/// `measureAppearance`'s zone runs against the plain per-sample zone tests written out here:
/// every field must come out bit for bit the same.
@Suite("Appearance reference")
struct AppearanceReferenceTests {
    /// The measurement as first written: every sample of the window tested against each zone.
    static func referenceAppearance(_ image: Image, x: Double, y: Double, r: Double) -> CellAppearance {
        let w = image.width
        // (The window and zones are the measurement's own; the per-sample tests are the reference.)
        let z = AppearanceZones(image, x: x, y: y, r: r)
        let (step, x0, x1, y0, y1, ri2, rc2, rr2, ra2, rb2) = (z.step, z.x0, z.x1, z.y0, z.y1, z.ri2, z.rc2, z.rr2, z.ra2, z.rb2)
        var inner = (r: 0.0, g: 0.0, b: 0.0, lum: 0.0, n: 0.0)
        var ring = (r: 0.0, g: 0.0, b: 0.0, lum: 0.0, n: 0.0)
        var centreMax = 0.0, centreSum = 0.0, centreCount = 0.0, rimSum = 0.0, rimCount = 0.0
        guard x0 <= x1, y0 <= y1 else { return CellAppearance(hueDeg: 0, saturation: 0, interiorContrast: 0, centreContrast: 0) }
        for (row, yy) in stride(from: y0, through: y1, by: step).enumerated() {
            let dy = Double(yy) - y
            for (column, xx) in stride(from: x0, through: x1, by: step).enumerated() {
                let dx = Double(xx) - x
                let d2 = dx * dx + dy * dy
                // The background annulus: every other row and column of the lattice.
                let ringSample = row % 2 == 0 && column % 2 == 0
                guard d2 <= rr2 || (ringSample && d2 >= ra2 && d2 <= rb2) else { continue }
                let p = (yy * w + xx) * 3
                let lr = Double(srgbToLinear[Int(image.pixels[p])]), lg = Double(srgbToLinear[Int(image.pixels[p + 1])])
                let lb = Double(srgbToLinear[Int(image.pixels[p + 2])])
                let lum = 0.2126 * lr + 0.7152 * lg + 0.0722 * lb
                if d2 <= ri2 {
                    inner.r += lr; inner.g += lg; inner.b += lb; inner.lum += lum; inner.n += 1
                    if d2 <= rc2 {
                        centreMax = max(centreMax, lum)
                        centreSum += lum
                        centreCount += 1
                    }
                } else if d2 <= rr2 {
                    rimSum += lum
                    rimCount += 1
                } else {
                    ring.r += lr; ring.g += lg; ring.b += lb; ring.lum += lum; ring.n += 1
                }
            }
        }
        return appearance(inner: inner, ring: ring, centreMax: centreMax, centreSum: centreSum, centreCount: centreCount,
                          rimSum: rimSum, rimCount: rimCount)
    }

    static func same(_ a: CellAppearance, _ b: CellAppearance) -> Bool {
        a.hueDeg.bitPattern == b.hueDeg.bitPattern && a.saturation.bitPattern == b.saturation.bitPattern
            && a.interiorContrast.bitPattern == b.interiorContrast.bitPattern
            && a.centreContrast.bitPattern == b.centreContrast.bitPattern
            && a.ringContrast.bitPattern == b.ringContrast.bitPattern
    }

    @Test func zoneRunsMatchThePerSampleTests() {
        let w = 97, h = 83
        var state: UInt64 = 12_345
        @inline(__always) func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let pixels = (0..<(w * h * 3)).map { _ in UInt8(truncatingIfNeeded: next()) }
        let image = Image(width: w, height: h, pixels: pixels)
        // Integer, half-integer and arbitrary centres, inside and across every border; radii
        // from none to past the window subsampling (step > 1 from r = 12).
        var checked = 0
        for trial in 0..<3000 {
            let r: Double = trial % 50 == 0 ? 0 : Double(next() % 4000) / 100
            var x = Double(next() % 12_000) / 100 - 10, y = Double(next() % 10_000) / 100 - 8
            if trial % 3 == 0 { x = x.rounded(); y = y.rounded() } else if trial % 3 == 1 { x = x.rounded() + 0.5 }
            let want = Self.referenceAppearance(image, x: x, y: y, r: r)
            let got = measureAppearance(image, x: x, y: y, r: r)
            #expect(Self.same(got, want), "x \(x) y \(y) r \(r)")
            checked += 1
        }
        #expect(checked == 3000)
    }
}
