import Foundation
import Imaging
import Testing
@testable import Vision

/// The stain map and dead cells on ruling lines.
@Suite("Stain")
struct StainTests {
    /// A yellowish background with a grey line (rows 20 ... 25) and a blue disc at (60, 40).
    static func scene(width: Int = 120, height: Int = 80) -> Image {
        var canvas = Canvas(width: width, height: height, background: (0.8, 0.76, 0.6))
        canvas.paint(factor: (0.4, 0.4, 0.4), bounds: (0, 20, width - 1, 25)) { _, y in y >= 19.5 && y <= 25.5 }
        canvas.deadCell(x: 60, y: 40, r: 8)
        return canvas.image(noise: 0.01)
    }

    @Test func greyLinesAndTheLampsCastVanishBlueCellsDoNot() {
        let stain = stainPlane(Self.scene(), scale: 2)
        #expect(stain.width == 60 && stain.height == 40)
        #expect(abs(stain[10, 30]) < 0.05, "background \(stain[10, 30])")
        #expect(abs(stain[10, 11]) < 0.05, "line \(stain[10, 11])")
        #expect(stain[30, 20] > 0.4, "dead cell \(stain[30, 20])")
    }

    /// The core of a crossing of dark ruling lines holds pixels with a tenth of the
    /// background's light, whose colour ratio is easily swayed: its centre may read as stained,
    /// but the stain map shows no disc round it, while a dead cell lying on the crossing shows
    /// its whole boundary there (what the triple-line crossing filter asks of a cell it keeps).
    @Test func aCrossingsDarkCoreShowsNoStainedDisc() throws {
        func evidence(deadCell: Bool) throws -> StainEvidence {
            var canvas = Canvas(width: 120, height: 80, background: (0.62, 0.68, 0.61))
            // Two triple lines (strokes 2 px wide, 6 px apart) crossing at (60, 40), a tenth as
            // bright as the background with a faint blue cast (a lens's colour fringe; in the
            // independent set's images chroma noise did the same).
            func onStroke(_ t: Double) -> Bool { [-6.0, 0, 6].contains { abs(t - $0) <= 1 } }
            canvas.paint(factor: (0.10, 0.11, 0.15), bounds: (0, 0, 119, 79)) { x, y in onStroke(x - 60) || onStroke(y - 40) }
            if deadCell { canvas.deadCell(x: 60, y: 40, r: 8) }
            return try stainEvidence(canvas.image(noise: 0.03))
        }
        let core = Candidate(x: 29.75, y: 19.75, r: 4, score: 0, contrast: 0.1)
        let bare = try evidence(deadCell: false), cell = try evidence(deadCell: true)
        #expect(bare.isStained(x: core.x, y: core.y), "the case no longer arises")
        #expect(bare.coverage(of: core) < 0.75, "\(bare.coverage(of: core))")
        #expect(cell.isStained(x: core.x, y: core.y))
        #expect(cell.coverage(of: core) >= 0.75, "\(cell.coverage(of: core))")
    }

    @Test(arguments: [(1, 1, 1), (5, 3, 2), (7, 9, 4), (3, 2, 8)])
    func theMapHasTheWorkingPlanesSize(width: Int, height: Int, scale: Int) {
        let image = Image(width: width, height: height, fill: (r: 200, g: 180, b: 90))
        let stain = stainPlane(image, scale: scale)
        #expect(stain.width == (width + scale - 1) / scale && stain.height == (height + scale - 1) / scale)
        #expect(stain.data.allSatisfy { abs($0) < 1e-5 }, "\(stain.data)")
    }

    /// The stain map against its first version (a block loop for every scale), kept here as
    /// the reference: the 2 x 2 fast paths (the Swift loop and, where the CPU has AVX2,
    /// `ck_stain_pairs_avx2`) must give the same bits, odd sizes included.
    @Test(arguments: [(120, 80, 2), (121, 81, 2), (7, 5, 2), (1, 1, 2), (2, 3, 2), (33, 17, 3), (31, 9, 1), (67, 4, 2)])
    func stainPlaneMatchesReference(width: Int, height: Int, scale: Int) {
        var canvas = Canvas(width: width, height: height, background: (0.8, 0.76, 0.6))
        canvas.deadCell(x: Double(width) / 2, y: Double(height) / 2, r: 8)
        let image = canvas.image(noise: 0.05)
        let want = Self.referenceStainPlane(image, scale: scale)
        for wide in [false, true] {
            let got = stainPlane(image, scale: scale, wide: wide)
            #expect(KernelReferenceTests.identical(got, want), "\(width)x\(height) scale \(scale) wide \(wide) (AVX2: \(wideGrey))")
        }
    }

    static func referenceStainPlane(_ image: Image, scale: Int) -> Plane {
        let s = max(1, scale)
        let iw = image.width, ih = image.height
        guard iw > 0, ih > 0, image.pixels.count >= iw * ih * 3 else { return Plane(width: 0, height: 0) }
        let w = (iw + s - 1) / s, h = (ih + s - 1) / s
        var out = Plane(width: w, height: h)
        var blue = [Int](repeating: 0, count: w), redGreen = [Int](repeating: 0, count: w)
        // Logs of every sum a block of up to 8 x 8 pixels can give, so a pixel costs two lookups.
        let logs: [Float] = s <= 8 ? (0...(512 * s * s)).map { log(Float($0)) } : []
        image.pixels.withUnsafeBufferPointer { px in
            out.data.withUnsafeMutableBufferPointer { o in
                blue.withUnsafeMutableBufferPointer { bp in
                    redGreen.withUnsafeMutableBufferPointer { rgp in
                        let base = px.baseAddress!, b = bp.baseAddress!, rg = rgp.baseAddress!
                        for y in 0..<h {
                            b.update(repeating: 0, count: w)
                            rg.update(repeating: 0, count: w)
                            let y0 = y &* s, y1 = min(y0 &+ s, ih)
                            for yy in y0..<y1 {
                                var p = base + yy &* iw &* 3
                                var x = 0
                                for k in 0..<w {
                                    let end = min(x &+ s, iw)
                                    var sb = 0, srg = 0
                                    while x < end {
                                        srg &+= Int(p[0]) &+ Int(p[1])
                                        sb &+= Int(p[2])
                                        p += 3
                                        x &+= 1
                                    }
                                    b[k] &+= sb
                                    rg[k] &+= srg
                                }
                            }
                            // One count per pixel keeps black blocks finite.
                            let rows = y1 &- y0
                            let row = o.baseAddress! + y &* w
                            for k in 0..<w {
                                let n = rows &* (min(k &* s &+ s, iw) &- k &* s)
                                let top = 2 &* b[k] &+ 2 &* n, bottom = rg[k] &+ 2 &* n
                                row[k] = top < logs.count && bottom < logs.count
                                    ? logs[top] - logs[bottom] : log(Float(top)) - log(Float(bottom))
                            }
                        }
                    }
                }
            }
        }
        var sample = stride(from: 0, to: out.count, by: max(1, out.count / 4096)).map { out.data[$0] }
        let median = selectKth(&sample, sample.count / 2) ?? 0
        for i in 0..<out.count { out.data[i] -= median }
        return out
    }

    @Test func blackAndEmptyImagesGiveAFiniteMap() {
        #expect(stainPlane(Image(width: 4, height: 4, fill: (r: 0, g: 0, b: 0)), scale: 2).data.allSatisfy { $0 == 0 })
        #expect(stainPlane(Image(width: 0, height: 0, fill: (r: 0, g: 0, b: 0)), scale: 2).count == 0)
    }

    @Test func theCentroidFindsTheDiscFromAnOffsetStart() {
        let stain = gaussianBlur(stainPlane(Self.scene(), scale: 1), sigma: 1)
        let c = stainCentroid(stain, x: 64, y: 37, radius: 10, floor: 0.1)
        #expect(hypot(c.x - 60, c.y - 40) < 0.5, "\(c)")
        #expect(stainCentroid(stain, x: 10, y: 10, radius: 5, floor: 0.1) == (x: 10, y: 10))
    }

    /// A dead cell half on a heavy line (dark 8-pixel lines every 80 pixels), its centre 2 or
    /// 4 pixels off the line's middle: found with the stain map; 2 pixels off, lost without it
    /// (4 pixels off, enough of its rim lies beside the line for the luminance test).
    @Test(arguments: [2.0, 4])
    func aDeadCellOnAHeavyLineIsCounted(offset: Double) throws {
        var canvas = Canvas(width: 320, height: 240)
        canvas.grid(spacing: 80, angle: 0.03, lineWidth: 8, darkness: 0.3)
        let line = (x: 120.0, y: 80 * cos(0.03) + 120 * sin(0.03) + offset)
        canvas.deadCell(x: line.x, y: line.y, r: 8)
        var config = PipelineConfig()
        config.minRadiusPx = 5
        config.maxRadiusPx = 12
        let found = try Pipeline(config: config).run(canvas.image(noise: 0.01))
        #expect(matchCount(found.detections, [(x: line.x, y: line.y)], tolerance: 4) == 1, "\(found.detections)")
        #expect(found.detections.count == 1, "\(found.detections)")
        #expect(found.detections.first?.cellClass == .dead)
        guard offset <= 2 else { return }
        config.stainLevel = 0
        let without = try Pipeline(config: config).run(canvas.image(noise: 0.01))
        #expect(matchCount(without.detections, [(x: line.x, y: line.y)], tolerance: 4) == 0, "\(without.detections)")
    }
}
