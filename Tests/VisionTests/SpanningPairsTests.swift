import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A detection spanning two touching cells gives way to the two")
struct SpanningPairsTests {
    /// A plane of background 1 with two touching clear cells (bright bodies inside dark rims)
    /// or, with `oneDeadCell`, one filled dark disc as wide as the two.
    private func plane(oneDeadCell: Bool) -> Plane {
        var p = Plane(width: 80, height: 60, repeating: 1)
        for y in 0..<60 {
            for x in 0..<80 {
                let fx = Double(x), fy = Double(y)
                if oneDeadCell {
                    if hypot(fx - 40, fy - 30) <= 12 { p[x, y] = 0.5 }
                    continue
                }
                for cx in [33.0, 47.0] {
                    let d = hypot(fx - cx, fy - 30)
                    if d <= 7 { p[x, y] = d >= 5.5 ? 0.55 : 1.2 }
                }
            }
        }
        return p
    }

    private let span = Detection(x: 40, y: 30, r: 12, cellClass: .live, score: 9, confidence: 1, coverage: 1, centred: true)
    private let left = Detection(x: 33, y: 30, r: 7, cellClass: .live, score: 5, confidence: 1, coverage: 0.875, centred: true)
    private let right = Detection(x: 47, y: 30, r: 7, cellClass: .live, score: 5, confidence: 1, coverage: 0.8125, centred: true)

    private func suppress(_ detections: [Detection], on plane: Plane, dip: Double = 0.3) -> [Detection] {
        suppressOverlaps(detections, maxIoU: 0.2, minCentreDistance: 0.8) { a, b in
            junctionDip(plane, scale: 1, from: (a.x, a.y), to: (b.x, b.y)) <= -dip
        }
    }

    @Test func theRimsBetweenTwoCellsDipBelowTheirCentres() {
        let two = plane(oneDeadCell: false), one = plane(oneDeadCell: true)
        #expect(junctionDip(two, scale: 1, from: (33, 30), to: (47, 30)) < log(0.55 / 1.2) + 0.01)
        #expect(abs(junctionDip(one, scale: 1, from: (35, 30), to: (45, 30))) < 1e-6)
        // Image-pixel points on a plane at half resolution: the same places.
        let half = Plane(width: 40, height: 30) { out in
            for y in 0..<30 { for x in 0..<40 { out[y * 40 + x] = two[2 * x, 2 * y] } }
        }
        #expect(junctionDip(half, scale: 2, from: (33.5, 30.5), to: (47.5, 30.5)) < -0.3)
        #expect(junctionDip(Plane(width: 0, height: 0), scale: 1, from: (0, 0), to: (1, 1)) == 0)
    }

    /// Greedy suppression keeps the circle with the most rim round it, which two touching
    /// cells' outer rims supply all round, and drops both cells for it.
    @Test func twoTouchingCellsReplaceTheCircleRoundThem() {
        let two = plane(oneDeadCell: false)
        #expect(suppressOverlaps([left, span, right], maxIoU: 0.2, minCentreDistance: 0.8) == [span])
        #expect(suppress([left, span, right], on: two) == [left, right])
        #expect(suppress([right, left, span], on: two) == [left, right])
    }

    @Test func halvesOfOneCellDoNot() {
        let one = plane(oneDeadCell: true)
        var a = left, b = right
        (a.x, b.x) = (35, 45)
        #expect(suppress([a, span, b], on: one) == [span])
    }

    @Test func eachOfThePairMustBeCentredNoLargerAndOverlapNoOtherKeptDetection() {
        let two = plane(oneDeadCell: false)
        var uncentred = right
        uncentred.centred = false
        #expect(suppress([left, span, uncentred], on: two) == [span])
        var larger = right
        larger.r = 12.5
        #expect(suppress([left, span, larger], on: two) == [span])
        // A kept neighbour overlapping the right-hand one: that one is not the span's alone.
        let neighbour = Detection(x: 54, y: 30, r: 6, cellClass: .live, score: 9, confidence: 1, coverage: 1, centred: true)
        #expect(suppress([left, span, right, neighbour], on: two) == [span, neighbour])
    }

    @Test func theSpanMustLieBetweenThem() {
        let two = plane(oneDeadCell: false)
        // Overlapping both (centres within 0.8 of its radius), but 7.5 px from their midpoint,
        // beyond the 7 px of the circle on them as diameter.
        var offside = span
        (offside.y, offside.r) = (37.5, 14)
        #expect(suppress([left, offside, right], on: two) == [offside])
    }

    /// A crop of the independent generator's seed-2718 `dense-005` (`Tests/Images/README.md`):
    /// a live cell labelled at (112.156, 112.442), r 5.23, touching a dead one at
    /// (115.031, 121.476), r 6.30. The vote put a circle of r 9.6 between them, which took
    /// both cells' candidates; with the rule both cells are found, and nothing else changes.
    @Test func aLiveAndADeadCellUnderOneCircleAreBothFound() throws {
        let (with, without) = try detectionsWithAndWithout("Tests/Images/circle-spanning-two-cells.png") {
            $0.nmsSpanningPairDip = 0
        }
        for (x, y, r) in [(112.156, 112.442, 5.229), (115.031, 121.476, 6.302)] {
            #expect(nearestDistance(with, to: x, y) < 0.5 * r, "(\(x), \(y)): \(nearestDistance(with, to: x, y)) px")
        }
        #expect(nearestDistance(without, to: 112.156, 112.442) > 0.5 * 5.229, "the case no longer arises")
        #expect(with.count == without.count + 1)
        let unchanged = without.filter { !isNear($0, 114.75, 118.95, within: 1) }
        #expect(unchanged.count == without.count - 1)
        for d in unchanged {
            #expect(with.contains { $0.x == d.x && $0.y == d.y && $0.r == d.r }, "(\(d.x), \(d.y)) moved or went")
        }
    }

    /// The setting is read from a configuration file and printed with the defaults.
    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("nmsSpanningPairDip", off: "0", reads: 0, through: \.nmsSpanningPairDip,
                                   defaultText: "0.3", invalid: "-1")
    }
}
