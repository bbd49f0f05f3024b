import Testing
@testable import Hemocytometer

@Suite("Inclusion rule")
struct InclusionRuleTests {
    private func square(_ x: Double, _ y: Double) -> LargeSquare? {
        NeubauerGeometry.largeSquare(containing: Point(x: x, y: y))
    }

    @Test("square interiors map to row-major squares")
    func interiors() {
        for row in 0..<3 {
            for column in 0..<3 {
                #expect(square(Double(column) * 1000 + 500, Double(row) * 1000 + 500) == LargeSquare(row: row, column: column))
            }
        }
    }

    @Test("a point on a shared vertical line goes to the square whose left border it is")
    func verticalLines() {
        #expect(square(1000, 500) == LargeSquare(row: 0, column: 1))
        #expect(square(2000, 500) == LargeSquare(row: 0, column: 2))
        #expect(square(1000, 1500) == LargeSquare(row: 1, column: 1))
        #expect(square(2000, 2500) == LargeSquare(row: 2, column: 2))
        #expect(square(999.999, 500) == LargeSquare(row: 0, column: 0))
        #expect(square(1999.999, 500) == LargeSquare(row: 0, column: 1))
    }

    @Test("a point on a shared horizontal line goes to the square whose top border it is")
    func horizontalLines() {
        #expect(square(500, 1000) == LargeSquare(row: 1, column: 0))
        #expect(square(500, 2000) == LargeSquare(row: 2, column: 0))
        #expect(square(2500, 1000) == LargeSquare(row: 1, column: 2))
        #expect(square(500, 999.999) == LargeSquare(row: 0, column: 0))
        #expect(square(500, 1999.999) == LargeSquare(row: 1, column: 0))
    }

    @Test("inner corners where four squares meet go to the bottom-right square of the four")
    func innerCorners() {
        #expect(square(1000, 1000) == LargeSquare(row: 1, column: 1))
        #expect(square(2000, 1000) == LargeSquare(row: 1, column: 2))
        #expect(square(1000, 2000) == LargeSquare(row: 2, column: 1))
        #expect(square(2000, 2000) == LargeSquare(row: 2, column: 2))
    }

    @Test("outer top and left edges are in, outer bottom and right edges are out")
    func outerEdges() {
        #expect(square(0, 0) == LargeSquare(row: 0, column: 0))
        #expect(square(0, 1500) == LargeSquare(row: 1, column: 0))
        #expect(square(1500, 0) == LargeSquare(row: 0, column: 1))
        #expect(square(3000, 500) == nil)
        #expect(square(500, 3000) == nil)
        #expect(square(3000, 3000) == nil)
        #expect(square(3000, 0) == nil)
        #expect(square(0, 3000) == nil)
        #expect(square(2999.999, 2999.999) == LargeSquare(row: 2, column: 2))
    }

    @Test("outside the ruled area and non-finite points give nil")
    func outside() {
        #expect(square(-0.001, 500) == nil)
        #expect(square(500, -0.001) == nil)
        #expect(square(-5000, -5000) == nil)
        #expect(square(.nan, 500) == nil)
        #expect(square(500, .infinity) == nil)
    }
}
