import Testing
@testable import Hemocytometer

@Suite("Chamber counting")
struct CountChamberTests {
    /// `n` cells spread inside `square`, the first `dead` of them dead.
    private func cells(in square: LargeSquare, n: Int, dead: Int = 0) -> [ChamberCell] {
        (0..<n).map { i in
            let x = Double(square.column) * 1000 + 10 + Double(i % 30) * 30
            let y = Double(square.row) * 1000 + 10 + Double(i / 30) * 30
            return ChamberCell(position: Point(x: x, y: y), isDead: i < dead)
        }
    }

    @Test("field density: cells per mm^2 of a field, x 10^4 x dilution per mL")
    func fieldDensityOfAPartialView() throws {
        // 30 cells over 0.12 mm^2 (400 x 300 µm): 250 per mm^2, 5,000,000 per mL at dilution 2.
        let d = try #require(fieldDensity(cells: 30, areaMM2: 0.12, dilution: 2))
        #expect(abs(d.perSquare - 250) < 1e-9)
        #expect(abs(d.perML - 5_000_000) < 1e-6)
        #expect(fieldDensity(cells: 0, areaMM2: 0.12, dilution: 1)?.perML == 0)
        for area in [0, -1, Double.infinity, .nan] {
            #expect(fieldDensity(cells: 3, areaMM2: area, dilution: 1) == nil)
        }
    }

    @Test("concentration = mean per corner square x 10^4 x dilution")
    func concentration() throws {
        let c = LargeSquare.corners
        let all = cells(in: c[0], n: 40, dead: 4) + cells(in: c[1], n: 50) + cells(in: c[2], n: 60, dead: 6)
            + cells(in: c[3], n: 50) + cells(in: LargeSquare(row: 1, column: 1), n: 99)
        let result = countChamber(cells: all, visibleSquares: NeubauerGeometry.allLargeSquares,
                                  settings: CountSettings(dilution: 2))
        #expect(result.total == 299)
        #expect(result.dead == 10)
        #expect(result.live == 289)
        #expect(result.squares.map(\.square) == c.sorted())
        #expect(result.squares.map(\.total) == [40, 50, 60, 50])
        #expect(result.squares.allSatisfy { !$0.rejected })
        #expect(result.meanPerSquare == 50)
        #expect(try #require(result.concentrationPerML) == 50 * 1e4 * 2)
        #expect(abs(try #require(result.viabilityPercent) - 289.0 / 299.0 * 100) < 1e-9)
        #expect(result.flags.isEmpty)
    }

    @Test("an outlier square is rejected and left out of the mean")
    func outlierRejected() throws {
        let c = LargeSquare.corners
        let all = cells(in: c[0], n: 50) + cells(in: c[1], n: 52) + cells(in: c[2], n: 48) + cells(in: c[3], n: 150)
        let result = countChamber(cells: all, visibleSquares: NeubauerGeometry.allLargeSquares, settings: CountSettings())
        #expect(result.squares.map(\.rejected) == [false, false, false, true])
        #expect(result.meanPerSquare == 50)
        #expect(try #require(result.concentrationPerML) == 50e4)
    }

    @Test("without visible corner squares the visible squares are counted")
    func fallsBackToVisibleSquares() {
        let centre = LargeSquare(row: 1, column: 1)
        let all = cells(in: centre, n: 30) + cells(in: LargeSquare(row: 0, column: 0), n: 7)
        let result = countChamber(cells: all, visibleSquares: [centre], settings: CountSettings())
        #expect(result.squares.map(\.square) == [centre])
        #expect(result.meanPerSquare == 30)
        #expect(result.total == 37)
    }

    @Test("only visible preferred squares are counted")
    func partialCorners() {
        let c = LargeSquare.corners
        let all = cells(in: c[0], n: 20) + cells(in: c[3], n: 80)
        let result = countChamber(cells: all, visibleSquares: [c[0], LargeSquare(row: 0, column: 1)],
                                  settings: CountSettings())
        #expect(result.squares.map(\.square) == [c[0]])
        #expect(result.meanPerSquare == 20)
    }

    @Test("uncalibrated cells count in totals and viability only")
    func uncalibrated() throws {
        let all = [ChamberCell(position: nil, isDead: true), ChamberCell(position: nil, isDead: false),
                   ChamberCell(position: nil, isDead: false), ChamberCell(position: nil, isDead: false)]
        let result = countChamber(cells: all, visibleSquares: [], settings: CountSettings())
        #expect(result.total == 4)
        #expect(result.dead == 1)
        #expect(result.squares.isEmpty)
        #expect(result.meanPerSquare == nil)
        #expect(result.concentrationPerML == nil)
        #expect(try #require(result.viabilityPercent) == 75)
        #expect(result.flags.isEmpty)
    }

    @Test("no cells: viability nil, too sparse")
    func empty() {
        let result = countChamber(cells: [], visibleSquares: NeubauerGeometry.allLargeSquares, settings: CountSettings())
        #expect(result.total == 0)
        #expect(result.viabilityPercent == nil)
        #expect(result.meanPerSquare == 0)
        #expect(result.concentrationPerML == 0)
        #expect(result.flags == [CountFlag.tooSparse])
    }

    @Test("overcrowded above the limit")
    func overcrowded() {
        let all = LargeSquare.corners.flatMap { cells(in: $0, n: 31) }
        let result = countChamber(cells: all, visibleSquares: LargeSquare.corners,
                                  settings: CountSettings(overcrowdedPerSquare: 30, sparsePerSquare: 1))
        #expect(result.flags == [CountFlag.overcrowded])
    }

    @Test("cells on a border follow the inclusion rule")
    func borderCells() {
        // On x = 1000 inside row 0: belongs to (0,1), not to the counted corner (0,0).
        let onLine = ChamberCell(position: Point(x: 1000, y: 500), isDead: false)
        let onTopLeft = ChamberCell(position: Point(x: 0, y: 0), isDead: false)
        let result = countChamber(cells: [onLine, onTopLeft], visibleSquares: [LargeSquare(row: 0, column: 0)],
                                  settings: CountSettings())
        #expect(result.squares.first?.total == 1)
    }
}
