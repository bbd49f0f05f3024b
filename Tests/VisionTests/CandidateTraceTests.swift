import Foundation
import Testing
import Imaging
import Synth
@testable import Vision

@Suite("Candidate trace (`cellqa count --explain`)")
struct CandidateTraceTests {
    private func candidate(_ x: Double, _ y: Double, r: Double = 5) -> Candidate {
        Candidate(x: x, y: y, r: r, score: 1, contrast: 0.2)
    }

    @Test func recordsNearCandidatesAndTheNearestInImagePixels() {
        var trace = CandidateTrace(probes: [.init(x: 21, y: 41)], reach: 6)
        // Working pixels at scale 2: (10, 20) is image (20.5, 40.5), (13, 20) is (26.5, 40.5).
        trace.record("detector", working: [candidate(13, 20), candidate(10, 20), candidate(40, 40)], scale: 2) { c in
            "at \(c.x)"
        }
        let entry = trace.entries[0][0]
        #expect(entry.step == "detector")
        #expect(entry.near == 2)
        #expect(entry.nearest?.x == 20.5 && entry.nearest?.y == 40.5 && entry.nearest?.r == 10)
        #expect(entry.nearest?.note == "at 10.0")
        #expect(abs((entry.nearest?.distance ?? 0) - 0.5.squareRoot()) < 1e-12)
    }

    @Test func lostAtIsTheStepAfterTheLastNearCandidate() {
        var trace = CandidateTrace(probes: [.init(x: 0, y: 0), .init(x: 100, y: 100), .init(x: 50, y: 50)], reach: 3)
        let atFirst = [candidate(0, 0), candidate(100, 100)]
        trace.record("a", working: atFirst, scale: 1)
        trace.record("b", working: atFirst, scale: 1)
        trace.record("c", working: [candidate(100, 101)], scale: 1)
        trace.record("d", working: [candidate(100, 101)], scale: 1)
        #expect(trace.lostAt(probe: 0) == "c")
        #expect(trace.lostAt(probe: 1) == nil)
        #expect(trace.lostAt(probe: 2) == "a")
        #expect(trace.text.contains("lost at: c"))
        #expect(trace.text.contains("kept"))
    }

    /// On a real pipeline run: a found cell is traced to the end, a point of empty background
    /// is lost at the detector, and tracing changes no detection.
    @Test func explainFollowsTheCandidatesOfAPipelineRun() throws {
        let fixture = try SynthGenerator(preset: .standard, seed: 4242, width: 640, height: 480).make(index: 0)
        let pipeline = Pipeline(config: PipelineConfig())
        let plain = try pipeline.run(fixture.image)
        let found = try #require(plain.detections.first)
        // The point farthest from every detection and labelled cell on a coarse lattice.
        let points: [(Double, Double)] = fixture.label.cells.map { ($0.x, $0.y) } + plain.detections.map { ($0.x, $0.y) }
        var empty = (x: 0.0, y: 0.0), emptiest = 0.0
        for gy in stride(from: 40.0, to: Double(fixture.image.height) - 40, by: 20) {
            for gx in stride(from: 40.0, to: Double(fixture.image.width) - 40, by: 20) {
                var d = Double.infinity
                for (px, py) in points {
                    let dx = px - gx, dy = py - gy
                    d = min(d, dx * dx + dy * dy)
                }
                if d > emptiest { emptiest = d; empty = (gx, gy) }
            }
        }
        let (result, trace) = try pipeline.explain(fixture.image, probes: [.init(x: found.x, y: found.y),
                                                                          .init(x: empty.x, y: empty.y)], reach: 4)
        #expect(result.detections == plain.detections)
        #expect(trace.lostAt(probe: 0) == nil)
        let last = try #require(trace.entries[0].last)
        #expect(last.step == "duplicate suppression")
        #expect(last.nearest?.distance == 0)
        #expect(trace.entries[0].contains { $0.step == "boundary test (verdicts)" && $0.nearest?.note.hasPrefix("kept") == true })
        #expect(trace.entries[1].allSatisfy { $0.near == 0 })
        #expect(trace.lostAt(probe: 1) == "detector (dog)")
    }

    /// A dead call in a colour image, which the debris rule does not judge, says what it read:
    /// the colour against the image's dead threshold and how dark the interior is.
    @Test func aDeadCallSaysWhatItRead() throws {
        let image = try Image.decode(file: repositoryRoot + "/Goldens/dead-heavy-s105-000.jpg")
        let pipeline = Pipeline(config: PipelineConfig())
        let dead = try #require(try pipeline.run(image).detections.first { $0.cellClass == .dead })
        let (_, trace) = try pipeline.explain(image, probes: [.init(x: dead.x, y: dead.y)], reach: 1)
        let note = try #require(trace.entries[0].first { $0.step == "classify (verdicts)" }?.nearest?.note)
        #expect(note.hasPrefix("dead: hue ") && note.contains(", saturation ") && note.contains(", interior -"), "\(note)")
    }
}
