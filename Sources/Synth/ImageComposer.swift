import Foundation
import Imaging

/// Turns a scene into 8-bit RGB: illumination x sample transmission x ruling, plus glare and
/// sensor noise. The ruling is evaluated per pixel through the image -> chamber map, so
/// rotation and perspective are exact.
struct ImageComposer {
    let scene: SynthScene

    func compose(_ layer: CellLayer, _ rng: inout SeededRandom) -> Image {
        let width = scene.width
        let look = scene.optics
        let ruling = scene.ruled ? RulingRenderer(scene: scene) : nil
        let illumination = Illumination(look: look, width: width, height: scene.height)
        let sensor = Sensor(noiseSigma: look.noiseSigma, monochrome: look.monochrome)
        let bg = (r: Float(look.background.r), g: Float(look.background.g), b: Float(look.background.b))

        var pixels = [UInt8](repeating: 0, count: width * scene.height * 3)
        // One row of each factor at a time: the inner loop below is a plain product.
        var light = [Float](repeating: 0, count: width)
        var lines = [Float](repeating: 1, count: width)
        var glare = [Float](repeating: 0, count: width)
        for y in 0..<scene.height {
            illumination.fill(&light, row: y)
            ruling?.fill(&lines, row: y)
            fillGlare(&glare, row: y)
            let rowStart = y * width
            pixels.withUnsafeMutableBufferPointer { out in
                layer.red.data.withUnsafeBufferPointer { tr in
                    layer.green.data.withUnsafeBufferPointer { tg in
                        layer.blue.data.withUnsafeBufferPointer { tb in
                            for x in 0..<width {
                                let i = rowStart &+ x
                                let scale = light[x] * lines[x]
                                sensor.record(red: bg.r * scale * tr[i] + glare[x], green: bg.g * scale * tg[i] + glare[x],
                                              blue: bg.b * scale * tb[i] + glare[x], into: out, at: i &* 3, &rng)
                            }
                        }
                    }
                }
            }
        }
        return Image(width: width, height: scene.height, pixels: pixels)
    }

    /// Additive glare of one row, 0...255 units (zero without glare).
    private func fillGlare(_ row: inout [Float], row y: Int) {
        guard let glare = scene.optics.glare else { return }
        let dy = Double(y) - glare.y
        let rowPeak = glare.peak * 255 * exp(-dy * dy / (2 * glare.sigma * glare.sigma))
        let inv = 1 / (2 * glare.sigma * glare.sigma)
        for x in row.indices {
            let dx = Double(x) - glare.x
            row[x] = rowPeak < 0.01 ? 0 : Float(rowPeak * exp(-dx * dx * inv))
        }
    }
}

/// The ruling's transmission factor per pixel, evaluated through the image -> chamber map so
/// rotation and perspective are exact.
private struct RulingRenderer {
    let full: GridProfileTable
    let fine: GridProfileTable
    /// Image px -> chamber µm, row-major 3 x 3.
    let inv: [Double]
    /// Lines are drawn only along the ruled area (plus the outer strokes of its border).
    let extentLo: Double
    let extentHi: Double

    init(scene: SynthScene) {
        let grid = scene.grid
        let peak = grid.darkLines ? -grid.strength : grid.strength
        full = GridProfileTable(strokesUm: ChamberRuling.fullStrokesUm(tripleOffsetUm: grid.tripleOffsetUm),
                                umPerPixel: scene.umPerPixel, widthPx: grid.widthPx, blurSigma: grid.blurSigma,
                                peak: peak, fringe: grid.fringe, fringeWidthPx: grid.fringeWidthPx)
        fine = GridProfileTable(strokesUm: ChamberRuling.centralSingleLinesUm, umPerPixel: scene.umPerPixel,
                                widthPx: max(0.8, grid.widthPx * 0.8), blurSigma: grid.blurSigma,
                                peak: peak * grid.fineLineFactor, fringe: grid.fringe * grid.fineLineFactor,
                                fringeWidthPx: grid.fringeWidthPx)
        inv = scene.chamberToImage.inverse.m
        extentLo = -grid.tripleOffsetUm - 2 * scene.umPerPixel
        extentHi = ChamberRuling.ruledAreaUm + grid.tripleOffsetUm + 2 * scene.umPerPixel
    }

    func fill(_ row: inout [Float], row y: Int) {
        let central = ChamberRuling.centralSpanUm
        let yd = Double(y)
        let m = inv
        full.values.withUnsafeBufferPointer { fullTable in
            fine.values.withUnsafeBufferPointer { fineTable in
                for x in row.indices {
                    let xd = Double(x)
                    let w = m[6] * xd + m[7] * yd + m[8]
                    let u = (m[0] * xd + m[1] * yd + m[2]) / w
                    let v = (m[3] * xd + m[4] * yd + m[5]) / w
                    // Vertical lines depend on u, horizontal ones on v; where they cross, the
                    // stronger effect wins.
                    var deltaV: Float = 0
                    var deltaH: Float = 0
                    if v >= extentLo && v <= extentHi {
                        deltaV = GridProfileTable.value(atUm: u, fullTable)
                        if central.contains(v) { deltaV += GridProfileTable.value(atUm: u, fineTable) }
                    }
                    if u >= extentLo && u <= extentHi {
                        deltaH = GridProfileTable.value(atUm: v, fullTable)
                        if central.contains(u) { deltaH += GridProfileTable.value(atUm: v, fineTable) }
                    }
                    row[x] = 1 + (abs(deltaH) > abs(deltaV) ? deltaH : deltaV)
                }
            }
        }
    }
}

/// The camera: signal-dependent Gaussian noise (variance a + b x value: read noise plus shot
/// noise, `noiseSigma` at mid-grey 128), 8-bit quantisation, optionally monochrome.
private struct Sensor {
    let a: Float
    let b: Float
    let monochrome: Bool

    init(noiseSigma: Double, monochrome: Bool) {
        let read = 0.4 * noiseSigma
        a = Float(read * read)
        b = Float((noiseSigma * noiseSigma - read * read) / 128)
        self.monochrome = monochrome
    }

    @inline(__always)
    func record(red: Float, green: Float, blue: Float, into out: UnsafeMutableBufferPointer<UInt8>, at o: Int,
                _ rng: inout SeededRandom) {
        if monochrome {
            // Rec. 601 luma, roughly the response of a mono sensor behind an IR filter.
            let grey = quantise(0.299 * red + 0.587 * green + 0.114 * blue, &rng)
            out[o] = grey
            out[o &+ 1] = grey
            out[o &+ 2] = grey
        } else {
            out[o] = quantise(red, &rng)
            out[o &+ 1] = quantise(green, &rng)
            out[o &+ 2] = quantise(blue, &rng)
        }
    }

    @inline(__always)
    private func quantise(_ value: Float, _ rng: inout SeededRandom) -> UInt8 {
        let sigma = (a + b * max(value, 0)).squareRoot()
        let v = value + sigma * rng.fastNormal()
        return UInt8(min(max(v + 0.5, 0), 255))
    }
}

/// Relative illumination: vignetting about an off-centre point, a linear slope and a
/// low-frequency mottle (separable cosines, precomputed per column and row).
private struct Illumination {
    let look: OpticsLook
    let width: Int
    let halfW: Double
    let halfH: Double
    let radius2: Double
    /// terms x columns / terms x rows, amplitude folded into the column factors.
    let columnTerms: [Double]
    let rowTerms: [Double]

    init(look: OpticsLook, width: Int, height: Int) {
        self.look = look
        self.width = width
        halfW = Double(width) / 2
        halfH = Double(height) / 2
        radius2 = halfW * halfW + halfH * halfH
        columnTerms = look.mottle.flatMap { m in (0..<width).map { m.amplitude * cos(m.fx * Double($0) + m.px) } }
        rowTerms = look.mottle.flatMap { m in (0..<height).map { cos(m.fy * Double($0) + m.py) } }
    }

    func fill(_ row: inout [Float], row y: Int) {
        let yd = Double(y)
        let dy = yd - look.vignetteCentre.y
        let slopeY = look.gradient.y * (yd - halfH) / halfH
        let height = rowTerms.count / max(look.mottle.count, 1)
        columnTerms.withUnsafeBufferPointer { columns in
            for x in 0..<width {
                let xd = Double(x)
                var mottle = 0.0
                for k in 0..<look.mottle.count {
                    mottle += columns[k &* width &+ x] * rowTerms[k &* height &+ y]
                }
                let dx = xd - look.vignetteCentre.x
                row[x] = Float((1 - look.vignetting * (dx * dx + dy * dy) / radius2)
                    * (1 + look.gradient.x * (xd - halfW) / halfW + slopeY) * (1 + mottle))
            }
        }
    }
}
