import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Small candidates one sector short at the working scale are tested at full resolution")
struct FineRimTests {
    /// A grey 8-bit image with a disc-shaped cell: a dark ring of radius `r` (2 px wide) round
    /// a bright centre, or no cell when `r` is nil; `line`: a dark vertical line 3 px wide
    /// through the centre instead.
    static func image(size: Int = 48, r: Double?, line: Bool = false) -> Image {
        var pixels = [UInt8](repeating: 0, count: size * size * 3)
        let c = Double(size) / 2
        for y in 0..<size {
            for x in 0..<size {
                let d = ((Double(x) - c) * (Double(x) - c) + (Double(y) - c) * (Double(y) - c)).squareRoot()
                var v = 150.0
                if let r { v = abs(d - r) <= 1 ? 60 : d < r - 1 ? 210 : 150 }
                if line, abs(Double(x) - c) <= 1.5 { v = 60 }
                for k in 0..<3 { pixels[(y * size + x) * 3 + k] = UInt8(v) }
            }
        }
        return Image(width: size, height: size, pixels: pixels)
    }

    /// Three cells of radius 7 (dark rings round bright centres) round a spot at (24, 24),
    /// 120 degrees apart, their rims 7-9 px from it: what a small candidate between cells in a
    /// clump sees.
    static func clump(size: Int = 64) -> Image {
        var pixels = [UInt8](repeating: 150, count: size * size * 3)
        let centres = (0..<3).map { k in
            let a = Double(k) * 2 * .pi / 3
            return (24 + 15 * cos(a), 24 + 15 * sin(a))
        }
        for y in 0..<size {
            for x in 0..<size {
                for (cx, cy) in centres {
                    let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                    if d <= 8 {
                        for k in 0..<3 { pixels[(y * size + x) * 3 + k] = abs(d - 7) <= 1 ? 60 : 210 }
                    }
                }
            }
        }
        return Image(width: size, height: size, pixels: pixels)
    }

    static let test = FineRimTest(image: image(r: 5), sigma: 1.4, threshold: 0.05, ringDepth: 0.02)

    @Test func aSmallRingShowsAllRound() {
        let e = Self.test.evidence(x: 24, y: 24, r: 5, gridNormals: [0, .pi / 2])
        #expect(e.coverage >= 0.9375, "\(e)")
        #expect(e.gridAligned <= 0.45, "\(e)")
        #expect(e.darkRingSectors == 16)
    }

    /// Between three cells their rims face the spot from most sides, but between the cells
    /// its rays run out onto the background: no dark ring all round.
    @Test func aSpotBetweenCellsHasNoDarkRingAllRound() {
        let gap = FineRimTest(image: Self.clump(), sigma: 1.4, threshold: 0.05, ringDepth: 0.02)
            .evidence(x: 24, y: 24, r: 6, gridNormals: [])
        #expect(gap.darkRingSectors < 16, "\(gap)")
        #expect(gap.darkRingSectors >= 3, "the neighbours' rims are no longer in reach: \(gap)")
        #expect(gap.coverage > 0, "the neighbours' rims no longer face the spot: \(gap)")
    }

    @Test func aUniformImageOrALineShowsNoRim() {
        let blank = FineRimTest(image: Self.image(r: nil), sigma: 1.4, threshold: 0.05, ringDepth: 0.02)
        #expect(blank.evidence(x: 24, y: 24, r: 5, gridNormals: []).coverage == 0)
        let line = FineRimTest(image: Self.image(r: nil, line: true), sigma: 1.4, threshold: 0.05, ringDepth: 0.02)
        #expect(line.evidence(x: 24, y: 24, r: 5, gridNormals: []).coverage <= 0.5)
    }

    /// The window is cut to the image: a candidate at the corner reads no pixel outside it.
    @Test func aCandidateAtTheCornerStaysInsideTheImage() {
        let e = Self.test.evidence(x: 0, y: 0, r: 8, gridNormals: [])
        #expect(e.coverage <= 0.25, "\(e)")
        let outside = Self.test.evidence(x: 1e6, y: -1e6, r: 5, gridNormals: [])
        #expect(outside.coverage == 0 && outside.gridAligned == 0 && outside.darkRingSectors == 0)
        // A pixel buffer cut short after the image was made is not read past its end.
        var short = Self.image(r: 5)
        short.pixels.removeLast(48 * 3)
        let cut = FineRimTest(image: short, sigma: 1.4, threshold: 0.05, ringDepth: 0.02).evidence(x: 24, y: 24, r: 5, gridNormals: [])
        #expect(cut.coverage == 0 && cut.darkRingSectors == 0)
    }

    /// A crop of the independent synthetic set: a small live cell (r about 5 px, 2.5 working
    /// pixels) beside a clump, missed at the working scale (11 of 16 sectors) and found with
    /// the full-resolution test, the other detections unchanged.
    @Test func aSmallCellBesideAClumpIsFound() throws {
        let (with, without) = try detectionsWithAndWithout("Tests/Images/small-cell-beside-clump.png") { $0.fineRimMaxRadiusPx = 0 }
        func near(_ d: Detection) -> Bool { isNear(d, 80.7, 80.1, within: 3) }
        #expect(!without.contains(where: near), "found without the full-resolution test: the case no longer arises")
        #expect(with.contains(where: near))
        #expect(with.filter { !near($0) } == without, "the other detections changed")
    }
}
