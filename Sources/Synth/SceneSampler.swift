import Foundation

/// Draws a random scene for a preset. Every choice comes from `rng`, in a fixed order, so
/// a seed fully determines the fixture.
struct SceneSampler {
    var preset: SynthPreset
    var width: Int
    var height: Int
    /// False: the ruling is not drawn (`SynthScene.ruled`), and the tags that describe it are
    /// not given; the stream is drawn alike, so cells and optics are those of the ruled scene.
    var ruled = true

    func sample(_ rng: inout SeededRandom) -> SynthScene {
        let p = preset.parameters
        let megapixels = Double(width * height) / 1e6

        // Calibration: a typical cell radius in µm and in px fixes the scale, so cell sizes
        // agree with umPerPixel (r 5.5-10 px on average, as at 1920x1080 in the acceptance set).
        let meanRadiusPx = rng.uniform(5.5, 10)
        let meanRadiusUm = rng.uniform(6, 8.5)
        let umPerPixel = meanRadiusUm / meanRadiusPx

        let (chamberToImage, rotation, perspective) = placeGrid(p, umPerPixel: umPerPixel, &rng)
        let grid = gridLook(p, &rng)
        let optics = opticsLook(p, &rng)

        let contrast = rng.uniform(p.cellContrast)
        let deadFraction = rng.uniform(p.deadFraction)
        let density = rng.uniform(p.cellsPerMegapixel)
        let clumpFraction = rng.uniform(p.clumpFraction)
        let target = Int((density * megapixels).rounded())
        let style = CellStyle(contrast: contrast, rng: &rng)
        var placer = CellPlacer(width: width, height: height)
        let cells = placer.place(count: target, clumpFraction: clumpFraction, deadFraction: deadFraction,
                                 meanRadius: meanRadiusPx, style: style, &rng)

        var specks: [SpeckSpec] = []
        for _ in 0..<Int((rng.uniform(p.debrisPerMegapixel) * megapixels).rounded()) {
            let first = speck(&rng)
            specks.append(first)
            // Now and then an irregular aggregate about the size of a cell: a few specks
            // huddled together, which a detector must not take for a cell.
            if rng.chance(0.08) {
                let spread = rng.uniform(2.5, 7)
                for _ in 0..<rng.int(2...6) {
                    var part = speck(&rng)
                    part.x = first.x + rng.uniform(-spread, spread)
                    part.y = first.y + rng.uniform(-spread, spread)
                    part.contrast = first.contrast * rng.uniform(0.6, 1.1)
                    specks.append(part)
                }
            }
        }
        let fibres = (0..<rng.int(p.fibres)).map { _ in fibre(&rng) }
        let dust = (0..<rng.int(0...3)).map { _ in
            DustSpec(x: rng.uniform(0, Double(width)), y: rng.uniform(0, Double(height)),
                     radius: rng.uniform(14, 40), amplitude: rng.uniform(0.015, 0.05))
        }
        let scratches = (0..<(rng.chance(0.35) ? rng.int(1...2) : 0)).map { _ in scratch(&rng) }
        let dilution = [1.0, 1.0, 2.0, 2.0, 4.0, 10.0][rng.int(0...5)]

        var tags = [preset.rawValue]
        if preset == .blank { tags.append("blank-control") }
        if density >= 400 && preset != .dense { tags.append("dense") }
        if cells.count > 0 && density < 30 && preset != .sparse { tags.append("sparse") }
        if deadFraction >= 0.5 && !cells.isEmpty && preset != .deadHeavy { tags.append("dead-heavy") }
        if (optics.cellBlurSigma >= 1.5 || (ruled && grid.blurSigma >= 2)) && preset != .blurred { tags.append("blurred") }
        if ruled && (abs(rotation) >= 3 || perspective >= 3e-5) && preset != .tilted { tags.append("tilted") }
        if optics.glare != nil { tags.append("glare") }
        if ruled && grid.strength >= 0.6 && grid.widthPx >= 2 { tags.append("heavy-grid") }
        if ruled && !grid.darkLines { tags.append("bright-grid") }
        if clumpFraction >= 0.15 && !cells.isEmpty { tags.append("clumps") }
        if optics.monochrome { tags.append("greyscale") }
        if !ruled { tags.append("no-ruling") }

        return SynthScene(width: width, height: height, umPerPixel: umPerPixel, chamberToImage: chamberToImage,
                          rotationDegrees: rotation, perspective: perspective, cells: cells, specks: specks,
                          fibres: fibres, dust: dust, scratches: scratches, grid: grid, optics: optics, dilution: dilution,
                          tags: tags, ruled: ruled)
    }

    /// Chamber -> image map: the image centre looks at a random chamber point, the ruling is
    /// scaled to `umPerPixel`, rotated and given a slight keystone about the image centre.
    private func placeGrid(_ p: PresetParameters, umPerPixel: Double,
                           _ rng: inout SeededRandom) -> (ProjectiveMap, Double, Double) {
        let ruled = ChamberRuling.ruledAreaUm
        let inside = rng.chance(0.85)
        let u0 = inside ? rng.uniform(250, ruled - 250) : rng.uniform(-300, ruled + 300)
        let v0 = inside ? rng.uniform(250, ruled - 250) : rng.uniform(-300, ruled + 300)
        let magnitude = rng.uniform(p.minRotationDegrees, p.maxRotationDegrees)
        let degrees = rng.chance(0.5) ? magnitude : -magnitude
        let strength = rng.uniform(0, p.maxPerspective)
        let direction = rng.uniform(0, 2 * Double.pi)
        let map = ProjectiveMap.translation(Double(width - 1) / 2, Double(height - 1) / 2)
            .after(.perspective(px: strength * cos(direction), py: strength * sin(direction)))
            .after(.scaleRotation(scale: 1 / umPerPixel, radians: degrees * Double.pi / 180))
            .after(.translation(-u0, -v0))
        return (map, degrees, strength)
    }

    private func gridLook(_ p: PresetParameters, _ rng: inout SeededRandom) -> GridLook {
        let heavy = rng.chance(p.heavyGridProbability)
        let dark = rng.chance(0.75)
        let strength = heavy ? rng.uniform(0.6, 0.85) : (dark ? rng.uniform(0.2, 0.6) : rng.uniform(0.12, 0.6))
        let widthPx = heavy ? rng.uniform(2.2, 5.0) : rng.uniform(0.9, 2.6)
        let darkLines = dark || heavy
        // Bright lines nearly always show dark edges; dark lines now and then a bright halo.
        let fringe = darkLines ? (rng.chance(0.3) ? rng.uniform(0.03, 0.12) : 0) : rng.uniform(0.08, 0.3)
        return GridLook(darkLines: darkLines, strength: strength, widthPx: widthPx,
                        blurSigma: rng.uniform(p.gridBlurSigma), tripleOffsetUm: rng.uniform(3.5, 6.5),
                        fineLineFactor: rng.uniform(0.55, 1.0), fringe: fringe, fringeWidthPx: rng.uniform(0.8, 2.5))
    }

    private func opticsLook(_ p: PresetParameters, _ rng: inout SeededRandom) -> OpticsLook {
        // Warm grey by default; other casts (neutral, cool, green, magenta) for variety.
        let level = rng.uniform(120, 220)
        let casts: [(Double, Double, Double)] = [(1.0, 0.96, 0.86), (1.0, 0.97, 0.90), (1.0, 1.0, 1.0),
                                                 (0.94, 0.98, 1.0), (0.95, 1.0, 0.93), (1.0, 0.93, 0.97),
                                                 (0.93, 0.92, 0.68)]
        let cast = casts[rng.int(0...(casts.count - 1))]
        let jitter = { (rng: inout SeededRandom) in rng.uniform(0.97, 1.03) }
        let background = (level * cast.0 * jitter(&rng), level * cast.1 * jitter(&rng), level * cast.2 * jitter(&rng))
        let w = Double(width)
        let h = Double(height)
        let mottle = (0..<3).map { _ in
            (amplitude: rng.uniform(0.005, 0.03), fx: rng.uniform(0.5, 3) * 2 * Double.pi / w,
             fy: rng.uniform(0.5, 3) * 2 * Double.pi / h, px: rng.uniform(0, 2 * Double.pi),
             py: rng.uniform(0, 2 * Double.pi))
        }
        var glare: (x: Double, y: Double, sigma: Double, peak: Double)? = nil
        if rng.chance(p.glareProbability) {
            glare = (rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.04, 0.15) * w, rng.uniform(0.15, 0.6))
        }
        let stain = (rng.uniform(0.75, 0.95), rng.uniform(0.55, 0.8), rng.uniform(0.12, 0.35))
        let tint = (rng.uniform(0.95, 1.05), rng.uniform(0.95, 1.05), rng.uniform(1.0, 1.2))
        return OpticsLook(background: background, vignetting: rng.uniform(p.vignetting),
                          vignetteCentre: (rng.uniform(0.35, 0.65) * w, rng.uniform(0.35, 0.65) * h),
                          gradient: (rng.uniform(-0.08, 0.08), rng.uniform(-0.08, 0.08)), mottle: mottle,
                          cellBlurSigma: rng.uniform(p.cellBlurSigma), noiseSigma: rng.uniform(p.noiseSigma),
                          glare: glare, stainColour: stain, bodyTint: tint,
                          monochrome: rng.chance(p.monochromeProbability))
    }

    private func speck(_ rng: inout SeededRandom) -> SpeckSpec {
        let major = rng.uniform(0.7, 3.2)
        let bright = rng.chance(0.15)
        return SpeckSpec(x: rng.uniform(0, Double(width)), y: rng.uniform(0, Double(height)),
                         semiMajor: major, semiMinor: major * rng.uniform(0.35, 1), angle: rng.uniform(0, Double.pi),
                         contrast: bright ? rng.uniform(0.1, 0.35) : -rng.uniform(0.2, 0.7))
    }

    /// A long straight scratch crossing much of the picture at any angle.
    private func scratch(_ rng: inout SeededRandom) -> ScratchSpec {
        let w = Double(width)
        let h = Double(height)
        let cx = rng.uniform(0, w)
        let cy = rng.uniform(0, h)
        let a = rng.uniform(0, Double.pi)
        let half = rng.uniform(0.3, 1.0) * (w * w + h * h).squareRoot()
        return ScratchSpec(x0: cx - half * cos(a), y0: cy - half * sin(a), x1: cx + half * cos(a), y1: cy + half * sin(a),
                           width: rng.uniform(1, 3), darkness: rng.uniform(0.02, 0.08))
    }

    private func fibre(_ rng: inout SeededRandom) -> FibreSpec {
        let x0 = rng.uniform(0, Double(width))
        let y0 = rng.uniform(0, Double(height))
        let length = rng.uniform(40, 220)
        let a = rng.uniform(0, 2 * Double.pi)
        let bend = rng.uniform(-0.6, 0.6)
        let mid = (x0 + cos(a + bend) * length / 2, y0 + sin(a + bend) * length / 2)
        let end = (x0 + cos(a) * length, y0 + sin(a) * length)
        return FibreSpec(points: [(x0, y0), mid, end], width: rng.uniform(0.7, 2.0), darkness: rng.uniform(0.15, 0.5))
    }
}

/// Per-image cell appearance, drawn once so cells in one picture look alike (as in a real
/// sample) while pictures differ.
struct CellStyle {
    var centreGain: Double
    var rimStrength: Double
    var haloStrength: Double
    var bodyDarkness: Double
    var stain: Double

    init(contrast: Double, rng: inout SeededRandom) {
        centreGain = rng.uniform(0.15, 0.5) * contrast
        rimStrength = rng.uniform(0.35, 0.7) * contrast
        haloStrength = rng.uniform(0.03, 0.15) * contrast
        bodyDarkness = rng.uniform(0.0, 0.12) * contrast
        stain = rng.uniform(0.4, 0.75) * contrast
    }
}
