import Hemocytometer

/// Live/dead call for one detected cell.
public enum CellClass: String, Sendable, Equatable, CaseIterable {
    case live
    case dead
}

/// One detected cell, in image pixel coordinates (origin at the centre of the top-left pixel).
public struct Detection: Sendable, Equatable {
    public var x: Double
    public var y: Double
    /// Radius in pixels.
    public var r: Double
    public var cellClass: CellClass
    /// Detector strength; higher is more cell-like. Sweeps and PR curves threshold on it.
    public var score: Double
    /// Confidence of the live/dead call, 0.5 (a coin toss) ... 1.
    public var confidence: Double
    /// Boundary evidence: fraction of the sectors around the centre in which the cell's rim
    /// faces it (0 when the boundary test is off). Duplicate suppression, after `centred`, keeps
    /// the candidate with more of it: of two candidates for one cell the better-centred sees more rim.
    public var coverage: Double
    /// Centred on its cell: its rim draws one circle about it, or it is stained
    /// (`PipelineConfig.nmsCentredFirst`). Duplicate suppression ranks these first.
    public var centred: Bool

    public init(x: Double, y: Double, r: Double, cellClass: CellClass, score: Double, confidence: Double,
                coverage: Double = 0, centred: Bool = false) {
        self.x = x
        self.y = y
        self.r = r
        self.cellClass = cellClass
        self.score = score
        self.confidence = confidence
        self.coverage = coverage
        self.centred = centred
    }
}

/// Time spent in one named step: wall clock (monotonic) and CPU time of the running thread.
public struct StageTiming: Sendable, Equatable {
    public var name: String
    public var wallSeconds: Double
    public var cpuSeconds: Double
    public init(name: String, wallSeconds: Double, cpuSeconds: Double) {
        self.name = name
        self.wallSeconds = wallSeconds
        self.cpuSeconds = cpuSeconds
    }
}

/// One step inside a stage (the candidates stage's detector, its centre vote...). A stage's steps
/// follow each other without gaps from the stage's start, in the order they ran, so they add
/// up to the stage's time but for its last bookkeeping; a step that did not run on an image (a
/// filter that does not apply, a fallback the grid search did not need) is absent.
public struct StepTiming: Sendable, Equatable {
    public var stage: String
    public var step: String
    public var wallSeconds: Double
    public var cpuSeconds: Double
    public init(stage: String, step: String, wallSeconds: Double, cpuSeconds: Double) {
        self.stage = stage
        self.step = step
        self.wallSeconds = wallSeconds
        self.cpuSeconds = cpuSeconds
    }
}

/// The counting chamber's ruling as found in the image.
public struct GridResult: Sendable, Equatable {
    /// Corners of the counting area (image pixels), clockwise from top-left. They may lie
    /// outside the image when only part of the ruled area is visible.
    public var corners: [Point]
    public var umPerPixel: Double
    /// Rotation of the ruling, degrees.
    public var angleDegrees: Double
    /// Row-major 3x3 homography from image pixels to chamber micrometres (origin at the
    /// counting area's top-left corner).
    public var imageToChamber: [Double]
    public init(corners: [Point], umPerPixel: Double, angleDegrees: Double, imageToChamber: [Double]) {
        self.corners = corners
        self.umPerPixel = umPerPixel
        self.angleDegrees = angleDegrees
        self.imageToChamber = imageToChamber
    }
}

/// Everything the pipeline says about one image.
public struct PipelineResult: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var detections: [Detection]
    /// nil when no grid was visible: the count is then uncalibrated.
    public var grid: GridResult?
    /// Micrometres per image pixel in effect: the ruling's (`grid`), else the configured
    /// calibration (`PipelineConfig.umPerPixel`, flag "calibration-from-config"); nil:
    /// uncalibrated.
    public var umPerPixel: Double?
    public var count: ChamberCount
    /// Variance of the Laplacian of the luminance.
    public var focusScore: Double
    /// Fraction of near-saturated pixels.
    public var glareRatio: Double
    /// Quality flags from every stage ("low-focus", "glare", "no-grid", plus the count's).
    public var flags: [String]
    /// One entry per stage, in pipeline order.
    public var timings: [StageTiming]
    /// The steps of the stages that time theirs (`grid`, `candidates`), in the order they ran.
    public var steps: [StepTiming]

    public init(width: Int, height: Int, detections: [Detection], grid: GridResult?, count: ChamberCount,
                focusScore: Double, glareRatio: Double, flags: [String], timings: [StageTiming],
                steps: [StepTiming] = [], umPerPixel: Double? = nil) {
        self.width = width
        self.height = height
        self.detections = detections
        self.grid = grid
        // (Without an explicit calibration, the ruling's.)
        self.umPerPixel = umPerPixel ?? grid?.umPerPixel
        self.count = count
        self.focusScore = focusScore
        self.glareRatio = glareRatio
        self.flags = flags
        self.timings = timings
        self.steps = steps
    }
}
