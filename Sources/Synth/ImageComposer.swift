import Foundation
import Imaging

/// Turns a scene into 8-bit RGB: illumination x sample transmission x ruling, plus glare and
/// sensor noise. The ruling is evaluated per pixel through the image -> chamber map, so
/// rotation and perspective are exact.
struct ImageComposer {
    let scene: SynthScene

    func compose(_ layer: CellLayer, _ rng: inout SeededRandom) -> Image {
        let width = scene.width
        let height = scene.height
        let grid = scene.grid
        let look = scene.optics
        let peak = grid.darkLines ? -grid.strength : grid.strength
        let full = GridProfileTable(strokesUm: ChamberRuling.fullStrokesUm(tripleOffsetUm: grid.tripleOffsetUm),
                                    umPerPixel: scene.umPerPixel, widthPx: grid.widthPx, blurSigma: grid.blurSigma,
                                    peak: peak, fringe: grid.fringe, fringeWidthPx: grid.fringeWidthPx)
        let fine = GridProfileTable(strokesUm: ChamberRuling.centralSingleLinesUm, umPerPixel: scene.umPerPixel,
                                    widthPx: max(0.8, grid.widthPx * 0.8), blurSigma: grid.blurSigma,
                                    peak: peak * grid.fineLineFactor, fringe: grid.fringe * grid.fineLineFactor,
                                    fringeWidthPx: grid.fringeWidthPx)
        let inv = scene.chamberToImage.inverse.m
        let extentLo = -grid.tripleOffsetUm - 2 * scene.umPerPixel
        let extentHi = ChamberRuling.ruledAreaUm + grid.tripleOffsetUm + 2 * scene.umPerPixel
        let central = ChamberRuling.centralSpanUm
        let monochrome = look.monochrome

        let illumination = Illumination(look: look, width: width, height: height)
        let bg = (Float(look.background.r), Float(look.background.g), Float(look.background.b))

        // Noise variance a + b * value: read noise plus shot noise, sigma = noiseSigma at 128.
        let readSigma = 0.4 * look.noiseSigma
        let noiseA = Float(readSigma * readSigma)
        let noiseB = Float((look.noiseSigma * look.noiseSigma - readSigma * readSigma) / 128)

        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var glareRow = [Float](repeating: 0, count: width)
        var lightRow = [Float](repeating: 0, count: width)
        pixels.withUnsafeMutableBufferPointer { out in
            full.values.withUnsafeBufferPointer { fullTable in
                fine.values.withUnsafeBufferPointer { fineTable in
                    layer.red.data.withUnsafeBufferPointer { tr in
                        layer.green.data.withUnsafeBufferPointer { tg in
                            layer.blue.data.withUnsafeBufferPointer { tb in
                                glareRow.withUnsafeMutableBufferPointer { glare in
                                  lightRow.withUnsafeMutableBufferPointer { lights in
                                    for y in 0..<height {
                                        let yd = Double(y)
                                        fillGlare(glare, y: yd)
                                        illumination.fill(lights, row: y)
                                        for x in 0..<width {
                                            let xd = Double(x)
                                            let light = lights[x]
                                            let w = inv[6] * xd + inv[7] * yd + inv[8]
                                            let u = (inv[0] * xd + inv[1] * yd + inv[2]) / w
                                            let v = (inv[3] * xd + inv[4] * yd + inv[5]) / w
                                            // Vertical lines depend on u, horizontal ones on v; where they
                                            // cross, the stronger effect wins.
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
                                            let ruling = 1 + (abs(deltaH) > abs(deltaV) ? deltaH : deltaV)
                                            let i = y &* width &+ x
                                            let g = glare[x]
                                            let scale = light * ruling
                                            let o = i &* 3
                                            let red = bg.0 * scale * tr[i] + g
                                            let green = bg.1 * scale * tg[i] + g
                                            let blue = bg.2 * scale * tb[i] + g
                                            if monochrome {
                                                // Rec. 601 luma, the weighting of a typical mono sensor + IR filter.
                                                let grey = noisy(0.299 * red + 0.587 * green + 0.114 * blue, noiseA, noiseB, &rng)
                                                out[o] = grey
                                                out[o &+ 1] = grey
                                                out[o &+ 2] = grey
                                            } else {
                                                out[o] = noisy(red, noiseA, noiseB, &rng)
                                                out[o &+ 1] = noisy(green, noiseA, noiseB, &rng)
                                                out[o &+ 2] = noisy(blue, noiseA, noiseB, &rng)
                                            }
                                        }
                                    }
                                  }
                                }
                            }
                        }
                    }
                }
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// Additive glare of one row, 0...255 units (zero without glare).
    private func fillGlare(_ row: UnsafeMutableBufferPointer<Float>, y: Double) {
        guard let glare = scene.optics.glare else { return }
        let dy = y - glare.y
        let rowPeak = glare.peak * 255 * exp(-dy * dy / (2 * glare.sigma * glare.sigma))
        let inv = 1 / (2 * glare.sigma * glare.sigma)
        for x in 0..<row.count {
            let dx = Double(x) - glare.x
            row[x] = rowPeak < 0.01 ? 0 : Float(rowPeak * exp(-dx * dx * inv))
        }
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

    func fill(_ row: UnsafeMutableBufferPointer<Float>, row y: Int) {
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

/// Adds signal-dependent Gaussian noise and quantises to 8 bits with rounding.
@inline(__always)
private func noisy(_ value: Float, _ a: Float, _ b: Float, _ rng: inout SeededRandom) -> UInt8 {
    let sigma = (a + b * max(value, 0)).squareRoot()
    let v = value + sigma * rng.fastNormal()
    return UInt8(min(max(v + 0.5, 0), 255))
}
