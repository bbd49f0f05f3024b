import Testing
@testable import Hemocytometer

@Suite("A calibration against the sizes of the cells it measures")
struct CalibrationCheckTests {
    /// Radii of 5-12 px, median 8: 16 µm cells at 1 µm per pixel.
    static let radii: [Double] = [5, 6, 7, 7.5, 8, 8, 8.5, 9, 10, 11, 12]

    /// Inside 8-30 µm, or outside it by no more than the factor, the calibration agrees; by
    /// more, either way, it does not.
    @Test func theMedianDiameterDecides() {
        func agrees(_ umPerPixel: Double) -> Bool? {
            calibrationAgreesWithCellSizes(radiiPx: Self.radii, umPerPixel: umPerPixel, minDiameterUm: 8,
                                           maxDiameterUm: 30, factor: 1.6, minCells: 10)
        }
        #expect(agrees(1) == true)            // 16 µm
        #expect(agrees(0.32) == true)         // 5.12 µm: 8 / 1.6 = 5 is still plausible
        #expect(agrees(0.3) == false)         // 4.8 µm
        #expect(agrees(3) == true)            // 48 µm = 30 x 1.6
        #expect(agrees(3.1) == false)         // 49.6 µm
        #expect(agrees(0.181) == false)       // a ruling registered at a fifth of its scale
    }

    /// The median, not the mean: a few huge or tiny detections (debris, a clump taken whole)
    /// do not move it.
    @Test func outliersDoNotDecide() {
        let radii = Self.radii + [200, 300, 0.5]
        #expect(calibrationAgreesWithCellSizes(radiiPx: radii, umPerPixel: 1, minDiameterUm: 8, maxDiameterUm: 30,
                                               factor: 1.6, minCells: 10) == true)
    }

    /// Too few cells, a factor below 1, or a calibration or range that is not positive: no
    /// verdict. Radii that are not finite and positive do not count as cells.
    @Test func withoutGroundsThereIsNoVerdict() {
        #expect(calibrationAgreesWithCellSizes(radiiPx: Array(Self.radii.prefix(9)), umPerPixel: 0.1, minDiameterUm: 8,
                                               maxDiameterUm: 30, factor: 1.6, minCells: 10) == nil)
        #expect(calibrationAgreesWithCellSizes(radiiPx: Array(Self.radii.prefix(9)) + [.nan, -3, 0, .infinity],
                                               umPerPixel: 0.1, minDiameterUm: 8, maxDiameterUm: 30, factor: 1.6,
                                               minCells: 10) == nil)
        for (u, lo, hi, f) in [(0.1, 8.0, 30.0, 0.0), (0.1, 8, 30, 0.9), (0, 8, 30, 1.6), (-1, 8, 30, 1.6), (.nan, 8, 30, 1.6),
                               (0.1, 0, 30, 1.6), (0.1, 30, 8, 1.6)] {
            #expect(calibrationAgreesWithCellSizes(radiiPx: Self.radii, umPerPixel: u, minDiameterUm: lo, maxDiameterUm: hi,
                                                   factor: f, minCells: 10) == nil, "\(u) \(lo) \(hi) \(f)")
        }
        // A factor of exactly 1 is the range itself.
        #expect(calibrationAgreesWithCellSizes(radiiPx: Self.radii, umPerPixel: 0.45, minDiameterUm: 8, maxDiameterUm: 30,
                                               factor: 1, minCells: 10) == false)
    }
}
