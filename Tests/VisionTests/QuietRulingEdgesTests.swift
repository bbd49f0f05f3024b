import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Ruling edges do not vote for the centre of a cell beside them")
struct QuietRulingEdgesTests {
    /// A faint ring cell (radius 7 px, its rim 5 % darker than the background) whose right
    /// edge lies 4 px from a heavy vertical triple line (three 2 px strokes, 4 px apart, at 35 %
    /// of the background), slightly defocused.
    static let cell = (x: 49.0, y: 60.0, r: 7.0)

    static func scene() -> Image {
        var canvas = Canvas(width: 120, height: 120)
        for stroke in [61.0, 65.0, 69.0] {
            canvas.paint(factor: (0.35, 0.35, 0.35), bounds: (0, 0, 119, 119)) { x, _ in abs(x - stroke) <= 1 }
        }
        canvas.annulus(x: cell.x, y: cell.y, inner: 0.7 * cell.r, outer: cell.r, factor: (0.95, 0.95, 0.95))
        canvas.blur(sigma: 0.8)
        return canvas.image(noise: 0.01)
    }

    /// The line map the candidates stage would hold: the triple line's columns at full contrast.
    static func lines() -> Plane {
        var plane = Plane(width: 120, height: 120)
        for y in 0..<120 { for x in 58...72 { plane[x, y] = 0.5 } }
        return plane
    }

    static func vote(quietDeg: Double) -> (x: Double, y: Double) {
        var scratch = VoteScratch()
        let quiet = QuietDirections(normals: [0, .pi / 2], maxAngleDeg: quietDeg, lines: lines(),
                                    working: WorkingScale(1), level: 0.12)
        // Started where a detector pulled by the line would put it, 2 px towards the line.
        return voteCentre(scene(), x: cell.x + 2, y: cell.y, r: cell.r, scratch: &scratch, quiet: quiet)
    }

    /// The line's edges outvote the faint rim and carry the centre towards the line; with the
    /// edges on the line silent the rim alone votes, and the centre is the cell's.
    @Test func theRimAloneVotesForTheCentre() {
        let quiet = Self.vote(quietDeg: 16), loud = Self.vote(quietDeg: 0)
        let quietOff = hypot(quiet.x - Self.cell.x, quiet.y - Self.cell.y)
        let loudOff = hypot(loud.x - Self.cell.x, loud.y - Self.cell.y)
        #expect(quietOff < 1, "quiet: \(quiet)")
        #expect(loudOff > 0.5 * Self.cell.r && loud.x > Self.cell.x, "all voting: \(loud): the case no longer arises")
    }

    /// Off the line map nothing is silenced, whatever the direction: a rim pixel's gradient
    /// along a ruling normal still votes.
    @Test func directionsOffTheLinesAreNotSilenced() {
        let quiet = QuietDirections(normals: [0, .pi / 2], maxAngleDeg: 16, lines: Self.lines(),
                                    working: WorkingScale(1), level: 0.12)
        #expect(quiet.silences(1, 0, 65, 60))
        #expect(quiet.silences(0, -1, 65, 60))
        #expect(!quiet.silences(1, 0, 40, 60), "off the line")
        #expect(!quiet.silences(Float(cos(0.5)), Float(sin(0.5)), 65, 60), "29 degrees from both normals")
        #expect(!QuietDirections.none.silences(1, 0, 65, 60))
    }

    /// The setting is read from a configuration file and printed with the defaults.
    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("quietRulingEdgesDeg", off: "0", reads: 0.0, through: \.quietRulingEdgesDeg,
                                   defaultText: "16", invalid: "60")
    }
}
