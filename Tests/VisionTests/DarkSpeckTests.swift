import Foundation
import Imaging
import Testing
@testable import Vision

/// `darkSpeckMaxRadius`: a candidate called live that every step measured at the smallest cell
/// radius, darker inside than the background without a clear ring, is a speck of dust,
/// however faint or round, with or without a light point in its middle; in greyscale images
/// too (`greyDarkSpecks`).
@Suite("A faint dark speck at the smallest cell radius is debris, a small cell is not")
struct DarkSpeckTests {
    /// A light, slightly warm canvas with a faint dark speck (r 3 px, 5 % dark, blurred by
    /// 1.5 px) at (40, 40), a small live cell (r 5 px: dark rim, bright centre) at (100, 40)
    /// and a darker speck (r 3.5 px) with a sharp light point (r 0.6 px) in its middle at (160, 40).
    static func speckAndCell() -> Image {
        var canvas = Canvas(width: 200, height: 80, background: (0.82, 0.8, 0.74))
        canvas.annulus(x: 40, y: 40, outer: 3, factor: (0.95, 0.95, 0.95))
        canvas.annulus(x: 160, y: 40, outer: 3.5, factor: (0.8, 0.8, 0.8))
        canvas.blur(sigma: 1.5)
        canvas.annulus(x: 160, y: 40, outer: 0.6, factor: (1.4, 1.4, 1.4))
        canvas.liveCell(x: 100, y: 40, r: 5)
        return canvas.image(noise: 0.004)
    }

    @Test func theSpeckIsOneAndTheCellIsNot() {
        let image = Self.speckAndCell()
        let config = PipelineConfig()
        let speck = measureAppearance(image, x: 40, y: 40, r: 5)
        let cell = measureAppearance(image, x: 100, y: 40, r: 5)
        #expect(isDarkSpeck(speck, r: 5, smallestRadius: 5, config: config), "\(speck)")
        // Too faint for the debris rule, which would not judge it.
        #expect(!isUnstainedDark(speck, config: config), "\(speck)")
        #expect(!isDarkSpeck(cell, r: 5, smallestRadius: 5, config: config), "\(cell)")
        // A light point does not make a cell of a speck without a clear ring.
        let pointed = measureAppearance(image, x: 160, y: 40, r: 5)
        #expect(pointed.centreContrast >= config.refractileContrast, "\(pointed)")
        #expect(isDarkSpeck(pointed, r: 5, smallestRadius: 5, config: config), "\(pointed)")
        // Measured larger than the smallest cell anywhere, it is left to the debris rule.
        #expect(!isDarkSpeck(speck, r: 5.5, smallestRadius: 5, config: config))
        var off = config
        off.darkSpeckMaxRadius = 0
        #expect(!isDarkSpeck(speck, r: 5, smallestRadius: 5, config: off))
    }

    /// A blank control of the fourth generator (colour, JPEG q60): three faint dark smudges
    /// detected at the 5 px floor and called live without the rule; none with it, and the
    /// trace says why.
    @Test func theSpecksOfAColourBlankControlGo() throws {
        let path = "Tests/Images/colour-blank-faint-specks.jpg"
        let (with, without) = try detectionsWithAndWithout(path) { $0.darkSpeckMaxRadius = 0 }
        #expect(without.count >= 3, "the specks are not detected without the rule: the case no longer arises")
        #expect(without.allSatisfy { $0.r <= 5 + 1e-9 && $0.cellClass == .live }, "\(without)")
        #expect(with.isEmpty, "\(with)")
        let image = try Image.decode(file: repositoryRoot + "/" + path)
        let speck = try #require(without.first)
        let (_, trace) = try Pipeline(config: PipelineConfig()).explain(image, probes: [.init(x: speck.x, y: speck.y)], reach: 1)
        let note = try #require(trace.entries[0].first { $0.step == "classify (verdicts)" }?.nearest?.note)
        #expect(note.hasPrefix("debris: ") && note.hasSuffix(", a dark speck at the smallest radius"), "\(note)")
    }

    /// A greyscale blank control of the fourth generator (blurred, glare, JPEG q60): faint
    /// dark specks at the 5 px floor, too light to be called dead and so called live, where no
    /// hue could tell dye from dust. `greyDarkSpecks` drops these three, nothing else changes,
    /// and the trace says why.
    static let greySpecks: [(Double, Double)] = [(1013.0, 298.1), (506.9, 381.1), (1823.0, 415.1)]

    @Test func theSpecksOfAGreyscaleBlankControlGo() throws {
        let path = "Tests/Images/greyscale-blank-dark-specks.jpg"
        try expectDropsOnly(path, Self.greySpecks, within: 2) { $0.greyDarkSpecks = false }
        let image = try Image.decode(file: repositoryRoot + "/" + path)
        let (_, trace) = try Pipeline(config: PipelineConfig())
            .explain(image, probes: Self.greySpecks.map { .init(x: $0.0, y: $0.1) }, reach: 1)
        for entries in trace.entries {
            let note = try #require(entries.first { $0.step == "classify (verdicts)" }?.nearest?.note)
            // What the greyscale call read, against the rule's limits, then why it went.
            #expect(note.hasPrefix("debris: interior ") && note.contains(" (dead below -0.12), centre ")
                        && note.contains(" (refractile above 0.08)")
                        && note.hasSuffix(", a dark speck at the smallest radius"), "\(note)")
        }
    }

    @Test func theGreyscaleSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("greyDarkSpecks", off: "false", reads: false, through: \.greyDarkSpecks,
                                   defaultText: "true", invalid: "1")
    }

    @Test func theSpeckSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("darkSpeckMaxRadius", off: "0", reads: 0.0, through: \.darkSpeckMaxRadius,
                                   defaultText: "1", invalid: "-1")
    }
}
