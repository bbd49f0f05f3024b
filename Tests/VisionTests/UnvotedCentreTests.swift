import Foundation
import Testing
import Imaging
import Synth
@testable import Vision

@Suite("A vote that strays keeps the detector's centre")
struct UnvotedCentreTests {
    /// The `dense` JPEG q60 fixture of `BigBrightCentreTests`: clumped cells whose votes are
    /// pulled towards touching neighbours, off the cell, where the boundary test then fails,
    /// while the detector's own centre shows the whole rim. On 2026-11-26 the rule took the
    /// labels-v1 true positives on this image from 1061 to 1127 (false detections 58 -> 57).
    /// The retest at a rim's centre (`rimCentringRetest`, fourteenth session) finds most of
    /// the same cells another way (1102 -> 1117 with both): off here, so that the test keeps
    /// to what this rule does.
    @Test func strayVotesKeepTheDetectorsCentre() throws {
        let fixture = try SynthGenerator(preset: .dense, seed: 9003).make(index: 1)
        let image = try Image.decode(try fixture.image.jpegData(quality: 60))
        let truth = fixture.label.cells.map { (x: $0.x, y: $0.y) }
        var base = PipelineConfig()
        base.rimCentringRetest = false
        var off = base
        off.keepUnvotedCoverage = 0
        let with = try Pipeline(config: base).run(image).detections
        let without = try Pipeline(config: off).run(image).detections
        let foundWith = matchCount(with, truth, tolerance: 4), foundWithout = matchCount(without, truth, tolerance: 4)
        #expect(foundWith >= foundWithout + 40, "\(foundWithout) -> \(foundWith) of \(truth.count)")
        // The cells kept are cells: hardly any more detections than found cells.
        #expect(with.count - foundWith <= without.count - foundWithout + 3,
                "false detections \(without.count - foundWithout) -> \(with.count - foundWith)")
    }
}
