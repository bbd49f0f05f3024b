import Foundation
import Hemocytometer
import Imaging
import Testing
@testable import Vision

@Suite("The chamber map under perspective")
struct PerspectiveTests {
    /// The true image -> chamber map of a 960 x 720 view of the central large square:
    /// 1.1 µm per pixel, turned 3 degrees, centred on chamber (1500, 1500), seen with the
    /// perspective terms `tilt` (per image pixel) about the view's centre.
    static func truth(tilt: (Double, Double)) -> [Double] {
        let (c, s) = (cos(3 * Double.pi / 180), sin(3 * Double.pi / 180))
        let u = 1.1
        // Chamber = centre + u R (p - view centre) / w, w = 1 + tilt . (p - view centre).
        let (cx, cy) = (480.0, 360.0)
        let a = [u * c, -u * s, 0, u * s, u * c, 0, tilt.0, tilt.1, 1]
        let toCentre = [1.0, 0, -cx, 0, 1, -cy, 0, 0, 1]
        let toChamber = [1.0, 0, 1500, 0, 1, 1500, 0, 0, 1]
        return Homography(matrix: toChamber)!.multiplied(by: Homography(matrix: a)!.multiplied(by: Homography(matrix: toCentre)!)).matrix
    }

    static func apply(_ m: [Double], _ x: Double, _ y: Double) -> (Double, Double) {
        let p = Homography(matrix: m)!.apply(Point(x: x, y: y))!
        return (p.x, p.y)
    }

    /// The ruling drawn through `map`: every stroke 2 pixels wide with a pixel of soft edge,
    /// at 55 % of the grey background, plus a little noise (`seed`); a triple line's outer
    /// strokes `tripleOffsetUm` from its middle. `umPerPixel`: the map's scale, for the strokes'
    /// width in pixels. `drawn`: whether the line whose middle lies at the first chamber
    /// coordinate (µm) is drawn at the second, along it (within its extent).
    static func view(map: [Double], tripleOffsetUm: Double = NeubauerGeometry.tripleLineOffsetUm,
                     outerStrokeWeight: Double = 1, umPerPixel: Double = 1.1, seed: UInt64 = 42,
                     drawn: (_ middleUm: Double, _ alongUm: Double) -> Bool = { _, _ in true }) -> Image {
        let (width, height) = (960, 720)
        let strokes = NeubauerGeometry.rulingLines().flatMap { line in
            (line.style == .triple ? [-tripleOffsetUm, 0, tripleOffsetUm] : [0]).map {
                (position: line.positionUm + $0, middle: line.positionUm, from: line.extentStartUm, to: line.extentEndUm,
                 weight: $0 == 0 ? 1 : outerStrokeWeight)
            }
        }
        var random = TestSequence(state: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let (u, v) = apply(map, Double(x), Double(y))
                var cover = 0.0
                for stroke in strokes {
                    func along(_ t: Double) -> Bool { t >= stroke.from && t <= stroke.to && drawn(stroke.middle, t) }
                    if along(v) { cover = max(cover, stroke.weight * min(1, max(0, 1.5 - abs(u - stroke.position) / umPerPixel))) }
                    if along(u) { cover = max(cover, stroke.weight * min(1, max(0, 1.5 - abs(v - stroke.position) / umPerPixel))) }
                }
                let grey = 0.8 * (1 - 0.45 * cover) + 0.02 * (random.next() - 0.5)
                let value = UInt8(max(0, min(255, (grey * 255).rounded())))
                let i = (y * width + x) * 3
                pixels[i] = value
                pixels[i + 1] = value
                pixels[i + 2] = value
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    /// The largest distance between the found map's chamber point and the truth's over a 5 x 4
    /// lattice of the view, µm, modulo the 200 µm group squares: a view inside the central
    /// large square does not tell which group it shows ("grid-origin-assumed").
    static func largestError(_ found: [Double], _ truth: [Double]) -> Double {
        var worst = 0.0
        for x in stride(from: 40.0, through: 920, by: 220) {
            for y in stride(from: 40.0, through: 680, by: 213) {
                let (a, b) = (apply(found, x, y), apply(truth, x, y))
                worst = max(worst, abs(remainder(a.0 - b.0, 200)), abs(remainder(a.1 - b.1, 200)))
            }
        }
        return worst
    }

    static func grid(_ image: Image, perspective: Bool) throws -> GridResult {
        var config = PipelineConfig()
        config.gridPerspective = perspective
        return try #require(try Pipeline(config: config).run(image).grid)
    }

    /// Seen off square, the affine registration misplaces the view's edges by tens of µm; the
    /// refined map finds every point within 2 µm.
    @Test func aViewSeenOffSquareIsMappedThroughAHomography() throws {
        let truth = Self.truth(tilt: (6e-5, -5e-5))
        let image = Self.view(map: truth)
        let affine = try Self.grid(image, perspective: false)
        let refined = try Self.grid(image, perspective: true)
        #expect(Self.largestError(affine.imageToChamber, truth) > 10, "affine \(affine.imageToChamber)")
        #expect(Self.largestError(refined.imageToChamber, truth) < 2, "refined \(refined.imageToChamber)")
        #expect(refined.imageToChamber[6] != 0 && refined.imageToChamber[7] != 0)
        // The calibration stays the registration's.
        #expect(refined.umPerPixel == affine.umPerPixel)
    }

    /// Triple lines drawn wider than the geometry's 5 µm (outer strokes 6 µm from the middle:
    /// manufacturers differ) are located at their middles, not at an outer stroke, where the
    /// box that merges a 5 µm triple's strokes peaks on this one (3.2 µm off at the worst point
    /// of the view then; 0.3 µm now).
    @Test func wideTripleLinesAreLocatedAtTheirMiddles() throws {
        let truth = Self.truth(tilt: (6e-5, -5e-5))
        let refined = try Self.grid(Self.view(map: truth, tripleOffsetUm: 6), perspective: true)
        #expect(Self.largestError(refined.imageToChamber, truth) < 1, "refined \(refined.imageToChamber)")
    }

    /// The triple lines' half width as the view shows them: wider strokes apart, wider; the
    /// same whether the map is refined or not, as long as it finds the lines.
    static func gridFrame(_ image: Image, config: PipelineConfig = PipelineConfig()) throws -> Frame {
        var frame = Frame(image: image, config: config)
        for stage in [NormalizeStage(), IlluminationStage(), GridStage()] as [any Stage] { try stage.run(&frame) }
        return frame
    }

    @Test func theTripleLinesWidthIsMeasured() throws {
        let truth = Self.truth(tilt: (0, 0))
        var widths: [Double] = []
        for offset in [5.0, 6.0] {
            let image = Self.view(map: truth, tripleOffsetUm: offset)
            let frame = try Self.gridFrame(image)
            let grid = try #require(frame.grid)
            let width = try #require(grid.tripleHalfWidthUm)
            let again = tripleLineHalfWidth(frame.flat, imageToChamber: truth, scale: frame.scale)
            #expect(abs(width - (again ?? 0)) < 0.5, "\(width) \(again ?? 0)")
            widths.append(width)
        }
        // Strokes 1.1 µm either side of their middles at full darkness, fading 0.7 µm further.
        #expect(widths[0] > 5 && widths[0] < 8 && widths[1] > widths[0] + 0.6, "\(widths)")
        var off = PipelineConfig()
        off.tripleWidthMeasured = false
        #expect(try Self.gridFrame(Self.view(map: truth), config: off).grid?.tripleHalfWidthUm == nil)
    }

    /// Heavy triple lines, strokes 8 µm either side of the middle and the outer ones half as dark
    /// (the box that merges a 5 µm triple's strokes leaves dips between these, and its half-peak
    /// run stops short of the outer ones): measured to the outer strokes' edges, so that the
    /// crossing's core reaches the little squares between them.
    @Test func heavyTripleLinesAreMeasuredToTheirOuterStrokes() throws {
        let truth = Self.truth(tilt: (0, 0))
        let frame = try Self.gridFrame(Self.view(map: truth, tripleOffsetUm: 8, outerStrokeWeight: 0.5))
        let width = try #require(tripleLineHalfWidth(frame.flat, imageToChamber: truth, scale: frame.scale))
        // The outer strokes' middles at 8 µm, dark to 0.55 µm past them, fading 1.1 µm further.
        #expect(width > 8.5 && width < 11, "\(width)")
    }

    /// Where a profile first and last stands a share of the way up its range: the weaker outer
    /// strokes of a heavy triple line count; an extent reaching the profile's end, or a flat
    /// profile, gives none.
    @Test func theOuterExtentReachesTheWeakerOuterStrokes() throws {
        let heavy: [Double] = [0, 0, 0.5, 0.1, 0.2, 1, 0.2, 0.1, 0.5, 0, 0]
        let extent = try #require(outerExtent(heavy, share: 0.3))
        #expect(abs(extent.start - 1.6) < 1e-9 && abs(extent.end - 8.4) < 1e-9, "\(extent)")
        // The half-peak run sees only the middle stroke.
        let run = try #require(halfPeakRun(heavy, peak: 5, floor: 0))
        #expect(run.end - run.start < 2)
        #expect(outerExtent([0.5, 0, 1, 0, 0], share: 0.3) == nil)
        #expect(outerExtent([0, 0, 1, 0, 0.4], share: 0.3) == nil)
        #expect(outerExtent([0.2, 0.2, 0.2], share: 0.3) == nil)
    }

    /// The middle of a profile's run above half its peak: three strokes' peaks give their
    /// middle whichever stroke is highest; a run reaching the profile's end gives none.
    @Test func theHalfPeakRunGivesTheMiddle() throws {
        let triple: [Double] = [0, 0, 0.1, 1, 0.6, 0.8, 0.6, 0.9, 0.1, 0, 0]
        let run = try #require(halfPeakRun(triple, peak: 3, floor: 0))
        #expect(abs(0.5 * (run.start + run.end) - 5) < 0.1 && abs(run.end - run.start - 5) < 0.2, "\(run)")
        let single = try #require(halfPeakRun([0, 0.2, 1, 0.2, 0], peak: 2, floor: 0))
        #expect(0.5 * (single.start + single.end) == 2)
        #expect(halfPeakRun([1, 0.9, 0.2, 0], peak: 0, floor: 0) == nil)
        #expect(halfPeakRun([0, 0.2, 0.9, 1], peak: 3, floor: 0) == nil)
        #expect(halfPeakRun([0.5, 0.5, 0.5], peak: 1, floor: 0.5) == nil)
        #expect(halfPeakRun([0, 1, 0], peak: 3, floor: 0) == nil)
    }

    /// Seen square on, the refinement, if kept, changes next to nothing.
    @Test func aViewSeenSquareOnKeepsItsMap() throws {
        let truth = Self.truth(tilt: (0, 0))
        let image = Self.view(map: truth)
        let affine = try Self.grid(image, perspective: false)
        let refined = try Self.grid(image, perspective: true)
        #expect(Self.largestError(affine.imageToChamber, truth) < 3)
        #expect(Self.largestError(refined.imageToChamber, truth) < 3)
    }

    /// Without lines to see, nothing is refined, and nothing traps on a degenerate map.
    @Test func noLinesNoRefinement() {
        var flat = Plane(width: 200, height: 150)
        for i in flat.data.indices { flat.data[i] = 1 + 0.001 * Float(i % 7) }
        let map = Self.truth(tilt: (0, 0))
        #expect(perspectiveRefined(flat, imageToChamber: map, scale: 2) == nil)
        #expect(perspectiveRefined(flat, imageToChamber: [Double](repeating: .nan, count: 9), scale: 2) == nil)
        #expect(perspectiveRefined(Plane(width: 4, height: 4), imageToChamber: map, scale: 2) == nil)
        #expect(lineSightings(flat, imageToChamber: map, scale: WorkingScale(2), width: 400, height: 300, tiles: (4, 3), reach: (0.3, 40)).isEmpty)
    }

    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("gridPerspective", off: "false", reads: false, through: \.gridPerspective,
                                   defaultText: "true", invalid: "3")
        try expectConfigurationKey("tripleWidthMeasured", off: "false", reads: false, through: \.tripleWidthMeasured,
                                   defaultText: "true", invalid: "1")
    }
}
