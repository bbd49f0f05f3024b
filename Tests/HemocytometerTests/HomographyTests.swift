import Foundation
import Testing
@testable import Hemocytometer

@Suite("Homography")
struct HomographyTests {
    private func close(_ a: Point?, _ b: Point, _ tolerance: Double = 1e-6) -> Bool {
        guard let a else { return false }
        return abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
    }

    @Test("recovers a similarity transform")
    func similarity() throws {
        let truth = Homography.similarity(scale: 0.8, rotationRadians: 0.1, translation: Point(x: 400, y: 90))
        let source = NeubauerGeometry.ruledAreaCorners
        let target = try source.map { try #require(truth.apply($0)) }
        let h = try #require(Homography(from: source, to: target))
        for p in [Point(x: 1234, y: 567), Point(x: -300, y: 4000)] {
            #expect(close(h.apply(p), try #require(truth.apply(p))))
        }
    }

    @Test("round trip through a perspective homography and its inverse")
    func perspectiveRoundTrip() throws {
        let chamber = NeubauerGeometry.ruledAreaCorners
        let image = [Point(x: 412, y: 96.5), Point(x: 1510, y: 101), Point(x: 1503.5, y: 1000), Point(x: 405, y: 995)]
        let h = try #require(Homography(from: chamber, to: image))
        for (c, i) in zip(chamber, image) {
            #expect(close(h.apply(c), i))
        }
        let inv = try #require(h.inverse)
        for (c, i) in zip(chamber, image) {
            #expect(close(inv.apply(i), c, 1e-6))
        }
        // Interior points: forward then back returns the same point.
        for p in [Point(x: 1500, y: 1500), Point(x: 250, y: 2750), Point(x: 2999, y: 1)] {
            #expect(close(inv.apply(try #require(h.apply(p))), p, 1e-6))
        }
        // A genuinely projective matrix: the bottom row is not (0, 0, 1).
        #expect(abs(h.matrix[6]) + abs(h.matrix[7]) > 1e-9)
        // The inverse computed from swapped correspondences agrees.
        let direct = try #require(Homography(from: image, to: chamber))
        #expect(close(direct.apply(Point(x: 900, y: 500)), try #require(inv.apply(Point(x: 900, y: 500)))))
    }

    @Test("degenerate correspondences give nil")
    func degenerate() {
        let square = NeubauerGeometry.ruledAreaCorners
        let collinear = [Point(x: 0, y: 0), Point(x: 1, y: 1), Point(x: 2, y: 2), Point(x: 5, y: 0)]
        let repeated = [Point(x: 0, y: 0), Point(x: 0, y: 0), Point(x: 3, y: 3), Point(x: 0, y: 3)]
        let same = [Point](repeating: Point(x: 1, y: 1), count: 4)
        #expect(Homography(from: square, to: collinear) == nil)
        #expect(Homography(from: collinear, to: square) == nil)
        #expect(Homography(from: square, to: repeated) == nil)
        #expect(Homography(from: same, to: square) == nil)
        #expect(Homography(from: Array(square.prefix(3)), to: Array(square.prefix(3))) == nil)
        #expect(Homography(from: square, to: [Point(x: .nan, y: 0)] + square.dropFirst()) == nil)
        #expect(Homography(matrix: [1, 0, 0, 0, 1, 0, 0, 0]) == nil)
        #expect(Homography(matrix: [1, 2, 3, 2, 4, 6, 0, 0, 1])?.inverse == nil)
    }

    @Test("points on the horizon map to nil")
    func horizon() throws {
        let h = try #require(Homography(matrix: [1, 0, 0, 0, 1, 0, 0.01, 0, 1]))
        #expect(h.apply(Point(x: -100, y: 5)) == nil)
        #expect(h.apply(Point(x: 0, y: 5)) != nil)
    }
}
