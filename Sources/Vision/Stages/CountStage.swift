import Hemocytometer

/// Stage 7: Neubauer counting. Centres go through the grid's image -> chamber mapping; only
/// large squares lying entirely inside the image are counted; when none is, the concentration
/// comes from the density over the calibrated field ("concentration-from-area"), the
/// calibration the ruling's or, without one, the configured `umPerPixel`. Uncalibrated:
/// totals only. A ruling's calibration under which the cells' median diameter is implausible
/// (`calibrationCheckFactor`) gives no concentration ("calibration-implausible").
struct CountStage: Stage {
    let name = "count"

    func run(_ frame: inout Frame) throws {
        let config = frame.config
        let mapping = frame.grid.flatMap { Homography(matrix: $0.result.imageToChamber) }
        let cells = frame.detections.map { d in
            ChamberCell(position: mapping?.apply(Point(x: d.x, y: d.y)), isDead: d.cellClass == .dead)
        }
        var visible: [LargeSquare] = []
        if let mapping, let inverse = mapping.inverse {
            let w = Double(frame.image.width), h = Double(frame.image.height)
            for row in 0..<3 {
                for column in 0..<3 {
                    let square = LargeSquare(row: row, column: column)
                    let inside = NeubauerGeometry.corners(of: square).allSatisfy { c in
                        guard let p = inverse.apply(c) else { return false }
                        return p.x >= -0.5 && p.y >= -0.5 && p.x <= w - 0.5 && p.y <= h - 0.5
                    }
                    if inside { visible.append(square) }
                }
            }
        }
        let settings = CountSettings(squares: config.countedSquares, madCut: config.madCut, dilution: config.dilution,
                                     overcrowdedPerSquare: config.overcrowdedPerSquare,
                                     sparsePerSquare: config.sparsePerSquare)
        var count = countChamber(cells: cells, visibleSquares: visible, settings: settings)
        // A ruling registered at the wrong spacing makes cells of impossible size; then no
        // concentration at all rather than one off by the square of the scale error.
        let implausible = frame.grid.map { grid in
            calibrationAgreesWithCellSizes(radiiPx: frame.detections.map(\.r), umPerPixel: grid.result.umPerPixel,
                                           minDiameterUm: config.minDiameterUm, maxDiameterUm: config.maxDiameterUm,
                                           factor: config.calibrationCheckFactor,
                                           minCells: config.calibrationCheckMinCells) == false
        } ?? false
        if implausible {
            count.meanPerSquare = nil
            count.concentrationPerML = nil
            count.flags.append("calibration-implausible")
        }
        // At high magnification no large square is fully in view. Calibrated (by the ruling or
        // the configuration), the density over the whole field still gives the concentration:
        // cells per mm^2 of chamber (0.1 uL under each mm^2) x 10^4 x dilution. Flagged, since
        // edge cells count fully.
        if !implausible, count.concentrationPerML == nil, let umPerPixel = frame.umPerPixel, umPerPixel > 0,
           let density = fieldDensity(cells: frame.detections.count,
                                      areaMM2: Double(frame.image.width) * Double(frame.image.height)
                                          * umPerPixel * umPerPixel / 1e6,
                                      dilution: config.dilution) {
            count.meanPerSquare = density.perSquare
            count.concentrationPerML = density.perML
            count.flags.append("concentration-from-area")
        }
        frame.count = count
    }
}
