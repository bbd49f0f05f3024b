import Foundation
import Testing
@testable import Vision

@Suite("A cell on a crossing of ruling lines keeps its rim with each line subtracted in turn")
struct CrossingLineSubtractionTests {
    /// A smoothed log-luminance plane: dark single lines at x = 40 and y = 40 (Gaussian
    /// profiles; crossing, their log contrasts add), optionally a ring-shaped cell of radius
    /// 3.5 on the crossing, and light noise.
    static func plane(cell: Bool) -> Plane {
        var sequence = TestSequence(state: 11)
        var plane = Plane(width: 80, height: 80)
        for y in 0..<80 {
            for x in 0..<80 {
                let fx = Double(x), fy = Double(y)
                var v = -0.6 * exp(-(fx - 40) * (fx - 40) / (2 * 0.8 * 0.8)) - 0.6 * exp(-(fy - 40) * (fy - 40) / (2 * 0.8 * 0.8))
                if cell {
                    let d = ((fx - 40) * (fx - 40) + (fy - 40) * (fy - 40)).squareRoot()
                    v -= 0.5 * exp(-(d - 3.5) * (d - 3.5) / (2 * 0.7 * 0.7))
                }
                plane[x, y] = Float(v) + Float(0.004 * (sequence.next() - 0.5))
            }
        }
        return plane
    }

    static func test(_ plane: Plane) -> ClearSideRimTest {
        ClearSideRimTest(plane: plane, threshold: 0.04, gridNormals: [0, .pi / 2], minCoverage: 0.75, maxGridAligned: 0.45,
                         borderCells: true)
    }

    static let candidate = Candidate(x: 40, y: 40, r: 3.5, score: 1, contrast: 0.1)
    static let along = [(dx: 0, dy: 12), (dx: 12, dy: 0)]

    @Test func theCellShowsItsRimWithEitherLineSubtracted() {
        let test = Self.test(Self.plane(cell: true))
        for step in Self.along {
            #expect(test.showsRim(Self.candidate, step: step, others: []) == true, "step \(step)")
        }
    }

    /// What is left of a bare crossing with one line subtracted is the other line: its edges
    /// face the centre along the grid normals only.
    @Test func aBareCrossingShowsTheOtherLineOnly() {
        let test = Self.test(Self.plane(cell: false))
        for step in Self.along {
            #expect(test.showsRim(Self.candidate, step: step, others: []) == false, "step \(step)")
        }
    }

    /// With another candidate a step away on both sides of a line, that line cannot be
    /// subtracted cleanly: no verdict.
    @Test func neighboursOnBothSidesLeaveNoVerdict() {
        let test = Self.test(Self.plane(cell: true))
        let others = [Candidate(x: 40, y: 28, r: 3.5, score: 1, contrast: 0.1), Candidate(x: 40, y: 52, r: 3.5, score: 1, contrast: 0.1)]
        #expect(test.showsRim(Self.candidate, step: (dx: 0, dy: 12), others: others) == nil)
        #expect(test.showsRim(Self.candidate, step: (dx: 12, dy: 0), others: others) == true)
        #expect(neighbours(of: 0, in: [Self.candidate] + others, reach: 20).count == 2)
        #expect(neighbours(of: 0, in: [Self.candidate] + others, reach: 10).isEmpty)
    }

    /// The `standard-s101-001` Golden: a live cell on a crossing of single lines is found only
    /// with `cellsOnCrossings`, for no false detection more. (Its rim between the lines,
    /// `crossingRimDepth`, keeps it too: off here, so that the line subtraction is what this
    /// tests.)
    @Test func aCellOnACrossingOfAGolden() throws {
        var base = PipelineConfig()
        base.crossingRimDepth = 0
        let run = try SwitchedGoldenRun(golden: "standard-s101-001", extension: "jpg", tolerance: 3, base: base) {
            $0.cellsOnCrossings = false
        }
        let cell = (x: 549.661, y: 166.734)
        #expect(hasDetection(run.with, near: cell.x, cell.y, within: 3), "cell not found with cellsOnCrossings")
        #expect(!hasDetection(run.without, near: cell.x, cell.y, within: 3), "cell found without cellsOnCrossings: pick another")
        #expect(run.falseWith <= run.falseWithout, "false detections \(run.falseWithout) -> \(run.falseWith)")
    }
}
