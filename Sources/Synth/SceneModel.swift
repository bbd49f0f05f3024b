/// One cell to draw. Positions and sizes in image pixels (origin at the centre of the
/// top-left pixel); appearance strengths are dimensionless transmission changes.
struct CellSpec {
    var x: Double
    var y: Double
    /// Semi-axes of the ellipse, px; the labelled radius is their geometric mean.
    var semiMajor: Double
    var semiMinor: Double
    var angle: Double
    /// Amplitude and phase of a three-lobed outline wobble (0 = perfect ellipse).
    var lobeAmplitude: Double
    var lobePhase: Double
    var isDead: Bool
    /// Live: brightening of the refractile centre. Dead: unused.
    var centreGain: Double
    /// Darkening of the membrane rim.
    var rimStrength: Double
    /// Brightening just outside the rim.
    var haloStrength: Double
    /// Live: darkening of the body. Dead: strength of the trypan-blue stain.
    var bodyStrength: Double

    var radius: Double { (semiMajor * semiMinor).squareRoot() }
}

/// A small irregular particle: an ellipse, dark or (rarely) bright, never labelled.
struct SpeckSpec {
    var x: Double
    var y: Double
    var semiMajor: Double
    var semiMinor: Double
    var angle: Double
    /// Transmission change at the centre: negative darkens, positive brightens.
    var contrast: Double
}

/// A thin curved fibre (quadratic Bézier), never labelled.
struct FibreSpec {
    var points: [(x: Double, y: Double)]
    var width: Double
    var darkness: Double
}

/// A faint out-of-focus ring from dust on the optics, never labelled.
struct DustSpec {
    var x: Double
    var y: Double
    var radius: Double
    var amplitude: Double
}

/// How the ruling looks in this picture.
struct GridLook {
    /// Dark (absorbing) lines, or bright lines as some phase-contrast-like optics show them.
    var darkLines: Bool
    /// Transmission change on a line, 0...1.
    var strength: Double
    /// Full line width, px, before blur.
    var widthPx: Double
    var blurSigma: Double
    var tripleOffsetUm: Double
    /// Relative strength of the fine 50 µm lines of the central square.
    var fineLineFactor: Double
    /// Opposite-sign border of the lines (dark edges of bright lines, halo of dark ones).
    var fringe: Double
    var fringeWidthPx: Double
}

/// A faint straight scratch in the glass or cover slip, never labelled.
struct ScratchSpec {
    var x0: Double
    var y0: Double
    var x1: Double
    var y1: Double
    var width: Double
    var darkness: Double
}

/// Illumination, sensor and optics of the picture.
struct OpticsLook {
    /// Background brightness per channel at the image centre, 0...255.
    var background: (r: Double, g: Double, b: Double)
    var vignetting: Double
    var vignetteCentre: (x: Double, y: Double)
    /// Linear illumination slope across the image, relative per half-width.
    var gradient: (x: Double, y: Double)
    /// Low-frequency mottling: amplitude and spatial frequencies (radians per px) of a few
    /// separable cosine terms.
    var mottle: [(amplitude: Double, fx: Double, fy: Double, px: Double, py: Double)]
    var cellBlurSigma: Double
    var noiseSigma: Double
    /// Additive bright patch: centre, size (px) and peak (fraction of full scale).
    var glare: (x: Double, y: Double, sigma: Double, peak: Double)?
    /// Per-channel absorption of the trypan-blue stain (blue passes best).
    var stainColour: (r: Double, g: Double, b: Double)
    /// Per-channel tint of live cell bodies and debris.
    var bodyTint: (r: Double, g: Double, b: Double)
    /// A monochrome camera: every pixel grey (R = G = B); stained cells are then only darker.
    var monochrome: Bool
}

/// Everything needed to draw one fixture and write its label.
struct SynthScene {
    var width: Int
    var height: Int
    var umPerPixel: Double
    /// Chamber µm -> image px.
    var chamberToImage: ProjectiveMap
    var rotationDegrees: Double
    var perspective: Double
    var cells: [CellSpec]
    var specks: [SpeckSpec]
    var fibres: [FibreSpec]
    var dust: [DustSpec]
    var scratches: [ScratchSpec]
    var grid: GridLook
    var optics: OpticsLook
    var dilution: Double
    var tags: [String]
    /// The chamber's ruling drawn. Without it the picture is a view where no line shows (high
    /// magnification, or outside the ruled area); its label then gives no calibration.
    var ruled = true
}
