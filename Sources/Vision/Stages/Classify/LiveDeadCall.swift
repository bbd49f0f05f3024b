import Foundation
import Imaging

/// Live/dead decision for one measured cell.
///
/// Colour images (trypan blue): dead when the white-balanced hue is in the band, its
/// saturation above `saturationThreshold` and the interior darker than the background.
/// Greyscale: dead when the interior is darker than `deadDarkContrast` and there is no bright
/// refractile centre. Confidence 0.5 ... 1 grows with the margin to the deciding threshold.
public func classifyCell(_ a: CellAppearance, greyscale: Bool, saturationThreshold: Double,
                         config: PipelineConfig) -> (CellClass, Double) {
    func confidence(_ margin: Double, _ scale: Double) -> Double { 0.5 + 0.5 * min(1, abs(margin) / max(scale, 1e-9)) }
    if greyscale {
        let darkMargin = -a.interiorContrast - config.deadDarkContrast
        let brightMargin = config.refractileContrast - a.centreContrast
        let margin = min(darkMargin, brightMargin)
        return (margin > 0 ? .dead : .live, confidence(margin, config.deadDarkContrast))
    }
    let inBand = a.hueDeg >= config.hueMinDeg && a.hueDeg <= config.hueMaxDeg
    let satMargin = a.saturation - saturationThreshold
    let dark = a.interiorContrast < 0
    if inBand && satMargin > 0 && dark { return (.dead, confidence(satMargin, saturationThreshold)) }
    if !inBand && a.saturation > saturationThreshold { return (.live, 1) }
    return (.live, confidence(satMargin, saturationThreshold))
}

/// What a faint blue stain makes of a candidate called live (`faintStain`).
enum FaintStain: Equatable {
    /// Dark without a clear ring, a cell's size: the debris rule would have judged it.
    case darkDisc
    /// Darker than the background without a bright refractile centre, and not a candidate
    /// for the debris rule: only its call changes.
    case paleCell
}

/// `faintStainShare`: whether a candidate called live is a dead cell that took up little
/// dye, and which kind (nil: it is not). Off the ruling lines (`Candidate.onRulingLine`, no
/// `lineStep`), its white-balanced hue in the blue band with at least `faintStainShare` of
/// the image's dead threshold (`saturationThreshold`), and either dark without a clear ring
/// (`isDarkWithoutClearRing`, debris to the debris rule) with its half-contrast edge
/// (`DiscEdge`) a cell's (`defocusedDiscMinRadius` of `minRadiusPx`), or darker than the
/// background without a refractile centre (`refractileContrast`).
///
/// Why: uptake varies, and a cell that took up a little dye is as blue as a stained one, only
/// paler; a dark speck or grey debris is not blue at all, and a live cell is clear with a
/// bright centre. On a line the line's colour and edges decide the hue and the edge (a steep
/// tone curve tints heavy crossings blue); specks smaller than a cell take a blue cast from
/// noise. (The stage asks it only in an image with
/// `faintStainMinDeadCells` cells called dead.)
func faintStain(_ a: CellAppearance, of c: Candidate, in image: Image, saturationThreshold: Double,
                config: PipelineConfig) -> FaintStain? {
    guard c.lineStep == nil, !c.onRulingLine, a.hueDeg >= config.hueMinDeg, a.hueDeg <= config.hueMaxDeg,
          a.saturation >= config.faintStainShare * saturationThreshold else { return nil }
    guard isDarkWithoutClearRing(a, config: config) else {
        return a.interiorContrast < 0 && a.centreContrast < config.refractileContrast ? .paleCell : nil
    }
    guard let edge = DiscEdge(image, x: c.x, y: c.y, r: c.r),
          edge.radius >= config.defocusedDiscMinRadius * config.minRadiusPx else { return nil }
    return .darkDisc
}
