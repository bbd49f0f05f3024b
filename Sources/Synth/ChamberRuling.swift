/// The Neubauer-improved ruling as the renderer needs it: the positions of every drawn
/// stroke, in chamber µm (origin top-left of the 3 x 3 mm ruled area).
///
/// This mirrors `NeubauerGeometry.rulingLines()` in the Hemocytometer module (which
/// Package.swift does not let Synth import): triple lines at the large-square borders 0, 1000,
/// 2000, 3000 and at the group-square borders 1200 ... 1800, single lines at 250, 500, 750,
/// 2250, 2500, 2750 (all spanning the whole ruled area), and single lines every 50 µm inside
/// the central large square, spanning only that square.
struct ChamberRuling {
    static let ruledAreaUm: Double = 3000

    /// Middle-line positions of the triple lines, µm.
    static let tripleLinesUm: [Double] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 3000]
    /// Single lines spanning the whole ruled area, µm.
    static let fullSingleLinesUm: [Double] = [250, 500, 750, 2250, 2500, 2750]
    /// Single lines of the central large square's 50 µm subdivision, µm; drawn only where the
    /// other coordinate lies in 1000 ... 2000.
    static let centralSingleLinesUm: [Double] = stride(from: 1000.0, to: 2000, by: 50).filter {
        Int($0) % 200 != 0
    }
    static let centralSpanUm: ClosedRange<Double> = 1000...2000

    /// Stroke positions of the lines spanning the whole ruled area, µm.
    /// - Parameter tripleOffsetUm: distance from a triple line's middle stroke to its outer
    ///   strokes (real chambers: a few µm).
    static func fullStrokesUm(tripleOffsetUm: Double) -> [Double] {
        let triple = tripleLinesUm.flatMap { [$0 - tripleOffsetUm, $0, $0 + tripleOffsetUm] }
        return (triple + fullSingleLinesUm).sorted()
    }
}
