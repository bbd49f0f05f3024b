import Foundation
import Imaging
import Testing
@testable import Vision

/// `greyDiscMinRadius`: in a greyscale image a dark disc is called dead (no hue tells dye from
/// dust), and a dark speck blurred to a cell's size passes every earlier test; its
/// half-contrast edge, which blur leaves where the speck's was, says it is smaller than any
/// cell.
@Suite("A dark speck in a greyscale image is smaller than a cell at its half-contrast edge")
struct GreyDiscTests {
    /// A grey canvas with a dark disc of `radius` px at (60, 60), blurred by `sigma`.
    static func darkDisc(radius: Double, sigma: Double) -> Image {
        var canvas = Canvas(width: 120, height: 120, background: (0.7, 0.7, 0.7))
        canvas.annulus(x: 60, y: 60, outer: radius, factor: (0.45, 0.45, 0.45))
        canvas.blur(sigma: sigma)
        return canvas.image(noise: 0.01)
    }

    /// Judged at the smallest cell's radius (5 px), as the detector puts a blurred speck.
    @Test func aBlurredSpeckIsDebrisAndACellIsNot() throws {
        let config = PipelineConfig()
        for sigma in [1.0, 2.0] {
            let speck = try #require(greyDiscVerdict(x: 60, y: 60, r: 5, in: Self.darkDisc(radius: 2.5, sigma: sigma),
                                                     config: config))
            #expect(speck.debris, "speck, blur \(sigma): edge \(String(describing: speck.disc?.radius))")
            let cell = try #require(greyDiscVerdict(x: 60, y: 60, r: 5, in: Self.darkDisc(radius: 5.5, sigma: sigma),
                                                    config: config))
            #expect(!cell.debris, "cell, blur \(sigma): edge \(String(describing: cell.disc?.radius))")
        }
        var off = config
        off.greyDiscMinRadius = 0
        #expect(greyDiscVerdict(x: 60, y: 60, r: 5, in: Self.darkDisc(radius: 2.5, sigma: 2), config: off) == nil)
    }

    /// A greyscale blank control of the fourth generator, dark dust specks blurred across it:
    /// 26 detections without the rule, 15 of them specks the rule drops; nothing is added.
    /// (`greyDarkSpecks`, which drops three faint specks called live, is off here.)
    @Test func theSpecksOfAGreyscaleBlankControlGo() throws {
        var base = PipelineConfig()
        base.greyDarkSpecks = false
        let (with, without) = try detectionsWithAndWithout("Tests/Images/greyscale-blank-dark-specks.jpg", base: base) {
            $0.greyDiscMinRadius = 0
        }
        #expect(without.count >= 24, "the specks are not detected without the rule: the case no longer arises")
        #expect(without.count - with.count >= 13)
        #expect(with.allSatisfy { d in without.contains(d) })
    }

    @Test func theGreyDiscSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("greyDiscMinRadius", off: "0", reads: 0.0, through: \.greyDiscMinRadius,
                                   defaultText: "0.9", invalid: "-1")
    }
}
