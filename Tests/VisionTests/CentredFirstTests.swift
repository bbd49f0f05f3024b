import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Duplicate suppression ranks the candidates centred on their cell first")
struct CentredFirstTests {
    /// In a clump, a candidate half a radius off a cell with a neighbour's rim in its annulus
    /// sees rim in every sector, as the cell's own candidate does, and its larger radius then
    /// suppresses that one.
    @Test func aCentredCandidateOutranksAnOffCentreOneWithAsMuchRim() {
        let offCentre = Detection(x: 239.9, y: 114.9, r: 9.6, cellClass: .live, score: 7.3, confidence: 1, coverage: 1)
        let own = Detection(x: 239.6, y: 119.5, r: 5.6, cellClass: .live, score: 3, confidence: 1, coverage: 1)
        #expect(suppressOverlaps([own, offCentre], maxIoU: 0.2, minCentreDistance: 0.8) == [offCentre])
        var centred = own
        centred.centred = true
        #expect(suppressOverlaps([offCentre, centred], maxIoU: 0.2, minCentreDistance: 0.8) == [centred])
        // Among centred candidates coverage decides, as before.
        var better = offCentre
        better.centred = true
        better.coverage = 0.9375
        #expect(suppressOverlaps([better, centred], maxIoU: 0.2, minCentreDistance: 0.8) == [centred])
    }

    /// A clear cell's rim draws its circle; a dead cell's filled disc draws none but is
    /// stained. With the setting off, nothing is marked.
    @Test func liveAndDeadCellsAreMarkedCentred() throws {
        var canvas = Canvas(width: 160, height: 120)
        canvas.liveCell(x: 50.3, y: 60.6, r: 8)
        canvas.deadCell(x: 110.7, y: 58.2, r: 8)
        let image = canvas.image(noise: 0.02)
        let on = try Pipeline(config: PipelineConfig()).run(image).detections
        #expect(on.count == 2)
        #expect(on.allSatisfy { $0.centred }, "\(on)")
        var config = PipelineConfig()
        config.nmsCentredFirst = false
        let off = try Pipeline(config: config).run(image).detections
        #expect(off.count == 2)
        #expect(!off.contains { $0.centred })
    }

    /// A crop of the independent generator's seed-31337 `dense-002` (`Tests/Images/README.md`):
    /// a live cell labelled at (239.696, 119.46), r 8.26 px, in a clump. A candidate 4.6 px
    /// above it, r 9.6, sees as much rim and responded more strongly, and suppressed the
    /// cell's own; ranked first, the cell's own (its rim circle agrees) is kept in its place.
    @Test func aCellInAClumpKeepsItsOwnCandidate() throws {
        let (with, without) = try detectionsWithAndWithout("Tests/Images/cell-beside-off-centre-twin.png") {
            $0.nmsCentredFirst = false
        }
        let x = 239.696, y = 119.46, matchRadius = 0.5 * 8.26
        #expect(nearestDistance(with, to: x, y) < 0.5, "\(nearestDistance(with, to: x, y)) px")
        #expect(nearestDistance(without, to: x, y) > matchRadius, "the case no longer arises")
        #expect(with.count == without.count)
        let image = try Image.decode(file: repositoryRoot + "/Tests/Images/cell-beside-off-centre-twin.png")
        let (_, trace) = try Pipeline(config: PipelineConfig()).explain(image, probes: [.init(x: x, y: y)], reach: 2)
        let kept = trace.entries[0].first { $0.step == "duplicate suppression" }
        #expect(kept?.nearest?.note.hasSuffix(", centred") == true, "\(String(describing: kept?.nearest?.note))")
    }

    /// The setting is read from a configuration file and printed with the defaults.
    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("nmsCentredFirst", off: "false", reads: false, through: \.nmsCentredFirst, defaultText: "true")
    }
}
