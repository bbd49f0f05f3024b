import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A round grey disc of a cell's size is a cell seen out of focus, not debris")
struct DefocusedDiscTests {
    /// Five dark unstained objects 60 px apart on one row (y 30), out of focus (sigma 1.5 px):
    /// a disc of radius 7 at (30, 30); an oval of 10 by 5 px at (90, 30); a five-lobed star
    /// (radius 7, lobes of 25 %) at (150, 30); a disc of radius 3.5 (smaller than any cell) at
    /// (210, 30); at (270, 30) a speck of radius 2 blurred by sigma 3.5 to a cell's size.
    static func shapes() -> Image {
        var canvas = Canvas(width: 300, height: 60)
        let grey = (0.7, 0.69, 0.68)
        canvas.annulus(x: 30, y: 30, outer: 7, factor: grey)
        canvas.ellipse(x: 90, y: 30, a: 10, b: 5, factor: grey)
        canvas.paint(factor: grey, bounds: (135, 15, 165, 45)) { px, py in
            let dx = px - 150, dy = py - 30
            return (dx * dx + dy * dy).squareRoot() <= 7 * (1 + 0.25 * cos(5 * atan2(dy, dx)))
        }
        canvas.annulus(x: 210, y: 30, outer: 3.5, factor: grey)
        canvas.blur(sigma: 1.5)
        var speck = Canvas(width: 300, height: 60)
        speck.annulus(x: 270, y: 30, outer: 2, factor: (0.05, 0.05, 0.05))
        speck.blur(sigma: 3.5)
        for i in 0..<(300 * 60 * 3) where i / 3 % 300 >= 240 { canvas.rgb[i] = speck.rgb[i] }
        return canvas.image(noise: 0.01)
    }

    @Test func theEdgeMeasuresTheDiscsSizeAndShape() throws {
        let image = Self.shapes()
        let disc = try #require(DiscEdge(image, x: 30, y: 30, r: 7))
        #expect(abs(disc.radius - 7) <= 0.5, "\(disc)")
        #expect(disc.roundShare >= 0.95 && disc.lobes < 0.02 && disc.edgeWidth < 0.8, "\(disc)")
        let oval = try #require(DiscEdge(image, x: 90, y: 30, r: 7))
        #expect(oval.roundShare < 0.7, "\(oval)")
        let star = try #require(DiscEdge(image, x: 150, y: 30, r: 7))
        #expect(star.lobes > 0.1, "\(star)")
        let small = try #require(DiscEdge(image, x: 210, y: 30, r: 7))
        #expect(small.radius < 4.5, "\(small)")
        // Blurred to a cell's size, a speck rises from its middle: no plateau inside.
        let speck = try #require(DiscEdge(image, x: 270, y: 30, r: 7))
        #expect(speck.radius >= 4.5 && speck.roundShare >= 0.9 && speck.edgeWidth > 1.15, "\(speck)")
    }

    /// The debris rule calls all five dark and unstained (none has a bright centre, a ring or a
    /// halo); the disc edge spares the round disc of a cell's size alone.
    @Test func theDebrisRuleSparesTheRoundDiscAlone() {
        let image = Self.shapes()
        let config = PipelineConfig()
        let verdicts = [30.0, 90, 150, 210, 270].map { x in
            let a = measureAppearance(image, x: x, y: 30, r: 7)
            #expect(isUnstainedDark(a, config: config), "x \(x): \(a)")
            return debrisVerdict(a, x: x, y: 30, r: 7, in: image, config: config)
        }
        #expect(!verdicts[0].debris && verdicts[0].disc != nil, "\(verdicts[0])")
        for (x, verdict) in zip([90, 150, 210, 270], verdicts.dropFirst()) {
            #expect(verdict.debris && verdict.disc != nil, "x \(x): \(verdict)")
        }
    }

    /// Off, or on a ruling line (whose darkness cuts every ray short), the edge is not asked.
    @Test func zeroOrALineLeavesTheEdgeUnasked() {
        let image = Self.shapes()
        let a = measureAppearance(image, x: 30, y: 30, r: 7)
        var off = PipelineConfig()
        off.defocusedDiscRoundness = 0
        let unasked = debrisVerdict(a, x: 30, y: 30, r: 7, in: image, config: off)
        #expect(unasked.debris && unasked.disc == nil, "\(unasked)")
        let onLine = debrisVerdict(a, x: 30, y: 30, r: 7, onLine: true, in: image, config: PipelineConfig())
        #expect(onLine.debris && onLine.disc == nil && onLine.ringDepth == nil, "\(onLine)")
    }

    /// Through the whole pipeline: the round disc is counted as a live cell and `--explain`
    /// says why; the oval, the star, the small disc and the blurred speck are not counted.
    @Test func thePipelineCountsTheDiscAndSaysWhy() throws {
        let image = Self.shapes()
        let pipeline = Pipeline(config: PipelineConfig())
        let (result, trace) = try pipeline.explain(image, probes: [.init(x: 30, y: 30)], reach: 3)
        let note = try #require(trace.entries[0].first { $0.step == "classify (verdicts)" }?.nearest?.note)
        #expect(note.hasPrefix("live: hue ") && note.contains(", interior -") && note.contains(", disc edge ") && note.contains(", round 1.00"), "\(note)")
        #expect(result.detections.contains { abs($0.x - 30) < 2 && abs($0.y - 30) < 2 && $0.cellClass == .live })
        for x in [90.0, 150, 210, 270] {
            #expect(!result.detections.contains { abs($0.x - x) < 6 && abs($0.y - 30) < 6 }, "x \(x)")
        }
    }

    /// Nothing is claimed for a radius or a centre that cannot be used, round a centre no
    /// darker than its background, or where too few rays see the disc; nothing traps.
    @Test func noEdgeIsClaimedWhereItCannotBeMeasured() {
        let image = Self.shapes()
        for (x, y, r) in [(30.0, 30.0, 1e300), (30, 30, .nan), (30, 30, 0), (30, 30, -1), (.infinity, 30, 7),
                          (30, -.infinity, 7), (1, 30, 7), (30, 58, 7), (-5, 30, 7)] {
            #expect(DiscEdge(image, x: x, y: y, r: r) == nil, "x \(x), y \(y), r \(r)")
        }
        var bright = Canvas(width: 60, height: 60)
        bright.annulus(x: 30, y: 30, outer: 7, factor: (1.2, 1.2, 1.2))
        #expect(DiscEdge(bright.image(noise: 0.01), x: 30, y: 30, r: 7) == nil)
        let uniform = Canvas(width: 60, height: 60).image()
        #expect(DiscEdge(uniform, x: 30, y: 30, r: 7) == nil)
    }

    /// Near the border the disc is measured from the rays that see it: a disc the border cuts
    /// (its centre 5 px in) is as round as it shows; in a corner too few rays see it.
    @Test func aDiscAtTheBorderIsMeasuredFromTheRaysThatSeeIt() throws {
        var canvas = Canvas(width: 80, height: 60)
        canvas.annulus(x: 5, y: 30, outer: 7, factor: (0.7, 0.69, 0.68))
        canvas.annulus(x: 75, y: 55, outer: 7, factor: (0.7, 0.69, 0.68))
        canvas.blur(sigma: 1.5)
        let image = canvas.image(noise: 0.01)
        let cut = try #require(DiscEdge(image, x: 5, y: 30, r: 7))
        #expect(abs(cut.radius - 7) <= 0.75 && cut.roundShare >= 0.9 && cut.lobes <= 0.04, "\(cut)")
        #expect(DiscEdge(image, x: 75, y: 55, r: 7) == nil)
        // The window the border cuts, the disc itself inside: as measured away from it.
        let whole = try #require(DiscEdge(Self.shapes(), x: 30, y: 30, r: 11))
        #expect(abs(whole.radius - 7) <= 0.5 && whole.roundShare >= 0.95, "\(whole)")
    }

    @Test func theSettingsAreConfigurationKeys() throws {
        let json = #"{"defocusedDiscRoundness": 0.8, "defocusedDiscMinRadius": 1, "defocusedDiscMaxLobes": 0.05, "defocusedDiscMaxEdgeWidth": 1.3}"#
        let config = try PipelineConfig.parse(Array(json.utf8))
        #expect(config.defocusedDiscRoundness == 0.8 && config.defocusedDiscMinRadius == 1
                    && config.defocusedDiscMaxLobes == 0.05 && config.defocusedDiscMaxEdgeWidth == 1.3)
        let defaults = PipelineConfig()
        #expect(defaults.defocusedDiscRoundness == 0.9 && defaults.defocusedDiscMinRadius == 0.9
                    && defaults.defocusedDiscMaxLobes == 0.04 && defaults.defocusedDiscMaxEdgeWidth == 1.15)
        #expect(config.configHash != defaults.configHash)
        #expect(defaults.canonicalJSON.contains("\"defocusedDiscRoundness\": 0.9"))
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"defocusedDiscRoundness": 1.5}"#.utf8)) }
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"defocusedDiscMaxLobes": -0.1}"#.utf8)) }
    }
}
