import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A candidate on a ruling line with no rim once the line is subtracted is dropped")
struct LineResidueTests {
    static let step = (dx: 0, dy: 12)

    @Test func onlySidesFreeOfOtherCandidatesAreSubtracted() {
        func candidate(_ y: Double) -> Candidate { Candidate(x: 40, y: y, r: 3.5, score: 1, contrast: 0.1) }
        #expect(clearSides(x: 40, y: 40, r: 3.5, step: Self.step, others: []) == .both)
        // A neighbour touching the cell across the line's normal is not in either shifted disc.
        #expect(clearSides(x: 40, y: 40, r: 3.5, step: Self.step, others: [Candidate(x: 47, y: 40, r: 3.5, score: 1, contrast: 0.1)]) == .both)
        #expect(clearSides(x: 40, y: 40, r: 3.5, step: Self.step, others: [candidate(28)]) == .forward)
        #expect(clearSides(x: 40, y: 40, r: 3.5, step: Self.step, others: [candidate(55)]) == .backward)
        #expect(clearSides(x: 40, y: 40, r: 3.5, step: Self.step, others: [candidate(28), candidate(52)]) == nil)
    }

    /// Two cells a step apart on a triple line: subtracting both sides puts the neighbour's
    /// rim into the difference; the clear side alone shows the cell's own.
    @Test func aCellInAClumpOnALineKeepsItsRimFromTheClearSide() throws {
        let plane = LineSubtractionTests.plane(cellY: 52, neighbourY: 40)
        let threshold = LineSubtractionTests.threshold, normals = LineSubtractionTests.normals
        let both = try #require(lineSubtractedEvidence(plane, x: 40, y: 52, r: 3.5, step: Self.step,
                                                        threshold: threshold * Float(1.5).squareRoot(), gridNormals: normals))
        let forward = try #require(lineSubtractedEvidence(plane, x: 40, y: 52, r: 3.5, step: Self.step,
                                                           threshold: threshold * Float(2).squareRoot(),
                                                           gridNormals: normals, side: .forward))
        #expect(forward.coverage >= 0.75 && forward.gridAligned <= 0.45, "forward: \(forward)")
        #expect(both.coverage < forward.coverage || both.gridAligned > forward.gridAligned, "both \(both), forward \(forward)")
        // One side only, and it leaves the plane: nothing to test.
        #expect(lineSubtractedEvidence(plane, x: 40, y: 9, r: 3.5, step: Self.step, threshold: threshold,
                                       gridNormals: normals, side: .backward) == nil)
    }

    /// A blank control of sharp, noisy triple lines with single lines meeting them: every
    /// detection made without the rule is gone with it, each dropped as line residue. (One of
    /// them is also an unround spot at the boundary test's margin, `roundRimAtMargin`, and two
    /// are light gaps between strokes that no rim circle holds, `refractileRimShare`, one
    /// repeats a period away almost exactly, `rulingCopySingleResidual`, and two are dark
    /// specks at the smallest radius, `darkSpeckMaxRadius`: all off in the run without the
    /// rule, so that the test keeps to what this rule does.)
    @Test func aBlankControlOfTripleLinesHasNoDetections() throws {
        let image = try Image.decode(file: repositoryRoot + "/Tests/Images/blank-triple-lines.png")
        var off = PipelineConfig()
        off.dropLineResidue = false
        off.roundRimAtMargin = false
        off.refractileRimShare = 0
        off.rulingCopySingleResidual = 0
        off.darkSpeckMaxRadius = 0
        let without = try Pipeline(config: off).run(image).detections
        #expect(without.count >= 4, "\(without.count) detections without dropLineResidue: the case no longer arises")
        let (result, trace) = try Pipeline(config: PipelineConfig())
            .explain(image, probes: without.map { .init(x: $0.x, y: $0.y) }, reach: 2)
        #expect(result.detections.isEmpty, "\(result.detections.count) detections")
        // A detection kept where the detector put it (the vote moved its candidate away) has
        // no verdict at its own place; every other one is dropped as line residue.
        var residues = 0
        for (p, entries) in trace.entries.enumerated() {
            guard let verdict = entries.first(where: { $0.step == "boundary test (verdicts)" })?.nearest?.note else { continue }
            #expect(verdict.hasPrefix("line residue"), "detection \(p) at \(without[p].x),\(without[p].y): \(verdict)")
            residues += 1
        }
        #expect(residues >= without.count / 2, "\(residues) of \(without.count) dropped as line residue")
    }
}
