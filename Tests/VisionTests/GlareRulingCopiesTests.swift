import Fixtures
import Foundation
import Hemocytometer
import Imaging
import Testing
@testable import Vision

/// `rulingCopyMaxFlattening`: veiling glare lifts the dark strokes of the ruling under it, so a
/// crossing in the glare is a flattened copy of the crossings a period away outside it. Its
/// copies match once scaled down to it; a cell's window does not, as a copy is never scaled up.
@Suite("Crossings under glare match their flattened copies")
struct GlareRulingCopiesTests {
    static let limit = Float(PipelineConfig().rulingCopyResidual)
    static let maxFlattening = Float(PipelineConfig().rulingCopyMaxFlattening)

    /// A ruling every 50 px (one µm per pixel: 50 µm squares), lightly defocused, with a spot
    /// of veiling glare (light added, not multiplied) round (200, 200) that has all but faded
    /// a period away; a ringed cell on the line between two crossings inside the glare.
    static func view(cell: Bool) -> Image {
        var canvas = Canvas(width: 400, height: 400, background: (0.5, 0.48, 0.45))
        canvas.grid(spacing: 50, angle: 0, lineWidth: 4, darkness: 0.6)
        if cell { canvas.annulus(x: 215, y: 200, inner: 4, outer: 7, factor: (0.7, 0.7, 0.7)) }
        canvas.blur(sigma: 1.5)
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let d2 = Double((x - 200) * (x - 200) + (y - 200) * (y - 200))
                let veil = 0.3 * exp(-d2 / (2 * 25 * 25))
                for c in 0..<3 { canvas.rgb[(y * canvas.width + x) * 3 + c] += veil }
            }
        }
        return canvas.image(noise: 0.01)
    }

    static func verdict(_ x: Double, _ y: Double, r: Double, cell: Bool = false,
                        maxFlattening: Float) throws -> RulingCopies.Verdict {
        var copies = try #require(RulingCopies(view(cell: cell), imageToChamber: .identity))
        let found = copies.matches(x: x, y: y, r: r, maxResidual: limit, enough: 12, maxFlattening: maxFlattening)
        return try #require(found)
    }

    @Test func aCrossingUnderGlareMatchesOnceItsCopiesAreFlattened() throws {
        let plain = try Self.verdict(200, 200, r: 7, maxFlattening: 1)
        #expect(plain.matches < 2, "the case no longer arises: \(plain)")
        let flattened = try Self.verdict(200, 200, r: 7, maxFlattening: Self.maxFlattening)
        #expect(flattened.matches >= 4, "\(flattened)")
    }

    @Test func aCellOnTheLineUnderGlareDoesNotMatch() throws {
        let v = try Self.verdict(215, 200, r: 7, cell: true, maxFlattening: Self.maxFlattening)
        #expect(v.matches < 2, "\(v)")
    }

    /// The plain residual is what the flattened one is at a gain of 1; flattening never raises it.
    @Test func theFlattenedResidualIsThePlainOneAtMost() {
        let values: [Float] = [0.1, -0.2, 0.3, -0.1, 0.0, 0.2]
        let copy = values.map { 1.5 * $0 + 0.4 }
        let off = CopyResidual(values, copy, maxFlattening: 1)
        #expect(off.plain == off.flattened)
        let on = CopyResidual(values, copy, maxFlattening: 2)
        #expect(on.plain == off.plain)
        #expect(on.flattened < 1e-6, "a copy 1.5 times as contrasted, flattened: \(on.flattened)")
        // A copy flatter than the window is never scaled up.
        let flatter = CopyResidual(values, values.map { 0.5 * $0 }, maxFlattening: 2)
        #expect(flatter.flattened == flatter.plain)
        // The gain stops at 1 / maxFlattening: a copy four times as contrasted is left with half.
        let steeper = CopyResidual(values, values.map { 4 * $0 }, maxFlattening: 2)
        let half = CopyResidual(values, values.map { 2 * $0 }, maxFlattening: 1)
        #expect(abs(steeper.flattened - half.plain) < 1e-6, "\(steeper) vs \(half)")
        #expect(CopyResidual(values, [0.1], maxFlattening: 2).plain == .infinity)
        // The gain fits squares (0.63 here) and the residual sums magnitudes: where the gain's
        // residual is higher (0.978 against 0.904), the plain one stands.
        let outlying = CopyResidual([0.7, 1.0, -2.1, -0.5, 1.3], [-0.3, 1.4, 0.6, 0.5, 1.8], maxFlattening: 2)
        #expect(outlying.flattened == outlying.plain && abs(outlying.plain - 0.904) < 1e-4, "\(outlying)")
    }

    /// `gen6-s2-hard-01` (`empty-side-squares-view.jpg`): glare over the central square's
    /// heavy 50 µm ruling. With the copies flattened, detections on the ruling under the glare
    /// go, and with them no labelled cell. (Positions are compared: the live/dead confidences
    /// move with the population the classifier sees.)
    @Test func thePipelineDropsOnlyDetectionsOnTheRuling() throws {
        let (with, without) = try detectionsWithAndWithout("Tests/Images/empty-side-squares-view.jpg") {
            $0.rulingCopyMaxFlattening = 1
        }
        let ruling = try LabelledRuling(label: "Tests/Images/empty-side-squares-view.json")
        func samePlace(_ a: Detection, _ b: Detection) -> Bool { a.x == b.x && a.y == b.y && a.r == b.r }
        let dropped = without.filter { d in !with.contains { samePlace($0, d) } }
        #expect(dropped.count >= 30, "\(dropped.count) dropped of \(without.count)")
        // On the ruling: within 6 µm of a line in either direction.
        for d in dropped {
            let off = try ruling.offLine(d)
            #expect(min(off.x, off.y) < 6, "(\(d.x), \(d.y)) at \(off.chamber.x), \(off.chamber.y) µm")
        }
        let truth = ruling.label.cells.map { (x: $0.x, y: $0.y) }
        #expect(matchCount(with, truth, tolerance: 5) == matchCount(without, truth, tolerance: 5))
    }

    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("rulingCopyMaxFlattening", off: "1", reads: 1.0, through: \.rulingCopyMaxFlattening,
                                   defaultText: "2.0", invalid: "0.5")
    }
}
