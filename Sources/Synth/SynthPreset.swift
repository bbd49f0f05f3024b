/// A family of synthetic fixtures. Each preset fixes ranges; every fixture draws its own
/// values from them, so a batch varies widely in look (grid polarity, line weight, colour
/// cast, focus, noise) while keeping the preset's character.
public enum SynthPreset: String, Sendable, CaseIterable, Equatable {
    /// Moderate density, mild optics, slight tilt.
    case standard
    /// Crowded: above the overcrowding limit, many touching cells and clumps.
    case dense
    /// Few cells (too sparse for a reliable count).
    case sparse
    /// No cells at all, debris and grid only: a blank control.
    case blank
    /// Everything at once: strong tilt and perspective, heavy blur and noise, glare, heavy
    /// grid lines, lots of debris, low cell contrast.
    case hard
    /// Standard conditions with most cells dead (stained).
    case deadHeavy = "dead-heavy"
    /// Standard conditions, strongly defocused.
    case blurred
    /// Standard conditions, strongly rotated grid in perspective.
    case tilted

    /// The ranges this preset draws from.
    var parameters: PresetParameters {
        var p = PresetParameters()
        switch self {
        case .standard:
            break
        case .dense:
            p.cellsPerMegapixel = 420...650
            p.clumpFraction = 0.15...0.3
        case .sparse:
            p.cellsPerMegapixel = 5...25
            p.deadFraction = 0...0.5
        case .blank:
            p.cellsPerMegapixel = 0...0
            p.debrisPerMegapixel = 40...140
            p.fibres = 0...5
        case .hard:
            p.cellsPerMegapixel = 80...300
            p.deadFraction = 0.1...0.6
            p.clumpFraction = 0.1...0.3
            p.debrisPerMegapixel = 80...220
            p.fibres = 1...7
            p.cellBlurSigma = 1.2...2.4
            p.gridBlurSigma = 0.8...2.8
            p.maxRotationDegrees = 8
            p.maxPerspective = 5e-5
            p.noiseSigma = 4...9
            p.glareProbability = 0.7
            p.cellContrast = 0.75...1.0
            p.vignetting = 0.2...0.45
            p.heavyGridProbability = 0.6
            p.monochromeProbability = 0.15
        case .deadHeavy:
            p.deadFraction = 0.55...0.85
            // Live/dead must be judged by colour here.
            p.monochromeProbability = 0
        case .blurred:
            p.cellBlurSigma = 1.8...2.8
            p.gridBlurSigma = 1.5...3.0
        case .tilted:
            p.minRotationDegrees = 4
            p.maxRotationDegrees = 8
            p.maxPerspective = 5e-5
        }
        return p
    }
}

/// Ranges a preset draws from. Sizes in pixels at the generator's scale, intensities on the
/// 0...255 scale, rates per megapixel so smaller images keep the same density.
struct PresetParameters {
    var cellsPerMegapixel: ClosedRange<Double> = 90...200
    var deadFraction: ClosedRange<Double> = 0.05...0.35
    /// Share of the cells placed in touching groups of 2-6.
    var clumpFraction: ClosedRange<Double> = 0.05...0.15
    var debrisPerMegapixel: ClosedRange<Double> = 20...80
    var fibres: ClosedRange<Int> = 0...3
    /// Defocus of the cells (they float above the ruled floor), px.
    var cellBlurSigma: ClosedRange<Double> = 0.5...1.2
    /// Defocus of the grid lines, px.
    var gridBlurSigma: ClosedRange<Double> = 0.5...1.6
    var minRotationDegrees: Double = 0
    var maxRotationDegrees: Double = 3
    /// Largest keystone coefficient, 1/px.
    var maxPerspective: Double = 2e-5
    /// Sensor noise at mid-grey, 8-bit units.
    var noiseSigma: ClosedRange<Double> = 1.5...4
    var glareProbability: Double = 0.15
    /// Multiplies the strength of every cell feature (rim, centre, stain).
    var cellContrast: ClosedRange<Double> = 0.85...1.15
    /// Relative darkening at the image corners.
    var vignetting: ClosedRange<Double> = 0.05...0.3
    var heavyGridProbability: Double = 0.2
    /// Chance of a monochrome camera.
    var monochromeProbability: Double = 0.06
}
