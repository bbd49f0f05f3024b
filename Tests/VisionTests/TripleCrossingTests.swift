import Foundation
import Testing
import Hemocytometer
@testable import Vision

@Suite("Triple-line crossings")
struct TripleCrossingTests {
    /// 0.8 µm per pixel, rotated 3 degrees, the chamber origin at image (-400, -700).
    static let toChamber: Homography = {
        let chamberToImage = Homography.similarity(scale: 1 / 0.8, rotationRadians: 3 * .pi / 180,
                                                   translation: Point(x: -400, y: -700))
        return chamberToImage.inverse!
    }()

    static func image(ofChamber u: Double, _ v: Double) -> Point {
        toChamber.inverse!.apply(Point(x: u, y: v))!
    }

    @Test func coreOfTwoCrossingTripleLines() {
        // The border line x = 1000 crosses the group-square line y = 1200; both are triple.
        for (du, dv) in [(0.0, 0.0), (4, -4), (-6.5, 6.5), (2.5, 2.5)] {
            let p = Self.image(ofChamber: 1000 + du, 1200 + dv)
            #expect(isInTripleCrossingCore(x: p.x, y: p.y, imageToChamber: Self.toChamber, marginUm: 1.6),
                    "offset (\(du), \(dv)) µm")
        }
    }

    @Test func notOnOneLineAloneOrASingleLineOrOutsideTheRuling() {
        let outside: [(Double, Double)] = [
            (1000, 1100),   // on one triple line, between crossings
            (1000, 1250),   // on a triple line where a single 50 µm line crosses it
            (250, 500),     // two single lines cross
            (1000, 1208),   // just beyond the strokes and the margin
            (-20, 1000),    // left of the ruled area
            (1500, 1500),   // inside a small square
        ]
        for (u, v) in outside {
            let p = Self.image(ofChamber: u, v)
            #expect(!isInTripleCrossingCore(x: p.x, y: p.y, imageToChamber: Self.toChamber, marginUm: 1.6), "(\(u), \(v)) µm")
        }
    }

    @Test func marginWidensTheCore() {
        let p = Self.image(ofChamber: 3000, 1800 + 9)
        #expect(!isInTripleCrossingCore(x: p.x, y: p.y, imageToChamber: Self.toChamber, marginUm: 1.6))
        #expect(isInTripleCrossingCore(x: p.x, y: p.y, imageToChamber: Self.toChamber, marginUm: 4.5))
    }

    /// Triple lines measured wide (`tripleLineHalfWidth`) widen the core to their outer
    /// strokes' middles (half the width less `tripleStrokeAllowanceUm`); measured narrower
    /// than the geometry's, they leave it as it is.
    @Test func measuredWideTripleLinesWidenTheCore() {
        let p = Self.image(ofChamber: 1000 + 9, 1200 - 9)
        #expect(!isInTripleCrossingCore(x: p.x, y: p.y, imageToChamber: Self.toChamber, marginUm: 1.6))
        #expect(!isInTripleCrossingCore(x: p.x, y: p.y, imageToChamber: Self.toChamber, marginUm: 1.6, halfWidthUm: 6))
        #expect(isInTripleCrossingCore(x: p.x, y: p.y, imageToChamber: Self.toChamber, marginUm: 1.6, halfWidthUm: 11))
        let nominal = Self.image(ofChamber: 1000 + 6, 1200 + 6)
        #expect(isInTripleCrossingCore(x: nominal.x, y: nominal.y, imageToChamber: Self.toChamber, marginUm: 1.6,
                                       halfWidthUm: 2))
    }
}
