import Foundation

/// Local-contrast map: |flat - 1| smoothed. Clear live cells (bright centre, dark rim) and
/// dark dead cells both light up as filled discs; flat background stays near 0.
///
/// - Parameter sigma: pre-smoothing sigma, pixels.
public func contrastMap(flat: Plane, sigma: Double) -> Plane {
    gaussianBlur(flat.map { abs($0 - 1) }, sigma: sigma)
}

/// Removes straight structures longer than `length` (grid lines, fibres) from a contrast map:
/// the map minus the largest of its line openings (a top-hat with line structuring elements).
///
/// - Parameters:
///   - angles: line directions, radians.
///   - length: structuring element length, pixels.
public func removeLines(_ contrast: Plane, angles: [Double], length: Int) -> Plane {
    guard !angles.isEmpty, length >= 3 else { return contrast }
    var background = Plane(width: contrast.width, height: contrast.height)
    for angle in angles {
        let opened = lineOpening(contrast, angle: angle, length: length)
        background.data.withUnsafeMutableBufferPointer { b in
            opened.data.withUnsafeBufferPointer { o in
                for i in 0..<b.count { b[i] = max(b[i], o[i]) }
            }
        }
    }
    var out = contrast
    out.data.withUnsafeMutableBufferPointer { o in
        background.data.withUnsafeBufferPointer { b in
            for i in 0..<o.count { o[i] = max(0, o[i] - b[i]) }
        }
    }
    return out
}

/// Directions along which straight structures are removed: the grid's two families plus,
/// when fibres are removed too, the four principal directions not already near a grid angle.
func lineRemovalAngles(grid: DetectedGrid?, fibres: Bool) -> [Double] {
    var angles = grid?.angles ?? []
    if fibres {
        for deg in [0.0, 45, 90, 135] {
            let a = deg * .pi / 180
            let near = angles.contains { g in
                let d = abs(remainder(g - a, .pi))
                return d < 8 * .pi / 180
            }
            if !near { angles.append(a) }
        }
    }
    return angles
}

/// Stage 4: candidate cells from the flattened luminance, in image pixels.
struct CandidatesStage: Stage {
    let name = "candidates"

    func run(_ frame: inout Frame) throws {
        let config = frame.config
        guard frame.flat.width >= 3, frame.flat.height >= 3 else { return }
        let minR = max(0.5, frame.minRadius), maxR = max(minR, frame.maxRadius)
        let contrast = contrastMap(flat: frame.flat, sigma: max(0.5, config.contrastSmoothingRadii * minR))
        let length = Int((config.lineRemovalLengthDiameters * 2 * maxR).rounded()) | 1
        let cleaned = removeLines(contrast, angles: lineRemovalAngles(grid: frame.grid, fibres: config.removeFibres),
                                  length: length)
        var found: [Candidate]
        switch config.detector {
        case .dog:
            found = detectBlobs(cleaned, settings: BlobDetectorSettings(
                minRadius: minR, maxRadius: maxR, levels: config.scaleLevels, minScore: config.minScore,
                minContrast: config.minContrast, maxEdgeRatio: config.maxEdgeRatio))
        case .threshold:
            found = detectThresholdObjects(cleaned, settings: ThresholdDetectorSettings(
                minRadius: minR, maxRadius: maxR, minScore: config.minScore, minContrast: config.minContrast,
                minCircularity: config.minCircularity, minSolidity: config.minSolidity))
        }
        let s = Double(frame.scale), shift = (s - 1) / 2
        for i in found.indices {
            found[i].x = found[i].x * s + shift
            found[i].y = found[i].y * s + shift
            found[i].r *= s
        }
        frame.candidates = found
    }
}
