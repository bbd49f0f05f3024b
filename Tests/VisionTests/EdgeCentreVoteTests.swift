import Testing
import Imaging
@testable import Vision

@Suite("Centre voting")
struct EdgeCentreVoteTests {
    /// A start 0.6 r off the true centre (what DoG repulsion does to a touching pair) comes
    /// back to within half a pixel; the touching neighbour does not pull it over.
    @Test func touchingPairCentresReturnToTheirCells() {
        var canvas = Canvas(width: 80, height: 60)
        canvas.liveCell(x: 30.3, y: 30.6, r: 8)
        canvas.deadCell(x: 46.3, y: 30.6, r: 8)
        let image = canvas.image(noise: 0.01)
        let left = voteCentre(image, x: 30.3 - 4.8, y: 30.6, r: 8)
        #expect(abs(left.x - 30.3) < 0.5 && abs(left.y - 30.6) < 0.5)
        let right = voteCentre(image, x: 46.3 + 3, y: 30.6 + 3, r: 8)
        #expect(abs(right.x - 46.3) < 0.5 && abs(right.y - 30.6) < 0.5)
    }

    /// No boundary anywhere (uniform image), a window at the corner, or a degenerate radius:
    /// the start is returned unchanged.
    @Test func degenerateInputsKeepTheStart() {
        let flat = Canvas(width: 20, height: 20).image()
        let a = voteCentre(flat, x: 10, y: 10, r: 5)
        #expect(a.x == 10 && a.y == 10)
        let b = voteCentre(flat, x: 0, y: 0, r: 0.5)
        #expect(b.x == 0 && b.y == 0)
        let c = voteCentre(flat, x: .nan, y: 3, r: 4)
        #expect(c.x.isNaN && c.y == 3)
    }
}
