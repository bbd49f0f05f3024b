import Foundation
import Imaging

/// Debris in a colour trypan-blue image: darker than the background inside, without a bright
/// refractile centre, and not blue. A live cell is clear with a bright centre and a dead one
/// takes up the dye; a dark grey or brown blob is neither. (Greyscale images carry no hue, so
/// the rule cannot apply there: a dead cell is exactly such a dark blob.)
public func isUnstainedDark(_ a: CellAppearance, config: PipelineConfig) -> Bool {
    isDarkWithoutClearRing(a, config: config) && a.centreContrast < config.refractileContrast
}

/// Dark inside and not blue, as debris is, but with a bright centre (`refractileContrast`)
/// and no clear ring (`clearRingContrast`): a refractile cell or debris with a lighter spot,
/// which only the rim round the centre tells apart (`refractileRimShare`).
func isDarkWithBrightCentreOnly(_ a: CellAppearance, config: PipelineConfig) -> Bool {
    isDarkWithoutClearRing(a, config: config) && a.centreContrast >= config.refractileContrast
}

/// Darker inside than the background by `debrisDarkContrast` (on) and without a clear ring
/// (`clearRingContrast`), whatever its centre.
func isDarkWithoutClearRing(_ a: CellAppearance, config: PipelineConfig) -> Bool {
    config.debrisDarkContrast > 0 && a.interiorContrast < -config.debrisDarkContrast && !hasClearRing(a, config: config)
}

/// A clear cell's ring at least `clearRingContrast` deep (off at 0: no candidate has one).
func hasClearRing(_ a: CellAppearance, config: PipelineConfig) -> Bool {
    config.clearRingContrast > 0 && a.ringContrast >= config.clearRingContrast
}

/// The debris rule's verdict on a candidate called live in a colour image, with what it
/// measured for the trace (nil: not measured).
struct DebrisVerdict: Equatable {
    var debris: Bool
    /// `clearRingDepth` at the candidate.
    var ringDepth: Double?
    /// How many sectors showed a grey disc inside a bright halo (`haloSectors`).
    var halo: Int?
    /// The half-contrast edge, when asked (`defocusedDiscRoundness`).
    var disc: DiscEdge?
    /// The halo's sectors at the disc's edge radius (`haloSectors`), when asked there.
    var haloAtEdge: Int?
    /// How many of the rim circle's 32 rays its fit holds (`refractileRimShare`), when asked.
    var rimInliers: Int?
    /// The halo's sectors counted beside touching cells (`haloClumpOpenSectors`), when asked.
    var haloInClump: Int?
    /// Judged a dark speck (`isDarkSpeck`) before the debris rule was asked.
    var speck = false
}

/// `darkSpeckMaxRadius`: a candidate called live (`a` the appearance the debris rule judges)
/// whose radius `r` stayed within that many smallest cell radii (`smallestRadius`, image
/// pixels), darker inside than the background without a clear ring.
///
/// Why: the debris rule judges the dark candidates (`debrisDarkContrast`) and spares round
/// discs of nearly a cell's size as cells out of focus, and a light point inside a rim circle
/// as a refractile centre; a faint speck blurred to the smallest radius passes them, and blank
/// controls hold many. Measured at the floor by every step, it is no larger than the smallest
/// cell, and at that size nearly every cell shows a clear ring (1,565 of the 1,570 that the
/// twelve synthetic evaluation sets' kept detections found there).
func isDarkSpeck(_ a: CellAppearance, r: Double, smallestRadius: Double, config: PipelineConfig) -> Bool {
    config.darkSpeckMaxRadius > 0 && r <= config.darkSpeckMaxRadius * smallestRadius * (1 + 1e-9)
        && a.interiorContrast < 0 && !hasClearRing(a, config: config)
}

/// The debris rule for a candidate called live in a colour image: debris when unstained and
/// dark (`isUnstainedDark`) unless it shows a grey disc inside a bright halo (`haloSectors`),
/// its profile a clear cell's ring at whatever radius (`clearRingDepth`) inside an outline
/// that is not ragged (`clearRingRaggedRoundness`), or its edge a round
/// disc at least a cell wide (`DiscEdge`, `defocusedDiscRoundness`), or a halo just outside
/// that edge, when the edge lies elsewhere than the candidate's radius. A candidate dark and
/// unstained but for a bright centre is debris unless that centre sits inside a rim circle
/// (`isDarkWithBrightCentreOnly`, `refractileRimShare`).
///
/// - Parameters:
///   - a: the candidate's appearance (line-relative when it lies on a line).
///   - x, y, r: its centre and radius, image pixels.
///   - onLine: the candidate lies on a ruling line (`Candidate.lineStep`). Only its halo is
///     asked: the line's two edges make a ring of its profile (on a blank control of triple
///     lines, the light gap between two strokes) and cut its disc's edge, while a halo shows
///     in the sectors the line leaves free. (Nineteenth session: the third generator's draws
///     +18 and +9 cells, nothing else moved but one cell of the six independent draws.)
func debrisVerdict(_ a: CellAppearance, x: Double, y: Double, r: Double, onLine: Bool = false, in image: Image,
                   config: PipelineConfig) -> DebrisVerdict {
    guard isUnstainedDark(a, config: config) else {
        guard config.refractileRimShare > 0, isDarkWithBrightCentreOnly(a, config: config),
              let rim = RimCircle(image, x: x, y: y, r: r) else { return DebrisVerdict(debris: false) }
        return DebrisVerdict(debris: !rim.holds(share: config.refractileRimShare), rimInliers: rim.inliers)
    }
    func haloSectorsAt(_ radius: Double) -> Int {
        haloSectors(image, x: x, y: y, r: radius, contrast: config.haloContrast,
                    blockedDarkness: config.haloBlockedDarkness, minOpenSectors: config.haloMinOpenSectors)
    }
    var halo: Int?
    if config.haloSectors > 0 {
        let sectors = haloSectorsAt(r)
        if sectors >= config.haloSectors { return DebrisVerdict(debris: false, halo: sectors) }
        halo = sectors
    }
    // On a line only the halo is asked (see `onLine`).
    guard !onLine else { return DebrisVerdict(debris: true, halo: halo) }
    var verdict = DebrisVerdict(debris: true, halo: halo)
    let edge = config.clearRingRaggedRoundness > 0 || config.defocusedDiscRoundness > 0
        ? DiscEdge(image, x: x, y: y, r: r) : nil
    if config.clearRingDepth > 0 {
        let depth = clearRingDepth(image, x: x, y: y, r: r, background: a.backgroundLuminance)
        verdict.ringDepth = depth
        if depth >= config.clearRingDepth {
            // Mottled debris fakes the ring with its darker patches; its outline is ragged.
            guard let edge, edge.isRagged(maxShare: config.clearRingRaggedRoundness,
                                          minLobes: config.clearRingRaggedLobes) else {
                verdict.debris = false
                return verdict
            }
            verdict.disc = edge
        }
    }
    let minDiscRadius = config.defocusedDiscMinRadius * config.minRadiusPx
    if config.defocusedDiscRoundness > 0, let edge {
        verdict.disc = edge
        verdict.debris = !edge.isDefocusedCell(minRadius: minDiscRadius,
                                                minShare: config.defocusedDiscRoundness,
                                                maxLobes: config.defocusedDiscMaxLobes,
                                                maxEdgeWidth: config.defocusedDiscMaxEdgeWidth)
        // A halo lies just outside the disc's edge, where a detection's radius that overshoots
        // the disc (blur, a neighbour's rim) does not look for it: asked again at the edge.
        if verdict.debris, config.haloSectors > 0, edge.radius != r, edge.radius >= minDiscRadius {
            let sectors = haloSectorsAt(edge.radius)
            verdict.haloAtEdge = sectors
            verdict.debris = sectors < config.haloSectors
        }
    }
    return verdict
}

/// The debris rule for a candidate called dead in a greyscale image (`greyDiscMinRadius`):
/// debris when its half-contrast edge lies inside the smallest cell's; nil when the rule is
/// off or no edge is measured.
func greyDiscVerdict(x: Double, y: Double, r: Double, in image: Image, config: PipelineConfig) -> DebrisVerdict? {
    guard config.greyDiscMinRadius > 0, let edge = DiscEdge(image, x: x, y: y, r: r) else { return nil }
    return DebrisVerdict(debris: edge.radius < config.greyDiscMinRadius * config.minRadiusPx, disc: edge)
}
