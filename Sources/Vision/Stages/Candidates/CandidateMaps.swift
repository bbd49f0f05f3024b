import Foundation
import Imaging

/// What the candidates stage derives from the frame once and each of its steps reads: the
/// log luminance, the line-free contrast map the detector runs on, the boundary evidence
/// (smoothed log luminance, its threshold, its gradients) and the stain map.
struct CandidateMaps {
    let config: PipelineConfig
    let image: Image
    let grid: DetectedGrid?
    /// Image pixels per working pixel (`s` as a Double), and the conversion of positions.
    let scale: Int
    let working: WorkingScale
    var s: Double { working.factor }
    /// Cell radius range, working pixels.
    let minR: Double
    let maxR: Double
    /// Log of the flattened luminance (background 0).
    let logFlat: Plane
    /// |log| contrast, lines in it.
    let contrast: Plane
    /// Length of the line-removal blocks, working pixels (odd).
    let length: Int
    /// The contrast with the lines removed, and the lines (`separateLines`).
    let separated: (cells: Plane, lines: Plane)
    /// The line-free contrast capped (`contrastCap`): the detector's input.
    let cleaned: Plane
    /// Smoothed log luminance, its boundary threshold and its gradients; nil when the
    /// boundary test is off (`minEdgeCoverage` 0).
    let edges: EdgeMap?
    /// The ruling's normals (radians): edges along them are the ruling's, not a cell's.
    let gridNormals: [Double]
    /// Colour images: dead cells show their boundary on the stain map too.
    let stain: StainEvidence?
    /// Ruling directions, found or (no ruling) the horizontal and vertical that fibre removal
    /// and the crossing test assume too.
    let rulingAngles: [Double]
    /// Steps along the ruling's lines for `lineSubtraction`. The two sides of a step stray
    /// across the line in opposite directions, so a straight line leaves a residue of the
    /// order of the square of the stray: half a pixel is allowed (a slightly turned ruling has
    /// no whole-pixel step 2.7 ... 4 radii long within 0.1 px).
    let subtractionSteps: [LineSteps]
    /// The line-subtracted test from the sides free of other candidates, where a ruling was
    /// found and the boundary evidence is on.
    let rimTest: ClearSideRimTest?

    struct EdgeMap {
        let smoothLog: Plane
        let threshold: Float
        let field: RadialEdgeField
    }

    init(_ frame: Frame) {
        let config = frame.config
        self.config = config
        image = frame.image
        grid = frame.grid
        scale = frame.scale
        working = WorkingScale(frame.scale)
        minR = max(0.5, frame.minRadius)
        maxR = max(minR, frame.maxRadius)
        let logFlat = logPlane(frame.flat)
        self.logFlat = logFlat
        contrast = logContrast(logFlat: logFlat, sigma: max(0.5, config.contrastSmoothingRadii * minR))
        length = Int((config.lineRemovalLengthDiameters * 2 * maxR).rounded()) | 1
        // Fibre directions only when no ruling was found: with one, the two diagonal passes
        // found no more cells on any development set (and cost a directional median each).
        let angles = lineRemovalAngles(grid: frame.grid, fibres: config.removeFibres && frame.grid == nil)
        separated = separateLines(contrast, angles: angles, length: length, additiveCrossings: config.additiveCrossings)
        cleaned = saturate(separated.cells, cap: config.contrastCap)
        let edges: EdgeMap? = config.minEdgeCoverage > 0 ? {
            let smoothLog = gaussianBlur(logFlat, sigma: config.edgeSmoothingPx)
            let threshold = boundaryThreshold(smoothLog, noiseMultiple: config.edgeThresholdNoise,
                                              floor: config.edgeThresholdContrast * config.minContrast)
            return EdgeMap(smoothLog: smoothLog, threshold: threshold, field: RadialEdgeField(smoothLog))
        }() : nil
        self.edges = edges
        let gridNormals = (frame.grid?.angles ?? []).map { $0 + .pi / 2 }
        self.gridNormals = gridNormals
        stain = frame.isGreyscale ? nil : edges.flatMap { edges in
            StainEvidence(image: frame.image, scale: frame.scale, level: config.stainLevel,
                          thresholdNoise: config.edgeThresholdNoise, logLuminance: edges.smoothLog)
        }
        rulingAngles = frame.grid?.angles ?? (config.removeFibres ? [0, .pi / 2] : [])
        let maxR = self.maxR
        let subtractionSteps = config.lineSubtraction
            ? (frame.grid?.angles ?? []).map { LineSteps(angle: $0, maxLength: 4 * maxR, tolerance: 0.5) } : []
        self.subtractionSteps = subtractionSteps
        rimTest = subtractionSteps.isEmpty ? nil : edges.map { edges in
            ClearSideRimTest(plane: edges.smoothLog, threshold: edges.threshold, gridNormals: gridNormals,
                             minCoverage: config.minEdgeCoverage, maxGridAligned: config.maxGridAlignedEdges,
                             borderCells: config.borderCells)
        }
    }

    /// The removed line (or fibre) under a working-scale candidate's centre, log-contrast units.
    func lineUnderCentre(_ c: Candidate) -> Float { separated.lines.bilinear(c.x, c.y) }

    /// Whether a working-scale candidate lies on a ruling line (or a fibre) strong enough for
    /// the crossing tests (`crossingLineContrast`).
    func isOnLine(_ c: Candidate) -> Bool { lineUnderCentre(c) >= Float(config.crossingLineContrast) }

    /// The share of a working-scale candidate's sectors inside the image: coverage counts only
    /// those, since a cell cut by the border shows part of its rim (a tenth of the missed cells
    /// on the independent synthetic set).
    func visibleShare(_ c: Candidate) -> Double {
        config.borderCells ? visibleSectorShare(x: c.x, y: c.y, r: c.r, width: logFlat.width, height: logFlat.height) : 1
    }

    /// A working-scale candidate's centre and radius in image pixels (for a trace).
    func imagePosition(_ c: Candidate) -> (x: Double, y: Double, r: Double) {
        let p = toImage(c)
        return (p.x, p.y, p.r)
    }

    /// A working-scale candidate in image pixels, its line step too.
    func toImage(_ c: Candidate) -> Candidate {
        var c = c
        c.x = working.toImage(c.x)
        c.y = working.toImage(c.y)
        c.r *= s
        c.lineStep = c.lineStep.map { PixelStep(dx: $0.dx * scale, dy: $0.dy * scale) }
        return c
    }

    /// An image-pixel candidate's position and radius at the working scale (for the filters
    /// that read the working planes).
    func toWorking(_ c: Candidate) -> Candidate {
        var c = c
        c.x = working.toWorking(c.x)
        c.y = working.toWorking(c.y)
        c.r /= s
        return c
    }
}
