import Fixtures
import Foundation
import Hemocytometer
import Imaging
import Testing
@testable import Vision

/// `rulingCopyNoiseMultiple`: a faint, blurred ruling's crossings carry little structure beside
/// the image's noise, so their copies a period away never match within a quarter of it; they
/// match within the noise, while a faint cell's copy differs from it by the cell.
@Suite("Crossings of a faint ruling match their copies within the noise")
struct FaintRulingCopiesTests {
    static let limit = Float(PipelineConfig().rulingCopyResidual)
    static let noiseMultiple = Float(PipelineConfig().rulingCopyNoiseMultiple)
    static let noiseStructure = Float(PipelineConfig().rulingCopyNoiseStructure)

    /// A faint ruling every 50 px (one µm per pixel: 50 µm squares), defocused, noisy; a
    /// ringed cell (its rim a quarter darker than the background, the lines 15 %) on a line
    /// between two crossings.
    static func view() -> Image {
        var canvas = Canvas(width: 400, height: 400)
        canvas.grid(spacing: 50, angle: 0, lineWidth: 4, darkness: 0.85)
        canvas.annulus(x: 225, y: 200, inner: 5, outer: 8, factor: (0.75, 0.75, 0.75))
        canvas.blur(sigma: 2)
        return canvas.image(noise: 0.03)
    }

    static func verdict(_ x: Double, _ y: Double, r: Double, noiseRule: Bool) throws -> RulingCopies.Verdict {
        var copies = try #require(RulingCopies(view(), imageToChamber: .identity))
        let found = copies.matches(x: x, y: y, r: r, maxResidual: limit, enough: 12,
                                   noiseMultiple: noiseRule ? noiseMultiple : 0, noiseStructure: noiseStructure)
        return try #require(found)
    }

    @Test func aFaintCrossingMatchesWithinTheNoiseOnly() throws {
        let plain = try Self.verdict(200, 200, r: 7, noiseRule: false)
        #expect(plain.matches < 2, "the case no longer arises: \(plain)")
        let withNoise = try Self.verdict(200, 200, r: 7, noiseRule: true)
        #expect(withNoise.matches >= 2, "\(withNoise)")
    }

    /// (A rim only an eighth darker matches three copies once defocused: cells that faint,
    /// on a faint line, are lost to the rule.)
    @Test func aCellOnTheLineDoesNotMatch() throws {
        let v = try Self.verdict(225, 200, r: 8, noiseRule: true)
        #expect(v.matches < 2, "\(v)")
    }

    /// The noise the rule compares with: a flat noisy view's log-grey noise is the drawn noise's
    /// (uniform, amplitude 0.03 of full scale on a background of about 0.72: a standard deviation
    /// of 0.03 / sqrt(3) / 0.72 in log units, as every channel carries its own).
    @Test func theNoiseIsMeasuredOnTheView() throws {
        let image = Canvas(width: 300, height: 200).image(noise: 0.03)
        let sigma = logGreyNoise(image)
        // R + 2G + B averages four draws, two of them the same: variance (1 + 4 + 1) / 16.
        let expected = Float(0.03 / 3.0.squareRoot() / 0.72 * (6.0 / 16).squareRoot())
        #expect(abs(sigma - expected) < 0.25 * expected, "\(sigma) vs \(expected)")
        #expect(logGreyNoise(Canvas(width: 300, height: 200).image()) == 0)
    }

    /// A blank control of the fifth generator (`faint-ruling-crossings.jpg`): a faint,
    /// defocused ruling, a bubble's edge, dust. Without the rule most of its detections sit on
    /// the ruling's crossings; with it those go, and nothing else changes.
    @Test func thePipelineDropsCrossingsOnly() throws {
        let (with, without) = try detectionsWithAndWithout("Tests/Images/faint-ruling-crossings.jpg") {
            $0.rulingCopyNoiseMultiple = 0
        }
        // Where the ruling is, from the generator's label: the pipeline's own placement of this
        // faint view is a near tie between two positions 200 µm apart (flagged
        // "grid-origin-assumed"), and the crossings are the label's.
        let ruling = try LabelledRuling(label: "Tests/Images/faint-ruling-crossings.json")
        let dropped = without.filter { d in !with.contains(d) }
        #expect(with.allSatisfy { without.contains($0) })
        #expect(dropped.count >= 60, "\(dropped.count) dropped of \(without.count)")
        // On a crossing: within 4 µm of a line in both directions, where the label puts the ruling.
        for d in dropped {
            let off = try ruling.offLine(d)
            #expect(off.x < 4 && off.y < 4, "(\(d.x), \(d.y)) at \(off.chamber.x), \(off.chamber.y) µm")
        }
    }

    @Test func theSettingsAreConfigurationKeys() throws {
        try expectConfigurationKey("rulingCopyNoiseMultiple", off: "0", reads: 0.0, through: \.rulingCopyNoiseMultiple,
                                   defaultText: "1.2", invalid: "-1")
        try expectConfigurationKey("rulingCopyNoiseStructure", off: "1", reads: 1.0, through: \.rulingCopyNoiseStructure,
                                   defaultText: "0.6", invalid: "2")
    }
}
