/// Whether a calibration agrees with the cells measured under it: the median diameter of the
/// detected cells, in micrometres at `umPerPixel`, against the diameters cells have.
///
/// Why: a ruling registered at the wrong spacing (a view of 50 µm squares read as 250 µm
/// ones, or the other way round) is off by a factor of 2-5, and so is every concentration
/// taken from it, the area it implies going with the square of the error. The cells, found
/// by their size in pixels, say what a micrometre is too: 3 µm or 60 µm cells mean the
/// calibration, not the cells, is wrong. Only such gross errors show: the detections' sizes
/// spread over the whole configured range.
///
/// - Parameters:
///   - radiiPx: the detections' radii, image pixels.
///   - umPerPixel: the calibration, micrometres per image pixel.
///   - minDiameterUm, maxDiameterUm: the diameters cells have, micrometres.
///   - factor: how far outside that range (a ratio, at least 1) the median may lie and still
///     agree.
///   - minCells: fewest detections to judge by.
/// - Returns: nil when it cannot be judged (fewer than `minCells` finite positive radii, a
///   factor below 1, a calibration or range that is not positive); otherwise whether
///   the median diameter lies within `minDiameterUm / factor ... maxDiameterUm * factor`.
public func calibrationAgreesWithCellSizes(radiiPx: [Double], umPerPixel: Double, minDiameterUm: Double,
                                           maxDiameterUm: Double, factor: Double, minCells: Int) -> Bool? {
    let radii = radiiPx.filter { $0.isFinite && $0 > 0 }
    guard radii.count >= max(1, minCells), factor >= 1, factor.isFinite, umPerPixel.isFinite, umPerPixel > 0,
          minDiameterUm > 0, maxDiameterUm >= minDiameterUm, maxDiameterUm.isFinite,
          let median = RobustStatistics.median(radii) else { return nil }
    let diameterUm = 2 * median * umPerPixel
    return diameterUm >= minDiameterUm / factor && diameterUm <= maxDiameterUm * factor
}
