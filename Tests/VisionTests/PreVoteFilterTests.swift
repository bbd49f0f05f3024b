import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Only candidates with enough rim round them vote")
struct PreVoteFilterTests {
    /// A live cell (r 9 px) and, around it, candidates moved off its centre until their rim
    /// covers 8 of the 16 sectors: such a candidate does not vote (9 needed), unless it is a
    /// bright spot, whose centre is its core's and often that far off (the vote re-centres it).
    @Test func aBrightSpotVotesWithOneSectorLess() throws {
        var canvas = Canvas(width: 200, height: 160)
        canvas.liveCell(x: 100, y: 80, r: 9)
        var frame = Frame(image: canvas.image(noise: 0.02), config: PipelineConfig())
        for stage in [NormalizeStage(), IlluminationStage(), GridStage()] as [any Stage] { try stage.run(&frame) }
        let maps = CandidateMaps(frame)
        let filter = try #require(PreVoteFilter(maps))
        let s = maps.s, working = maps.working
        func candidate(dx: Double, brightSpot: Bool) -> Candidate {
            Candidate(x: working.toWorking(100 + dx), y: working.toWorking(80), r: 9 / s, score: 10, contrast: 0.1,
                      brightSpot: brightSpot)
        }
        #expect(filter.verdict(candidate(dx: 0, brightSpot: false)).kept)
        // The first offset, in steps of half a pixel, where the rim covers 8 of 16 sectors.
        let eight = 8.0 / 16
        let dx = try #require(stride(from: 0.5, through: 12, by: 0.5).first { dx in
            abs(filter.verdict(candidate(dx: dx, brightSpot: false)).coverage - eight) < 1e-9
        }, "no offset leaves 8 of 16 sectors")
        let plain = filter.verdict(candidate(dx: dx, brightSpot: false))
        let spot = filter.verdict(candidate(dx: dx, brightSpot: true))
        #expect(plain.aligned <= 0.8 && spot.coverage == plain.coverage)
        #expect(!plain.kept, "a candidate with 8 of 16 sectors votes")
        #expect(spot.kept, "a bright spot with 8 of 16 sectors does not vote")
    }

    @Test func noFilterWithoutVotingOrBoundaryEvidence() {
        var canvas = Canvas(width: 64, height: 64)
        canvas.liveCell(x: 32, y: 32, r: 9)
        var config = PipelineConfig()
        config.voteCentres = false
        #expect(PreVoteFilter(CandidateMaps(Frame(image: canvas.image(), config: config))) == nil)
        config = PipelineConfig()
        config.minEdgeCoverage = 0
        #expect(PreVoteFilter(CandidateMaps(Frame(image: canvas.image(), config: config))) == nil)
    }
}
