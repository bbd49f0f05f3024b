import Foundation
import Testing
import Fixtures
import Imaging
@testable import Vision

@Suite("Clear cells on ruling lines are found as small holes")
struct HoleSpotTests {
    /// The blurred `hard` Golden: bright cells lying on its heavy lines leave, once the lines
    /// are removed, a dip only where their bright core covered the line, smaller than the
    /// smallest cell. On 2026-11-26 `holeSpots` found three more of its labelled cells, all on
    /// lines (1290,387, 1012,366, 733,396), for no more false detections.
    @Test func cellsOnLinesAreFoundWithHoleSpots() throws {
        let image = try Image.decode(file: repositoryRoot + "/Goldens/hard-s108-000.jpg")
        let label = try Label.load(path: repositoryRoot + "/TestLabels/hard-s108-000.json")
        var off = PipelineConfig()
        off.holeSpots = false
        let with = try Pipeline(config: PipelineConfig()).run(image).detections
        let without = try Pipeline(config: off).run(image).detections
        for (x, y) in [(1290.899, 386.624), (1011.789, 365.576), (732.834, 395.726)] {
            #expect(hasDetection(with, near: x, y, within: 3.5), "cell at \(x),\(y) not found with holeSpots")
            #expect(!hasDetection(without, near: x, y, within: 3.5), "cell at \(x),\(y) found without holeSpots: pick another")
        }
        let truth = label.cells.map { (x: $0.x, y: $0.y) }
        let matchedWith = matchCount(with, truth, tolerance: 3.5), matchedWithout = matchCount(without, truth, tolerance: 3.5)
        #expect(matchedWith >= matchedWithout + 3, "\(matchedWithout) -> \(matchedWith)")
        #expect(with.count - matchedWith <= without.count - matchedWithout + 1,
                "false detections \(without.count - matchedWithout) -> \(with.count - matchedWith)")
    }
}
