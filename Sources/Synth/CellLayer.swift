import Foundation

/// The sample's transmission: three planes (R, G, B), 1 = clear, multiplied by every cell,
/// particle and fibre, then defocused together (they float in the same fluid layer).
struct CellLayer {
    var red: FloatPlane
    var green: FloatPlane
    var blue: FloatPlane

    init(width: Int, height: Int) {
        red = FloatPlane(width: width, height: height, value: 1)
        green = red
        blue = red
    }

    var width: Int { red.width }
    var height: Int { red.height }

    mutating func draw(_ scene: SynthScene) {
        let tint = scene.optics.bodyTint
        let stain = scene.optics.stainColour
        // Live cells are phase objects: defocus spreads their rim and centre but does not wash
        // them out the way blurring an absorbing object would (it can even raise contrast).
        // Pre-emphasising the refractive features by most of the peak loss that blurring a
        // 0.64 px (standard deviation) rim causes keeps blurred live cells about as visible
        // as under a real defocused objective.
        let sigma = scene.optics.cellBlurSigma
        let emphasis = min(3, max(1, 0.6 * (1 + (sigma * sigma) / (0.64 * 0.64)).squareRoot()))
        for cell in scene.cells { drawCell(cell, tint: tint, stain: stain, emphasis: emphasis) }
        for dust in scene.dust { drawDust(dust) }
        for speck in scene.specks { drawSpeck(speck, tint: tint) }
        var coverage = FloatPlane(width: width, height: height, value: 0)
        for fibre in scene.fibres { stampFibre(fibre, into: &coverage) }
        for s in scene.scratches {
            let straight = FibreSpec(points: [(s.x0, s.y0), ((s.x0 + s.x1) / 2, (s.y0 + s.y1) / 2), (s.x1, s.y1)],
                                     width: s.width, darkness: s.darkness)
            stampFibre(straight, into: &coverage)
        }
        applyCoverage(coverage, tint: tint)
        gaussianBlur(&red, sigma: scene.optics.cellBlurSigma)
        gaussianBlur(&green, sigma: scene.optics.cellBlurSigma)
        gaussianBlur(&blue, sigma: scene.optics.cellBlurSigma)
    }

    /// Visits every pixel within `extent` px of (cx, cy) with its offset, passing mutable
    /// access to the three planes at that pixel.
    private mutating func forEachPixel(cx: Double, cy: Double, extent: Double,
                                       _ body: (Double, Double, inout Float, inout Float, inout Float) -> Void) {
        let x0 = max(0, Int((cx - extent).rounded(.down)))
        let x1 = min(width - 1, Int((cx + extent).rounded(.up)))
        let y0 = max(0, Int((cy - extent).rounded(.down)))
        let y1 = min(height - 1, Int((cy + extent).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        let w = width
        red.data.withUnsafeMutableBufferPointer { r in
            green.data.withUnsafeMutableBufferPointer { g in
                blue.data.withUnsafeMutableBufferPointer { b in
                    for y in y0...y1 {
                        let dy = Double(y) - cy
                        for x in x0...x1 {
                            let i = y &* w &+ x
                            body(Double(x) - cx, dy, &r[i], &g[i], &b[i])
                        }
                    }
                }
            }
        }
    }

    /// A cell as a bright-field microscope shows it: live cells have a bright refractile
    /// centre, a dark membrane rim and a faint halo; dead cells take up trypan blue (absorbing
    /// red and green) and show a weak rim and no bright centre. Profiles are functions of the
    /// normalised elliptical radius rho (1 at the outline).
    private mutating func drawCell(_ c: CellSpec, tint: (r: Double, g: Double, b: Double),
                                   stain: (r: Double, g: Double, b: Double), emphasis: Double) {
        let ca = cos(c.angle)
        let sa = sin(c.angle)
        let invA = 1 / c.semiMajor
        let invB = 1 / c.semiMinor
        let cl = cos(3 * c.lobePhase)
        let sl = sin(3 * c.lobePhase)
        // The rim is about 1 px wide whatever the cell size.
        let rimWidth = max(0.1, 0.9 / c.radius)
        let edge = max(0.04, 0.45 / c.radius)
        let extent = 1.6 * c.semiMajor + 2
        forEachPixel(cx: c.x, cy: c.y, extent: extent) { dx, dy, r, g, b in
            let u = (dx * ca + dy * sa) * invA
            let v = (-dx * sa + dy * ca) * invB
            let rho0 = (u * u + v * v).squareRoot()
            guard rho0 < 1.6 else { return }
            var rho = rho0
            if rho0 > 1e-6 {
                let cs = u / rho0
                let sn = v / rho0
                let cos3 = 4 * cs * cs * cs - 3 * cs
                let sin3 = 3 * sn - 4 * sn * sn * sn
                rho = rho0 * (1 - c.lobeAmplitude * (cos3 * cl + sin3 * sl))
            }
            let inside = 1 / (1 + exp((rho - 1) / edge))
            let rimOffset = (rho - 0.93) / rimWidth
            let haloOffset = (rho - 1.22) / 0.16
            let rim = c.rimStrength * exp(-rimOffset * rimOffset)
            let halo = c.haloStrength * exp(-haloOffset * haloOffset)
            let boost = c.isDead ? 1 : emphasis
            if c.isDead {
                // The stain is a little denser towards the edge of the shrunken cell.
                let dye = c.bodyStrength * inside * (0.85 + 0.15 * min(rho * rho, 1))
                r *= Float(max(0.02, (1 - dye * stain.r) * (1 - rim + halo)))
                g *= Float(max(0.02, (1 - dye * stain.g) * (1 - rim + halo)))
                b *= Float(max(0.02, (1 - dye * stain.b) * (1 - rim + halo)))
            } else {
                let centre = c.centreGain * exp(-(rho * rho) / (0.42 * 0.42))
                let common = 1 + (centre - rim + halo) * boost
                let body = c.bodyStrength * inside
                r *= Float(max(0.02, common - body * tint.r))
                g *= Float(max(0.02, common - body * tint.g))
                b *= Float(max(0.02, common - body * tint.b))
            }
        }
    }

    /// A faint out-of-focus ring (dust on a lens).
    private mutating func drawDust(_ d: DustSpec) {
        let inv = 1 / d.radius
        forEachPixel(cx: d.x, cy: d.y, extent: 1.5 * d.radius) { dx, dy, r, g, b in
            let rho = (dx * dx + dy * dy).squareRoot() * inv
            let o = (rho - 0.8) / 0.25
            let f = Float(1 - d.amplitude * exp(-o * o))
            r *= f
            g *= f
            b *= f
        }
    }

    private mutating func drawSpeck(_ s: SpeckSpec, tint: (r: Double, g: Double, b: Double)) {
        let ca = cos(s.angle)
        let sa = sin(s.angle)
        let invA = 1 / s.semiMajor
        let invB = 1 / s.semiMinor
        forEachPixel(cx: s.x, cy: s.y, extent: 2 * s.semiMajor + 1.5) { dx, dy, r, g, b in
            let u = (dx * ca + dy * sa) * invA
            let v = (-dx * sa + dy * ca) * invB
            // Soft-edged blob: a Gaussian of the elliptical radius, at least a pixel wide.
            let q = u * u + v * v
            let k = s.contrast * exp(-q * 1.2)
            r *= Float(max(0.05, 1 + k * tint.r))
            g *= Float(max(0.05, 1 + k * tint.g))
            b *= Float(max(0.05, 1 + k))
        }
    }

    /// Stamps a fibre as a max-coverage line so overlapping stamps do not darken twice.
    private func stampFibre(_ f: FibreSpec, into coverage: inout FloatPlane) {
        guard f.points.count == 3 else { return }
        let (p0, p1, p2) = (f.points[0], f.points[1], f.points[2])
        let approxLength = hypot(p1.x - p0.x, p1.y - p0.y) + hypot(p2.x - p1.x, p2.y - p1.y)
        let steps = max(2, Int(approxLength * 2))
        let half = f.width / 2
        let w = coverage.width
        let h = coverage.height
        coverage.data.withUnsafeMutableBufferPointer { cov in
            for k in 0...steps {
                let t = Double(k) / Double(steps)
                let a = (1 - t) * (1 - t)
                let b = 2 * (1 - t) * t
                let c = t * t
                let x = a * p0.x + b * p1.x + c * p2.x
                let y = a * p0.y + b * p1.y + c * p2.y
                let x0 = max(0, Int((x - half - 1).rounded(.down)))
                let x1 = min(w - 1, Int((x + half + 1).rounded(.up)))
                let y0 = max(0, Int((y - half - 1).rounded(.down)))
                let y1 = min(h - 1, Int((y + half + 1).rounded(.up)))
                guard x0 <= x1, y0 <= y1 else { continue }
                for py in y0...y1 {
                    for px in x0...x1 {
                        let d = hypot(Double(px) - x, Double(py) - y)
                        let value = Float(f.darkness * min(1, max(0, half + 0.5 - d)))
                        let i = py &* w &+ px
                        if value > cov[i] { cov[i] = value }
                    }
                }
            }
        }
    }

    private mutating func applyCoverage(_ coverage: FloatPlane, tint: (r: Double, g: Double, b: Double)) {
        CellLayer.multiply(&red, by: coverage, weight: Float(tint.r))
        CellLayer.multiply(&green, by: coverage, weight: Float(tint.g))
        CellLayer.multiply(&blue, by: coverage, weight: 1)
    }

    private static func multiply(_ plane: inout FloatPlane, by coverage: FloatPlane, weight: Float) {
        coverage.data.withUnsafeBufferPointer { cov in
            plane.data.withUnsafeMutableBufferPointer { t in
                for i in 0..<t.count where cov[i] > 0 {
                    t[i] *= max(0.05, 1 - cov[i] * weight)
                }
            }
        }
    }
}
