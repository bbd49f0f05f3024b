import Testing
@testable import Hemocytometer

@Suite("Neubauer geometry")
struct GeometryTests {
    @Test("ruling lines: triple borders, corner and central subdivisions")
    func rulingLines() {
        let lines = NeubauerGeometry.rulingLines()
        let triple = lines.filter { $0.style == .triple }.map(\.positionUm)
        #expect(triple == [0, 1000, 1200, 1400, 1600, 1800, 2000, 3000])
        let fullSingle = lines.filter { $0.style == .single && $0.extentEndUm - $0.extentStartUm == 3000 }.map(\.positionUm)
        #expect(fullSingle == [250, 500, 750, 2250, 2500, 2750])
        let central = lines.filter { $0.extentStartUm == 1000 && $0.extentEndUm == 2000 }
        #expect(central.count == 15)
        #expect(central.allSatisfy { $0.style == .single && Int($0.positionUm) % 50 == 0 && Int($0.positionUm) % 200 != 0 })
        // 20 lines of the central square, every 50 µm from 1000 to 2000 inclusive.
        let inCentral = Set(lines.map(\.positionUm).filter { $0 >= 1000 && $0 <= 2000 })
        #expect(inCentral == Set(stride(from: 1000.0, through: 2000, by: 50)))
        #expect(lines[1].strokePositionsUm == [995, 1000, 1005] || lines[0].strokePositionsUm == [-5, 0, 5])
    }

    @Test func volumes() {
        let areaMM2 = (NeubauerGeometry.largeSquareUm / 1000) * (NeubauerGeometry.largeSquareUm / 1000)
        let volumeUL = areaMM2 * NeubauerGeometry.chamberDepthUm / 1000
        #expect(abs(volumeUL - NeubauerGeometry.largeSquareVolumeMicrolitres) < 1e-12)
        #expect(abs(1000 / volumeUL - NeubauerGeometry.cellsPerMLPerCellPerSquare) < 1e-9)
    }

    @Test func spacings() {
        #expect(NeubauerGeometry.lineSpacingUm(atUm: 100, insideCentralSquare: false) == 250)
        #expect(NeubauerGeometry.lineSpacingUm(atUm: 1100, insideCentralSquare: false) == 200)
        #expect(NeubauerGeometry.lineSpacingUm(atUm: 1100, insideCentralSquare: true) == 50)
        #expect(NeubauerGeometry.lineSpacingUm(atUm: 2500, insideCentralSquare: true) == 250)
    }

    @Test("visible squares: only those entirely inside the image")
    func visibleSquares() {
        // 1 px per µm, shifted so the image (1920 x 1080) shows x 500 ... 2420, y 900 ... 1980.
        let h = Homography.similarity(scale: 1, rotationRadians: 0, translation: Point(x: -500, y: -900))
        #expect(NeubauerGeometry.visibleSquares(chamberToImage: h, imageWidth: 1920, imageHeight: 1080) == [])
        let whole = Homography.similarity(scale: 0.3, rotationRadians: 0, translation: Point(x: 10, y: 10))
        #expect(NeubauerGeometry.visibleSquares(chamberToImage: whole, imageWidth: 1920, imageHeight: 1080)
            == NeubauerGeometry.allLargeSquares)
        let partial = Homography.similarity(scale: 0.5, rotationRadians: 0, translation: Point(x: -200, y: 0))
        // x: -200 ... 1300 px, y: 0 ... 1500 px -> columns 1 and 2 (x 300..800, 800..1300), rows 0 and 1.
        #expect(NeubauerGeometry.visibleSquares(chamberToImage: partial, imageWidth: 1920, imageHeight: 1080)
            == [LargeSquare(row: 0, column: 1), LargeSquare(row: 0, column: 2), LargeSquare(row: 1, column: 1),
                LargeSquare(row: 1, column: 2)])
    }
}
