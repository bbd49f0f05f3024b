import Foundation
import Hemocytometer

/// Finds the chamber ruling in a flattened luminance plane: two line families (angle, spacing,
/// phase) by orientation histogram + projection periodicity.
///
/// - Parameters:
///   - flat: flattened luminance (1 = background), working pixels.
///   - minSpacing, maxSpacing: line spacing search range, working pixels.
///   - minPeriodicity: smallest autocorrelation peak (0 ... 1) accepted for each family.
/// - Returns: nil when either family is missing or not periodic.
public func detectGridLines(flat: Plane, minSpacing: Double, maxSpacing: Double,
                            minPeriodicity: Double) -> (angles: [Double], spacings: [Double], phases: [Double], strengths: [Double])? {
    guard flat.width >= 16, flat.height >= 16 else { return nil }
    // Lines of either polarity are peaks of the absolute contrast.
    let contrast = flat.map { abs($0 - 1) }
    let hist = orientationHistogram(flat, minMagnitude: 0.01)
    let peaks = perpendicularPeaks(hist)
    // No gate on the histogram peak itself: thin lines carry little gradient next to many
    // cells; the projection periodicity below is the real test.
    var angles: [Double] = [], spacings: [Double] = [], phases: [Double] = [], strengths: [Double] = []
    for gradientDeg in [peaks.first, peaks.second] {
        // The gradient points across the line: it is the line family's normal.
        let normal = gradientDeg * .pi / 180
        let (profile, origin) = projectionProfile(contrast, normalAngle: normal)
        guard let p = dominantPeriod(profile, minLag: minSpacing, maxLag: maxSpacing),
              p.strength >= minPeriodicity else { return nil }
        angles.append(normal + .pi / 2)
        spacings.append(p.period)
        phases.append(origin + p.phase)
        strengths.append(p.strength)
    }
    // Order: the family whose lines run closest to horizontal first.
    if abs(cos(angles[0])) < abs(cos(angles[1])) {
        angles.swapAt(0, 1); spacings.swapAt(0, 1); phases.swapAt(0, 1); strengths.swapAt(0, 1)
    }
    return (angles, spacings, phases, strengths)
}

/// Stage 3: the ruling, the calibration (µm per pixel) and an image -> chamber mapping.
///
/// The mapping is affine (two line families with their own spacing); the chamber origin is put
/// on the first ruling intersection at or after the image's top-left, because a partial view
/// of the ruling does not tell which large square it shows ("grid-origin-assumed").
struct GridStage: Stage {
    let name = "grid"

    func run(_ frame: inout Frame) throws {
        let config = frame.config
        guard config.gridEnabled, frame.flat.count > 0 else {
            frame.flag("no-grid")
            return
        }
        let s = Double(frame.scale)
        guard let lines = detectGridLines(flat: frame.flat, minSpacing: config.gridMinSpacingPx / s,
                                          maxSpacing: config.gridMaxSpacingPx / s,
                                          minPeriodicity: config.gridMinPeriodicity) else {
            frame.flag("no-grid")
            return
        }
        // Image-pixel geometry: normal n_k of family k, chamber coordinate = (n_k . p - c_k) * u_k.
        // Family 0 (near-horizontal lines) gives chamber y, family 1 gives chamber x.
        var rows: [(nx: Double, ny: Double, offset: Double, umPerPx: Double)] = []
        for k in 0..<2 {
            let normal = lines.angles[k] - .pi / 2
            var nx = cos(normal), ny = sin(normal)
            let spacingPx = lines.spacings[k] * s
            // Working pixel centre (i) maps to image coordinate s * i + (s - 1) / 2.
            var phasePx = lines.phases[k] * s + (s - 1) / 2 * (nx + ny)
            // Orient normals along +y (family 0) and +x (family 1).
            if (k == 0 && ny < 0) || (k == 1 && nx < 0) {
                nx = -nx; ny = -ny; phasePx = -phasePx
            }
            // First line at or after the image origin along the normal.
            let first = phasePx - (phasePx / spacingPx).rounded(.down) * spacingPx
            rows.append((nx, ny, first, config.gridSpacingUm / spacingPx))
        }
        let (ry, rx) = (rows[0], rows[1])
        let h: [Double] = [rx.nx * rx.umPerPx, rx.ny * rx.umPerPx, -rx.offset * rx.umPerPx,
                           ry.nx * ry.umPerPx, ry.ny * ry.umPerPx, -ry.offset * ry.umPerPx,
                           0, 0, 1]
        let umPerPixel = (rx.umPerPx * ry.umPerPx).squareRoot()
        var corners: [Point] = []
        if let forward = Homography(matrix: h), let inverse = forward.inverse {
            for c in [Point(x: 0, y: 0), Point(x: 3000, y: 0), Point(x: 3000, y: 3000), Point(x: 0, y: 3000)] {
                if let p = inverse.apply(c) { corners.append(p) }
            }
        }
        let angleDeg = lines.angles[0] * 180 / .pi
        let result = GridResult(corners: corners, umPerPixel: umPerPixel,
                                angleDegrees: angleDeg > 90 ? angleDeg - 180 : angleDeg, imageToChamber: h)
        frame.grid = DetectedGrid(angles: lines.angles, spacings: lines.spacings, phases: lines.phases,
                                  strengths: lines.strengths, result: result)
        frame.flag("grid-origin-assumed")
        if config.sizeFrom == .calibration {
            frame.minRadius = config.minDiameterUm / 2 / umPerPixel / s
            frame.maxRadius = max(config.maxDiameterUm, config.minDiameterUm) / 2 / umPerPixel / s
        }
    }
}
