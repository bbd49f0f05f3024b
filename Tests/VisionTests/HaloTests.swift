import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A grey disc inside a bright halo is a clear cell, not debris")
struct HaloTests {
    /// Three objects of radius `r` on the background, 60 px apart: at (30, 30) a live cell a
    /// little out of focus (a grey disc inside a bright halo 1 ... 1.4 r), at (90, 30) a grey
    /// oval of debris (1.4 r by 0.75 r: no halo, and not round like a cell), at (150, 30) a
    /// dark speck of radius 2.
    static func haloDiscAndSpeck(r: Double) -> Image {
        var canvas = Canvas(width: 180, height: 60)
        canvas.annulus(x: 30, y: 30, inner: r, outer: 1.4 * r, factor: (1.12, 1.12, 1.12))
        canvas.annulus(x: 30, y: 30, outer: r, factor: (0.8, 0.8, 0.8))
        canvas.ellipse(x: 90, y: 30, a: 1.4 * r, b: 0.75 * r, factor: (0.8, 0.79, 0.78))
        canvas.annulus(x: 150, y: 30, outer: 2, factor: (0.4, 0.4, 0.4))
        canvas.blur(sigma: 0.8)
        return canvas.image(noise: 0.01)
    }

    @Test(arguments: [5.0, 7.0, 10.0])
    func onlyTheHaloDiscShowsAHaloAllRound(r: Double) {
        let image = Self.haloDiscAndSpeck(r: r)
        #expect(haloSectors(image, x: 30, y: 30, r: r, contrast: 0.03) == 16)
        #expect(haloSectors(image, x: 90, y: 30, r: r, contrast: 0.03) == 0)
        // The speck judged at a cell's radius: its surroundings are plain background.
        #expect(haloSectors(image, x: 150, y: 30, r: r, contrast: 0.03) == 0)
    }

    /// A halo disc whose halo is faint on one side (missing over 90°, as a cell's halo is
    /// uneven) and a dark neighbour touching it on the other (a filled disc of the same
    /// radius, two radii away): the sectors the neighbour covers and the faint ones together
    /// fall short of the 10 asked; counted over the sectors the neighbour leaves open, the
    /// halo shows in enough.
    @Test func aNeighbourBesideTheHaloBlocksOnlyItsOwnSectors() {
        var canvas = Canvas(width: 80, height: 60)
        let r = 7.0
        canvas.paint(factor: (1.12, 1.12, 1.12), bounds: (15, 15, 45, 45)) { x, y in
            let d = ((x - 30) * (x - 30) + (y - 30) * (y - 30)).squareRoot()
            return d >= r && d <= 1.4 * r && !(x < 30 && abs(y - 30) < 30 - x)
        }
        canvas.annulus(x: 30, y: 30, outer: r, factor: (0.8, 0.8, 0.8))
        canvas.annulus(x: 30 + 2 * r, y: 30, outer: r, factor: (0.45, 0.45, 0.45))
        canvas.blur(sigma: 0.8)
        let image = canvas.image(noise: 0.01)
        let plain = haloSectors(image, x: 30, y: 30, r: r, contrast: 0.03)
        let open = haloSectors(image, x: 30, y: 30, r: r, contrast: 0.03, blockedDarkness: 0.12, minOpenSectors: 12)
        #expect(plain < 10, "the case no longer arises: \(plain) sectors without the rule")
        #expect(open >= 10, "\(open)")
        // Asked for more open sectors than the neighbour leaves, the count is the plain one.
        #expect(haloSectors(image, x: 30, y: 30, r: r, contrast: 0.03, blockedDarkness: 0.12, minOpenSectors: 16) == plain)
        let config = PipelineConfig()
        #expect(config.haloBlockedDarkness == 0.12 && config.haloMinOpenSectors == 12)
    }

    /// The test is taken only where its outer annulus lies inside the image; elsewhere no halo
    /// is claimed, and nothing traps, whatever the radius.
    @Test func aHaloLeavingTheImageIsNotClaimed() {
        let image = Self.haloDiscAndSpeck(r: 7)
        for (x, r) in [(10.0, 7.0), (30, 13), (30, 1e300), (30, .nan), (30, 0), (30, -1), (.infinity, 5)] {
            #expect(haloSectors(image, x: x, y: 30, r: r, contrast: 0.03) == 0, "x \(x), r \(r)")
        }
    }

    /// The debris rule calls all three dark and unstained; the halo spares the cell and is
    /// recorded for the trace, while the oval and the speck stay debris.
    @Test func theDebrisRuleSparesTheHaloDisc() {
        let image = Self.haloDiscAndSpeck(r: 7)
        let config = PipelineConfig()
        let verdicts = [30.0, 90, 150].map { x in
            let a = measureAppearance(image, x: x, y: 30, r: 7)
            #expect(isUnstainedDark(a, config: config), "\(a)")
            return debrisVerdict(a, x: x, y: 30, r: 7, in: image, config: config)
        }
        #expect(verdicts[0] == DebrisVerdict(debris: false, halo: 16))
        #expect(verdicts[1].debris && verdicts[1].halo == 0, "\(verdicts[1])")
        #expect(verdicts[2].debris && verdicts[2].halo == 0, "\(verdicts[2])")
    }

    /// Off, the halo is not asked. On a ruling line only the halo is: the profile and the
    /// disc's edge, which a line's edges fake and cut, are not.
    @Test func zeroOrALineLeavesTheHaloUnasked() {
        let image = Self.haloDiscAndSpeck(r: 7)
        let a = measureAppearance(image, x: 30, y: 30, r: 7)
        var off = PipelineConfig()
        off.haloSectors = 0
        // (The disc edge would spare it too: a round grey disc is a cell seen out of focus.)
        off.defocusedDiscRoundness = 0
        let unasked = debrisVerdict(a, x: 30, y: 30, r: 7, in: image, config: off)
        #expect(unasked.halo == nil && unasked.debris, "\(unasked)")
        #expect(debrisVerdict(a, x: 30, y: 30, r: 7, onLine: true, in: image, config: PipelineConfig())
                    == DebrisVerdict(debris: false, halo: 16))
        #expect(debrisVerdict(a, x: 30, y: 30, r: 7, onLine: true, in: image, config: off) == DebrisVerdict(debris: true))
        let oval = measureAppearance(image, x: 90, y: 30, r: 7)
        #expect(debrisVerdict(oval, x: 90, y: 30, r: 7, onLine: true, in: image, config: PipelineConfig())
                    == DebrisVerdict(debris: true, halo: 0))
    }

    /// Through the whole pipeline: the halo cell is counted, `--explain` says why, and the
    /// grey oval and the speck are not counted.
    @Test func thePipelineCountsTheHaloCellAndSaysWhy() throws {
        let image = Self.haloDiscAndSpeck(r: 7)
        let pipeline = Pipeline(config: PipelineConfig())
        let (result, trace) = try pipeline.explain(image, probes: [.init(x: 30, y: 30)], reach: 3)
        let note = try #require(trace.entries[0].first { $0.step == "classify (verdicts)" }?.nearest?.note)
        #expect(note.hasPrefix("live: hue ") && note.contains(", interior -") && note.contains(", halo 16 of 16"), "\(note)")
        #expect(result.detections.contains { abs($0.x - 30) < 2 && abs($0.y - 30) < 2 && $0.cellClass == .live })
        #expect(!result.detections.contains { abs($0.x - 90) < 4 && abs($0.y - 30) < 4 })
        #expect(!result.detections.contains { abs($0.x - 150) < 4 && abs($0.y - 30) < 4 })
    }

    /// A halo cell with a dark speck against its edge (its outline no longer a round disc),
    /// judged at an overshooting radius of 10 px: no halo 1.05 ... 1.45 radii out, but asked again
    /// at the disc's edge (7 px) it shows, and the cell is spared.
    @Test func theHaloIsAskedAgainAtTheDiscsEdge() throws {
        var canvas = Canvas(width: 60, height: 60)
        canvas.annulus(x: 30, y: 30, inner: 7, outer: 9.8, factor: (1.12, 1.12, 1.12))
        canvas.annulus(x: 30, y: 30, outer: 7, factor: (0.8, 0.8, 0.8))
        canvas.annulus(x: 38, y: 30, outer: 3, factor: (0.5, 0.5, 0.5))
        canvas.blur(sigma: 0.8)
        let image = canvas.image(noise: 0.01)
        let config = PipelineConfig()
        let a = measureAppearance(image, x: 30, y: 30, r: 10)
        #expect(isUnstainedDark(a, config: config), "\(a)")
        let verdict = debrisVerdict(a, x: 30, y: 30, r: 10, in: image, config: config)
        let edge = try #require(verdict.disc)
        #expect(abs(edge.radius - 7) <= 0.75, "\(edge)")
        #expect(!edge.isDefocusedCell(minRadius: 4.5, minShare: 0.9, maxLobes: 0.04, maxEdgeWidth: 1.15), "\(edge)")
        #expect((verdict.halo ?? 99) < 10 && (verdict.haloAtEdge ?? 0) >= 10 && !verdict.debris, "\(verdict)")
        // Without the halo rule, debris.
        var off = config
        off.haloSectors = 0
        #expect(debrisVerdict(a, x: 30, y: 30, r: 10, in: image, config: off).debris)
    }

    @Test func theSettingsAreConfigurationKeys() throws {
        let config = try PipelineConfig.parse(Array(#"{"haloSectors": 0, "haloContrast": 0.05}"#.utf8))
        #expect(config.haloSectors == 0 && config.haloContrast == 0.05)
        #expect(PipelineConfig().haloSectors == 10 && PipelineConfig().haloContrast == 0.03)
        #expect(config.configHash != PipelineConfig().configHash)
        #expect(PipelineConfig().canonicalJSON.contains("\"haloSectors\": 10"))
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"haloSectors": 17}"#.utf8)) }
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"haloContrast": -0.1}"#.utf8)) }
    }
}
