import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Cells on a ruling line vote with the line subtracted")
struct LineSubtractedVotingTests {
    /// Labelled cells of `Tests/Images/cells-on-triple-line.png` that lie on ruling lines: live
    /// cells on the strokes of a vertical triple line (two) and of a horizontal one, and one on a
    /// crossing of single lines.
    static let cells: [(x: Double, y: Double, r: Double)] = [
        (288.485, 126.788, 6.669), (290.758, 152.839, 7.277), (150.975, 181.366, 7.566), (187.137, 231.596, 7.489),
    ]

    /// Each cell's nearest detection, in radii of the cell.
    static func offsets(_ detections: [Detection]) -> [Double] {
        cells.map { nearestDistance(detections, to: $0.x, $0.y) / $0.r }
    }

    /// Voting on the image, the strokes' edges pull the centres of the cells on the triple lines
    /// half a radius across, beyond the labels-v1 match distance; with the line subtracted
    /// every cell is found within a quarter of its radius, and no detection is lost elsewhere.
    @Test func cellsOnLinesAreFoundAtTheirCentres() throws {
        let image = try Image.decode(file: repositoryRoot + "/Tests/Images/cells-on-triple-line.png")
        let subtracted = try Pipeline(config: PipelineConfig()).run(image)
        var off = PipelineConfig()
        off.lineSubtractedVotes = false
        let plain = try Pipeline(config: off).run(image)
        #expect(subtracted.grid != nil, "no ruling found: the rule does not run")
        let with = Self.offsets(subtracted.detections), without = Self.offsets(plain.detections)
        #expect(with.allSatisfy { $0 < 0.25 }, "\(with)")
        #expect(without.filter { $0 > 0.5 }.count >= 2, "\(without): the case no longer arises")
        #expect(subtracted.detections.count >= plain.detections.count)
        // `--explain` says how the vote ran.
        let (_, trace) = try Pipeline(config: PipelineConfig()).explain(image, probes: [.init(x: 288.485, y: 126.788)], reach: 3)
        let voted = trace.entries[0].first { $0.step == "centre vote" }
        #expect(voted?.nearest?.note == "line subtracted")
        #expect(trace.lostAt(probe: 0) == nil)
    }

    /// The setting is read from a configuration file and printed with the defaults.
    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("lineSubtractedVotes", off: "false", reads: false, through: \.lineSubtractedVotes,
                                   defaultText: "true")
    }
}
