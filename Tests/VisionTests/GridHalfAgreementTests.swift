import Foundation
import Testing
@testable import Vision

@Suite("A ruling runs through both halves of the view; a few cells do not")
struct GridHalfAgreementTests {
    /// Flattened luminance (background 1) with darker pixels where `dark` says.
    static func plane(width: Int = 160, height: Int = 160, dark: (Int, Int) -> Bool) -> Plane {
        var p = Plane(width: width, height: height, repeating: 1)
        var sequence = TestSequence(state: 11)
        for y in 0..<height {
            for x in 0..<width { p[x, y] = (dark(x, y) ? 0.7 : 1) + Float(sequence.next() - 0.5) * 0.02 }
        }
        return p
    }

    /// Vertical lines 2 px wide every 40 px and horizontal ones every 40 px, over the whole view.
    static let ruling = plane { x, y in (x - 10) % 40 < 2 || (y - 10) % 40 < 2 }

    /// Discs of radius 5 px whose columns repeat every 40 px in x and rows every 40 px in y,
    /// but whose lower half is shifted a quarter period in x and whose right half a quarter
    /// period in y: a periodic-looking projection either way, made by objects that do not
    /// line up across the view.
    static let cells = plane { x, y in
        let dx = y >= 80 ? 10 : 0, dy = x >= 80 ? 10 : 0
        let cx = ((x - dx - 20) % 40 + 40) % 40, cy = ((y - dy - 20) % 40 + 40) % 40
        let ox = Double(min(cx, 40 - cx)), oy = Double(min(cy, 40 - cy))
        return ox * ox + oy * oy <= 25
    }

    @Test func ruledLinesAgreeAcrossTheHalves() throws {
        let contrast = Self.ruling.map { abs($0 - 1) }
        for normal in [0.0, Double.pi / 2] {
            let agreement = try #require(HalfProfileAgreement(contrast, normalAngle: normal, period: 40))
            #expect(agreement.correlation > 0.9, "\(agreement)")
            #expect(!agreement.contradicts(minCorrelation: 0.3))
        }
    }

    @Test func cellsThatDoNotLineUpContradictARuling() throws {
        let contrast = Self.cells.map { abs($0 - 1) }
        for normal in [0.0, Double.pi / 2] {
            let agreement = try #require(HalfProfileAgreement(contrast, normalAngle: normal, period: 40))
            #expect(agreement.energyRatio > 0.5, "\(agreement)")
            #expect(agreement.contradicts(minCorrelation: 0.3), "\(agreement)")
        }
    }

    /// The ruled area ends inside the view: lines in the left half only. The right half is
    /// flat, which says nothing against them.
    @Test func linesInOneHalfOnlyAreNotContradicted() throws {
        let corner = Self.plane { x, y in x < 80 && ((x - 10) % 40 < 2 || (y - 10) % 40 < 2) }
        let agreement = try #require(HalfProfileAgreement(corner.map { abs($0 - 1) }, normalAngle: .pi / 2, period: 40))
        #expect(agreement.energyRatio < 0.1, "\(agreement)")
        #expect(!agreement.contradicts(minCorrelation: 0.3))
    }

    /// A ruling seen in perspective: the lines' places differ by 2 px between the halves.
    @Test func convergingLinesStillAgree() throws {
        let converging = Self.plane { x, y in (x - 10 - (y >= 80 ? 2 : 0)) % 40 < 2 }
        let agreement = try #require(HalfProfileAgreement(converging.map { abs($0 - 1) }, normalAngle: 0, period: 40))
        #expect(agreement.correlation > 0.9, "\(agreement)")
    }

    @Test func theDetectorTakesTheRulingAndNotTheCells() throws {
        #expect(detectGridLines(flat: Self.ruling, minSpacing: 20, maxSpacing: 120, minPeriodicity: 0.25,
                                minHalfAgreement: 0.3) != nil)
        #expect(detectGridLines(flat: Self.cells, minSpacing: 20, maxSpacing: 120, minPeriodicity: 0.25) != nil,
                "the cells' projections are not periodic enough: the case no longer arises")
        #expect(detectGridLines(flat: Self.cells, minSpacing: 20, maxSpacing: 120, minPeriodicity: 0.25,
                                minHalfAgreement: 0.3) == nil)
    }

    @Test func unusableInputGivesNoAgreement() {
        #expect(HalfProfileAgreement(Plane(width: 12, height: 12), normalAngle: 0, period: 4) == nil)
        #expect(HalfProfileAgreement(Self.ruling, normalAngle: 0, period: .nan) == nil)
        #expect(HalfProfileAgreement(Self.ruling, normalAngle: 0, period: 200) == nil)
    }
}
