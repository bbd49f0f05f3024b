import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A dead cell in a clump of dead cells passes beside its stained neighbours")
struct StainClumpTests {
    static let image = "Tests/Images/dead-cells-in-a-clump.png"
    /// The two dead cells of the chain only the rule finds, as labelled.
    static let cells = [(x: 362.778, y: 204.098, r: 6.237), (x: 411.591, y: 180.699, r: 8.09)]

    /// A crop of the independent generator's seed-4242 `dense-001` (`Tests/Images/README.md`):
    /// a chain of touching dead and live cells. Two dead cells show their stain boundary in
    /// too few sectors, the rest meeting their dead neighbours; beside the neighbours that
    /// passed on their own they are found, and nothing else changes.
    @Test func theDeadCellsOfTheChainAreFound() throws {
        let (with, without) = try detectionsWithAndWithout(Self.image) { $0.stainClumpCoverage = 0 }
        for c in Self.cells {
            #expect(nearestDistance(with, to: c.x, c.y) < 0.5 * c.r, "\(nearestDistance(with, to: c.x, c.y)) px")
            #expect(nearestDistance(without, to: c.x, c.y) > 0.5 * c.r, "the case no longer arises")
        }
        #expect(with.count == without.count + Self.cells.count)
        for d in without {
            #expect(hasDetection(with, near: d.x, d.y, within: 1e-9), "\(d) moved or went")
        }
    }

    /// `--explain` says why it passed.
    @Test func theTraceNamesTheClump() throws {
        let image = try Image.decode(file: repositoryRoot + "/" + Self.image)
        let c = Self.cells[0]
        let (_, trace) = try Pipeline(config: PipelineConfig()).explain(image, probes: [.init(x: c.x, y: c.y)], reach: 3)
        #expect(trace.lostAt(probe: 0) == nil)
        let verdict = trace.entries[0].first { $0.step == "boundary test (verdicts)" }
        #expect(verdict?.nearest?.note.contains("in a stained clump") == true, "\(String(describing: verdict?.nearest?.note))")
    }

    /// Drawn: a dead cell (r 8 px) with three dead neighbours 13 px away, left, right and
    /// below, at scale 2, each pair overlapping as the synthetic sets draw them. The middle
    /// one's stain boundary shows only above it; beside its three neighbours it passes. A neighbour twice its size (a larger cell it may be a piece of), one nearer
    /// than 1.3 radii (a piece of the same cell) or one on unstained ground does not vouch.
    @Test func theSectorsFacingStainedNeighboursCount() throws {
        var canvas = Canvas(width: 100, height: 80)
        for (x, y) in [(33.0, 40.0), (46, 40), (59, 40), (46, 53)] { canvas.deadCell(x: x, y: y, r: 8) }
        let stain = try stainEvidence(canvas.image(noise: 0.02))
        // Working pixels: image (x - 0.5) / 2.
        func cell(_ x: Double, _ y: Double = 40, _ r: Double = 4) -> Candidate {
            Candidate(x: (x - 0.5) / 2, y: (y - 0.5) / 2, r: r, score: 0, contrast: 0.1)
        }
        let middle = cell(46), left = cell(33), right = cell(59), below = cell(46, 53)
        #expect(stain.coverage(of: middle) < 0.75, "the case no longer arises: \(stain.coverage(of: middle))")
        #expect(stain.clumpCoverage(of: middle, beside: [left, right, below]) >= 0.75,
                "\(stain.clumpCoverage(of: middle, beside: [left, right, below]))")
        #expect(stain.clumpCoverage(of: middle, beside: []) < 0.75)
        #expect(stain.clumpCoverage(of: middle, beside: [cell(33, 40, 8), cell(59, 40, 8), cell(46, 53, 8)]) < 0.75)
        #expect(stain.clumpCoverage(of: middle, beside: [cell(40), cell(52), cell(46, 45)]) < 0.75)
        let unstained = [cell(33, 20), cell(59, 20), cell(46, 27)]
        #expect(stain.clumpCoverage(of: middle, beside: unstained) < 0.75)
    }

    /// A neighbour 1.3 ... 2.6 radii away, no more than 1.6 times larger or smaller, marks its
    /// direction's sector and one either side (sector 0 starts at angle 0, so a neighbour
    /// straight to the right marks 15, 0 and 1).
    @Test func touchingNeighboursMarkTheirSectors() {
        let c = Candidate(x: 50, y: 50, r: 5, score: 0, contrast: 0)
        func marked(_ n: Candidate) -> [Int] {
            let s = TouchingNeighbours.sectors(of: c, among: [n]) { _ in true }
            return (0..<16).filter { s[$0] }
        }
        #expect(marked(Candidate(x: 60, y: 50.5, r: 5, score: 0, contrast: 0)) == [0, 1, 15])
        #expect(marked(Candidate(x: 49.5, y: 60, r: 5, score: 0, contrast: 0)) == [3, 4, 5])
        #expect(marked(Candidate(x: 56, y: 50, r: 5, score: 0, contrast: 0)).isEmpty)
        #expect(marked(Candidate(x: 64, y: 50, r: 5, score: 0, contrast: 0)).isEmpty)
        #expect(marked(Candidate(x: 60, y: 50, r: 8.5, score: 0, contrast: 0)).isEmpty)
        #expect(marked(Candidate(x: 60, y: 50, r: 3, score: 0, contrast: 0)).isEmpty)
        #expect(TouchingNeighbours.sectors(of: c, among: [Candidate(x: 60, y: 50, r: 5, score: 0, contrast: 0)]) { _ in false }
            .allSatisfy { !$0 })
    }

    /// The coverage is a configuration key, a share of 16 sectors, and a bad value names it.
    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("stainClumpCoverage", off: "0", reads: 0, through: \.stainClumpCoverage,
                                   defaultText: "0.3125", invalid: "1.5")
    }
}
