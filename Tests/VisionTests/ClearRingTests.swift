import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Clear rings and dark debris")
struct ClearRingTests {
    /// A grey ring (dark rim 0.7 r ... r, centre left at background: a clear cell slightly out
    /// of focus) at (30, 30) and a grey filled disc of the same size (debris) at (90, 30).
    static func ringAndDisc(r: Double) -> Image {
        var canvas = Canvas(width: 120, height: 60)
        canvas.paint(factor: (0.5, 0.5, 0.5), bounds: (0, 0, 59, 59)) { px, py in
            let d2 = (px - 30) * (px - 30) + (py - 30) * (py - 30)
            return d2 <= r * r && d2 >= 0.49 * r * r
        }
        canvas.paint(factor: (0.55, 0.53, 0.5), bounds: (60, 0, 119, 59)) { px, py in
            (px - 90) * (px - 90) + (py - 30) * (py - 30) <= r * r
        }
        return canvas.image(noise: 0.02)
    }

    @Test(arguments: [5.0, 7.0, 10.0])
    func aRingIsAClearCellAndAFilledDiscIsDebris(r: Double) {
        let image = Self.ringAndDisc(r: r)
        let config = PipelineConfig()
        let ring = measureAppearance(image, x: 30, y: 30, r: r)
        let disc = measureAppearance(image, x: 90, y: 30, r: r)
        #expect(ring.ringContrast >= config.clearRingContrast, "\(ring)")
        #expect(disc.ringContrast < config.clearRingContrast, "\(disc)")
        #expect(!isUnstainedDark(ring, config: config), "\(ring)")
        #expect(isUnstainedDark(disc, config: config), "\(disc)")
    }

    /// `--explain` shows what the debris rule judged: the disc's verdict names the contrasts
    /// it was dropped for, and the ring is kept as a live cell.
    @Test func theTraceShowsTheDebrisVerdictAndItsContrasts() throws {
        let image = Self.ringAndDisc(r: 7)
        let pipeline = Pipeline(config: PipelineConfig())
        let (result, trace) = try pipeline.explain(image, probes: [.init(x: 30, y: 30), .init(x: 90, y: 30)], reach: 3)
        func verdict(_ probe: Int) -> String? {
            trace.entries[probe].first { $0.step == "classify (verdicts)" }?.nearest?.note
        }
        let disc = try #require(verdict(1))
        #expect(disc.hasPrefix("debris: interior -"), "\(disc)")
        #expect(disc.contains(", centre ") && disc.contains(", ring "), "\(disc)")
        #expect(trace.lostAt(probe: 1) == "classify (debris rule)")
        #expect(verdict(0)?.hasPrefix("live: interior") == true, "\(verdict(0) ?? "no candidate")")
        #expect(result.detections.contains { abs($0.x - 30) < 3 && abs($0.y - 30) < 3 })
        #expect(!result.detections.contains { abs($0.x - 90) < 3 && abs($0.y - 30) < 3 })
    }

    @Test func zeroTurnsTheRingRuleOff() {
        var config = PipelineConfig()
        config.clearRingContrast = 0
        let ring = CellAppearance(hueDeg: 0, saturation: 0, interiorContrast: -0.3, centreContrast: -0.05, ringContrast: 0.3)
        #expect(isUnstainedDark(ring, config: config))
        config.clearRingContrast = 0.1
        #expect(!isUnstainedDark(ring, config: config))
    }

    /// Blur leaves a defocused live cell only a faint lighter centre (7% of the background
    /// above its rim): by default that still marks a cell, not debris.
    @Test func aFaintLighterCentreIsACellByDefault() {
        let blurred = CellAppearance(hueDeg: 60, saturation: 0.01, interiorContrast: -0.35, centreContrast: -0.2, ringContrast: 0.07)
        #expect(!isUnstainedDark(blurred, config: PipelineConfig()))
        var strict = PipelineConfig()
        strict.clearRingContrast = 0.1
        #expect(isUnstainedDark(blurred, config: strict))
    }
}

@Suite("Boundary threshold")
struct BoundaryThresholdTests {
    @Test func noiseSetsTheThresholdAboveTheFloor() {
        var sequence = TestSequence(state: 7)
        var noisy = Plane(width: 64, height: 64)
        for i in noisy.data.indices { noisy.data[i] = Float(sequence.next() - 0.5) * 0.2 }
        let noise = gradientNoise(noisy)
        #expect(noise > 0.01)
        #expect(boundaryThreshold(noisy, noiseMultiple: 5, floor: 0.028) == 5 * noise)
    }

    /// A smooth plane with 8-pixel blocks (what blur and a JPEG leave): nearly no noise, so
    /// the floor decides.
    @Test func aBlockyNoiselessPlaneGetsTheFloor() {
        var blocky = Plane(width: 64, height: 64)
        for y in 0..<64 {
            for x in 0..<64 { blocky.data[y * 64 + x] = Float((x / 8 + y / 8) % 3) * 0.01 }
        }
        #expect(5 * gradientNoise(blocky) < 0.028)
        #expect(boundaryThreshold(blocky, noiseMultiple: 5, floor: 0.028) == 0.028)
        #expect(boundaryThreshold(blocky, noiseMultiple: 5, floor: 0) == 5 * gradientNoise(blocky))
    }
}
