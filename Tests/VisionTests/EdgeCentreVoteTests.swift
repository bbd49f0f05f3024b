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

    /// The ridge rule on a step blurred over three columns (magnitudes 1, 3, 1 across it): only
    /// the middle column passes, for a gradient along x, and along the diagonals the rule
    /// compares the diagonal neighbours; neighbours outside the window do not suppress.
    @Test func onlyTheRidgeOfAnEdgePasses() {
        let w = 5, h = 3
        // Columns 1 ... 3 carry the edge; magnitudes 1, 3, 1 (column 0 and 4: 0).
        let profile: [Float] = [0, 1, 3, 1, 0]
        let mags = (0..<(w * h)).map { profile[$0 % w] }
        mags.withUnsafeBufferPointer { m in
            let ridge = (0..<w).map { isEdgeRidge(m.baseAddress!, gx: 2, gy: 0.5, x: $0, y: 1, width: w, height: h) }
            #expect(ridge == [false, false, true, false, false], "\(ridge)")
            // A gradient along y compares rows, which are equal here: every pixel passes.
            #expect((0..<w).allSatisfy { isEdgeRidge(m.baseAddress!, gx: 0.1, gy: 2, x: $0, y: 1, width: w, height: h) })
            // At the window's edge the missing neighbour does not suppress.
            #expect(isEdgeRidge(m.baseAddress!, gx: -2, gy: 0, x: 2, y: 0, width: w, height: h))
        }
        // Diagonal gradients: (1, 1) compares (x +- 1, y +- 1), (1, -1) compares (x + 1, y - 1)
        // and (x - 1, y + 1).
        var diagonal = [Float](repeating: 0, count: 9)
        diagonal[4] = 2
        diagonal[8] = 3      // (2, 2): beats the centre along (1, 1) only
        diagonal.withUnsafeBufferPointer { m in
            #expect(!isEdgeRidge(m.baseAddress!, gx: 1, gy: 1, x: 1, y: 1, width: 3, height: 3))
            #expect(isEdgeRidge(m.baseAddress!, gx: 1, gy: -1, x: 1, y: 1, width: 3, height: 3))
            #expect(isEdgeRidge(m.baseAddress!, gx: 1, gy: 0, x: 1, y: 1, width: 3, height: 3))
        }
    }
}

@Suite("Centre voting with a line subtracted")
struct LineSubtractedVoteTests {
    /// A canvas with one dark horizontal line of `width` px centred at `lineY`, and a live cell
    /// of radius 7 at (`cellX`, 30.4) unless `cellX` is nil.
    static func line(at lineY: Double, width: Double, cellX: Double?, noise: Double) -> Image {
        var canvas = Canvas(width: 120, height: 64)
        canvas.paint(factor: (0.45, 0.45, 0.45), bounds: (0, 0, 119, 63)) { _, py in abs(py - lineY) <= width / 2 }
        if let cellX { canvas.liveCell(x: cellX, y: 30.4, r: 7) }
        return canvas.image(noise: noise)
    }

    /// Along a straight line the copies a step either way hold the same line, so a window
    /// showing only the line votes for nothing and the start is kept; the line's edges alone move
    /// the plain vote.
    @Test func theLineCancels() {
        let image = Self.line(at: 30, width: 4, cellX: nil, noise: 0)
        var scratch = VoteScratch()
        let subtracted = voteCentre(image, x: 60, y: 24, r: 7, scratch: &scratch, lineStep: PixelStep(dx: 24, dy: 0))
        #expect(subtracted.x == 60 && subtracted.y == 24)
        let plain = voteCentre(image, x: 60, y: 24, r: 7, scratch: &scratch)
        #expect(abs(plain.y - 24) >= 1, "the line alone no longer moves the plain vote: \(plain)")
    }

    /// The cell stays: its copies lie beyond the voting annulus, and the vote finds its centre.
    /// A step whose copies would reach past the image is ignored: the plain vote's result.
    @Test func theCellStaysAndStepsPastTheImageAreIgnored() {
        let image = Self.line(at: 29, width: 3, cellX: 60.3, noise: 0.01)
        var scratch = VoteScratch()
        let subtracted = voteCentre(image, x: 60.3, y: 27.4, r: 7, scratch: &scratch, lineStep: PixelStep(dx: 24, dy: 0))
        #expect(abs(subtracted.x - 60.3) < 0.5 && abs(subtracted.y - 30.4) < 0.5, "\(subtracted)")
        let plain = voteCentre(image, x: 60.3, y: 27.4, r: 7, scratch: &scratch)
        let pastTheEdge = voteCentre(image, x: 60.3, y: 27.4, r: 7, scratch: &scratch, lineStep: PixelStep(dx: 60, dy: 0))
        #expect(pastTheEdge.x == plain.x && pastTheEdge.y == plain.y)
        let wide = voteCentre(image, x: 60.3, y: 27.4, r: 7, scratch: &scratch, wide: false, lineStep: PixelStep(dx: 24, dy: 0))
        #expect(wide.x == subtracted.x && wide.y == subtracted.y, "the scalar and AVX2 window reads disagree")
    }
}
