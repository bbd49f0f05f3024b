import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A candidate on a crossing is kept when its rim shows between the lines")
struct CrossingRimTests {
    /// A log-luminance plane (background 0) with a dark vertical and a dark horizontal line
    /// (3 px wide, -0.5) crossing at (40, 40), and optionally a cell there: a dark ring between
    /// 0.8 and 1.1 radii (-0.4) round a clear interior (+0.1), with `openQuadrant` (0 ... 3)
    /// left without ring.
    static func crossing(cellRadius r: Double?, openQuadrant: Int? = nil) -> Plane {
        var p = Plane(width: 80, height: 80)
        for y in 0..<80 {
            for x in 0..<80 {
                let dx = Double(x) - 40, dy = Double(y) - 40
                var v: Float = 0
                if let r {
                    let d = (dx * dx + dy * dy).squareRoot()
                    let quadrant = (dx >= 0 ? 0 : 1) + (dy >= 0 ? 0 : 2)
                    if d < 0.8 * r { v = 0.1 } else if d <= 1.1 * r && quadrant != openQuadrant { v = -0.4 }
                }
                if abs(dx) <= 1 || abs(dy) <= 1 { v = min(v, -0.5) }
                p[x, y] = v
            }
        }
        return gaussianBlur(p, sigma: 0.7)
    }

    static let axes = (0.0, Double.pi / 2)

    @Test func aCellOnACrossingShowsItsRimBetweenTheLines() {
        #expect(showsRimBetweenLines(Self.crossing(cellRadius: 8), x: 40, y: 40, r: 8, angles: Self.axes, depth: 0.1))
        // Ruling directions estimated 6 degrees off: the rays still run between the lines.
        #expect(showsRimBetweenLines(Self.crossing(cellRadius: 8), x: 40, y: 40, r: 8, angles: (0.1, Double.pi / 2 + 0.1),
                                     depth: 0.1))
    }

    /// The bare crossing has open background between its lines; a ring open in one quadrant
    /// is not a cell's rim all round; a depth beyond the ring's fails.
    @Test func aBareCrossingOrAnOpenRingDoesNot() {
        #expect(!showsRimBetweenLines(Self.crossing(cellRadius: nil), x: 40, y: 40, r: 8, angles: Self.axes, depth: 0.1))
        for open in 0..<4 {
            #expect(!showsRimBetweenLines(Self.crossing(cellRadius: 8, openQuadrant: open), x: 40, y: 40, r: 8,
                                          angles: Self.axes, depth: 0.1), "quadrant \(open) open")
        }
        #expect(!showsRimBetweenLines(Self.crossing(cellRadius: 8), x: 40, y: 40, r: 8, angles: Self.axes, depth: 0.6))
    }

    @Test func degenerateInputsAreNoRim() {
        let p = Self.crossing(cellRadius: 8)
        for (x, y, r) in [(40.0, 40.0, 0.0), (40, 40, -3), (.nan, 40, 8), (40, .infinity, 8), (40, 40, .nan), (1e300, 40, 8)] {
            #expect(!showsRimBetweenLines(p, x: x, y: y, r: r, angles: Self.axes, depth: 0.1))
        }
        #expect(!showsRimBetweenLines(Plane(width: 1, height: 1), x: 0, y: 0, r: 4, angles: Self.axes, depth: 0.1))
    }

    /// A live cell on a single ruling line between neighbours in a row (a crop of the
    /// independent generator's `dense-004`, labelled at (120.11, 120.285), r 7.42 px): the
    /// neighbours' rims read as a second line, so the crossing test dropped it; its rim shows
    /// between the lines, and nothing else changes.
    @Test func aCellBetweenARowAndALineIsKept() throws {
        let (with, without) = try detectionsWithAndWithout("Tests/Images/cell-between-row-and-line.png") {
            $0.crossingRimDepth = 0
        }
        #expect(nearestDistance(with, to: 120.11, 120.285) < 2, "\(nearestDistance(with, to: 120.11, 120.285)) px")
        #expect(nearestDistance(without, to: 120.11, 120.285) > 7.42, "the case no longer arises")
        #expect(with.count == without.count + 1)
    }
}
