import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A candidate a few sectors short passes on a round rim, dark all round")
struct RoundRimShortfallTests {
    static let image = "Tests/Images/cell-in-a-chain.png"
    /// The middle cell of the chain, as labelled.
    static let cell = (x: 120.38, y: 120.486, r: 7.445)

    /// A crop of the independent generator's default-seed `dense-000` (blur 2.2 px;
    /// `Tests/Images/README.md`): the middle cell of a chain of three shows its rim in 11 of 16
    /// sectors at the working scale, its neighbours' rims taking the rest. Its darkest ring is
    /// round and centred on it, so it is found; nothing else changes.
    @Test func theMiddleCellOfAChainIsFound() throws {
        let (with, without) = try detectionsWithAndWithout(Self.image) { $0.roundRimShortfall = 0 }
        let c = Self.cell
        #expect(nearestDistance(with, to: c.x, c.y) < 0.5 * c.r, "\(nearestDistance(with, to: c.x, c.y)) px")
        #expect(nearestDistance(without, to: c.x, c.y) > 0.5 * c.r, "the case no longer arises")
        #expect(with.count == without.count + 1)
        for d in without {
            #expect(hasDetection(with, near: d.x, d.y, within: 1e-9), "\(d) moved or went")
        }
    }

    /// `--explain` says why it passed.
    @Test func theTraceNamesTheRoundRim() throws {
        let image = try Image.decode(file: repositoryRoot + "/" + Self.image)
        let (_, trace) = try Pipeline(config: PipelineConfig()).explain(image, probes: [.init(x: Self.cell.x, y: Self.cell.y)],
                                                                       reach: 2)
        #expect(trace.lostAt(probe: 0) == nil)
        let verdict = trace.entries[0].first { $0.step == "boundary test (verdicts)" }
        #expect(verdict?.nearest?.note.contains("on a round rim") == true, "\(String(describing: verdict?.nearest?.note))")
    }

    /// Without the rim centring, whose circle the test reads, the rule does not run.
    @Test func itNeedsTheRimCentring() throws {
        var base = PipelineConfig()
        base.rimCentringAgreement = 0
        let (with, without) = try detectionsWithAndWithout(Self.image, base: base) { $0.roundRimShortfall = 0 }
        #expect(with == without)
    }

    /// The shortfall is a configuration key, in sectors of 16, and a bad value names it.
    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("roundRimShortfall", off: "0", reads: 0, through: \.roundRimShortfall,
                                   defaultText: "3", invalid: "17")
    }
}

@Suite("Dark ring sectors on the full-resolution window")
struct DarkRingWindowTests {
    /// A clear cell's rim is darker than its centre on every sector's ray; a uniform disc of
    /// debris, darkest at its centre, on none; the window read at the image's corner is clipped.
    @Test func aRimIsDarkAllRoundAndADiscIsNot() {
        var canvas = Canvas(width: 120, height: 60)
        canvas.liveCell(x: 30.4, y: 30.2, r: 8)
        canvas.paint(factor: (0.5, 0.5, 0.5), bounds: (80, 20, 100, 40)) { px, py in
            (px - 90) * (px - 90) + (py - 30) * (py - 30) <= 64
        }
        let test = FineRimTest(image: canvas.image(noise: 0.01), sigma: 1.4, threshold: 0.02, ringDepth: 0.02)
        #expect(test.darkRingSectors(x: 30.4, y: 30.2, r: 8) == 16)
        #expect(test.darkRingSectors(x: 90, y: 30, r: 8) == 0)
        #expect(test.darkRingSectors(x: 0, y: 0, r: 8) < 16)
        // The same count as the full evidence reads from its wider window.
        #expect(test.evidence(x: 30.4, y: 30.2, r: 8, gridNormals: []).darkRingSectors == 16)
    }
}
