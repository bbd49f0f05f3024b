import Imaging
import Hemocytometer

/// A candidate cell before classification, in WORKING pixels until the `candidates` stage
/// maps it back to image pixels.
public struct Candidate: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var r: Double
    /// Detector strength (see `PipelineConfig.minScore`).
    public var score: Double
    /// Peak contrast of the flattened luminance (unitless).
    public var contrast: Double
    /// Fraction of the sectors around the centre in which a boundary faces it
    /// (`radialEdgeCoverage`), once the boundary test has run; 0 before.
    public var coverage: Double
    /// Found by `centreSeeds` rather than by the detector (score 0: no detector response).
    public var seeded: Bool
    /// Taken by the detector only as a bright spot smaller than a cell
    /// (`BlobDetectorSettings.brightSpotLevel`): it still has to show a cell's dark rim.
    public var brightSpot: Bool
    /// The boundary radius centre voting measured, kept so that the size test need not measure
    /// it again at the same place.
    var boundary: BoundaryMeasurement?
    /// Whole-pixel step along the ruling line the candidate lies on, when its rim shows with
    /// that line subtracted (`lineSubtractedEvidence`): the debris rule then compares its
    /// interior with the line's, not the open background's. Image pixels after the candidates
    /// stage.
    var lineStep: PixelStep?
    /// The centre vote ran with the ruling line under the candidate subtracted
    /// (`PipelineConfig.lineSubtractedVotes`).
    var votedAlongLine = false
    /// Its rays agree on one rim circle, or it is stained (`PipelineConfig.nmsCentredFirst`).
    var centred = false
    /// Its centre lies on a ruling line of the line map (`crossingLineContrast`): set by the
    /// candidates stage for the classify stage, whose colour rules read a line's colour there
    /// (`faintStain`).
    var onRulingLine = false
    public init(x: Double, y: Double, r: Double, score: Double, contrast: Double, coverage: Double = 0,
                seeded: Bool = false, brightSpot: Bool = false) {
        self.brightSpot = brightSpot
        self.x = x
        self.y = y
        self.r = r
        self.score = score
        self.contrast = contrast
        self.coverage = coverage
        self.seeded = seeded
    }
}

/// A whole-pixel offset.
struct PixelStep: Sendable, Equatable {
    var dx: Int
    var dy: Int
}

/// A boundary radius (`boundaryRadius`) and the centre and radius it was measured at, image
/// pixels.
struct BoundaryMeasurement: Sendable, Equatable {
    let x: Double
    let y: Double
    let r: Double
    let radius: Double

    /// The radius, if it was measured at exactly this centre and radius.
    func radius(x: Double, y: Double, r: Double) -> Double? {
        x == self.x && y == self.y && r == self.r ? radius : nil
    }
}

/// The grid as the `grid` stage found it, in working pixels plus the image-space result.
public struct DetectedGrid: Sendable, Equatable {
    /// Direction of the two line families, radians (first near 0, second near pi/2).
    public var angles: [Double]
    /// Line spacing of each family, working pixels.
    public var spacings: [Double]
    /// Position of one line of each family along its normal, working pixels from the origin.
    public var phases: [Double]
    /// Periodicity strength of each family (0 ... 1).
    public var strengths: [Double]
    public var result: GridResult
    /// The registration told both families' spacing (no "grid-scale-assumed"), so where the
    /// triple lines lie is known, not guessed.
    public var scaleKnown: Bool = false
    /// Half the width of the triple lines as the view shows them, µm (`tripleLineHalfWidth`);
    /// nil when not measured.
    public var tripleHalfWidthUm: Double? = nil
}

/// Everything the stages hand to each other. Planes are at the working scale
/// (`scale` image pixels per working pixel).
public struct Frame: Sendable {
    public let image: Image
    public let config: PipelineConfig
    /// Image pixels per working pixel (integer downsampling factor).
    public var scale: Int = 1
    /// Linear luminance 0 ... 1 at the working scale.
    public var luminance = Plane(width: 0, height: 0)
    /// Luminance divided by the background estimate (1 = background).
    public var flat = Plane(width: 0, height: 0)
    /// Cell radius range, working pixels.
    public var minRadius: Double = 1
    public var maxRadius: Double = 2
    public var grid: DetectedGrid?
    public var candidates: [Candidate] = []
    public var detections: [Detection] = []
    public var count: ChamberCount?
    public var focusScore: Double = 0
    public var glareRatio: Double = 0
    public var isGreyscale = false
    public var flags: [String] = []
    /// The timed steps of the stages run so far (`StepClock`).
    public var steps: [StepTiming] = []
    /// Candidates near a few points, step by step (`Pipeline.explain`); nil on ordinary runs.
    public var trace: CandidateTrace?

    public init(image: Image, config: PipelineConfig) {
        self.image = image
        self.config = config
    }

    /// Micrometres per image pixel in effect: the registered ruling's, else the configured
    /// calibration (`PipelineConfig.umPerPixel`); nil: uncalibrated.
    public var umPerPixel: Double? {
        grid?.result.umPerPixel ?? (config.umPerPixel > 0 ? config.umPerPixel : nil)
    }

    /// Appends a quality flag once.
    public mutating func flag(_ name: String) {
        if !flags.contains(name) { flags.append(name) }
    }
}

/// One step of the pipeline. Adding a stage = one new type + one entry in `Pipeline.stages`.
public protocol Stage: Sendable {
    var name: String { get }
    func run(_ frame: inout Frame) throws
}
