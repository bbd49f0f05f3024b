import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Clear rings and dark debris")
struct ClearRingTests {
    /// A grey ring (dark rim 0.7 r ... r, centre left at background: a clear cell slightly out
    /// of focus) at (30, 30) and a grey filled oval of about the same area (debris: 1.25 r by
    /// 0.8 r, not round like a cell seen out of focus) at (90, 30).
    static func ringAndDisc(r: Double) -> Image {
        var canvas = Canvas(width: 120, height: 60)
        canvas.paint(factor: (0.5, 0.5, 0.5), bounds: (0, 0, 59, 59)) { px, py in
            let d2 = (px - 30) * (px - 30) + (py - 30) * (py - 30)
            return d2 <= r * r && d2 >= 0.49 * r * r
        }
        canvas.ellipse(x: 90, y: 30, a: 1.25 * r, b: 0.8 * r, factor: (0.55, 0.53, 0.5))
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

    /// `--explain` shows what the debris rule judged: the disc's verdict names its colour and
    /// the contrasts it was dropped for, and the ring is kept as a live cell.
    @Test func theTraceShowsTheDebrisVerdictAndItsContrasts() throws {
        let image = Self.ringAndDisc(r: 7)
        let pipeline = Pipeline(config: PipelineConfig())
        // (The vote moves the oval's centre some 3 px along its long axis.)
        let (result, trace) = try pipeline.explain(image, probes: [.init(x: 30, y: 30), .init(x: 90, y: 30)], reach: 5)
        func verdict(_ probe: Int) -> String? {
            trace.entries[probe].first { $0.step == "classify (verdicts)" }?.nearest?.note
        }
        let disc = try #require(verdict(1))
        #expect(disc.hasPrefix("debris: hue "), "\(disc)")
        #expect(disc.contains(", saturation ") && disc.contains(", interior -"), "\(disc)")
        #expect(disc.contains(", centre ") && disc.contains(", ring "), "\(disc)")
        #expect(trace.lostAt(probe: 1) == "classify (debris rule)")
        #expect(verdict(0)?.hasPrefix("live: hue ") == true, "\(verdict(0) ?? "no candidate")")
        #expect(result.detections.contains { abs($0.x - 30) < 3 && abs($0.y - 30) < 3 })
        #expect(!result.detections.contains { abs($0.x - 90) < 5 && abs($0.y - 30) < 5 })
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

@Suite("Clear rings at their true radius")
struct ClearRingDepthTests {
    /// Out of focus (sigma 2.5 px): a live cell of radius 5 at (30, 30), a grey blob of the same
    /// size (debris) at (90, 30) and a dark speck of radius 2 at (150, 30). Blur spreads each
    /// outwards, so a detection's radius overshoots: all three are judged at 7 px.
    static func defocused() -> Image {
        var canvas = Canvas(width: 180, height: 60)
        canvas.liveCell(x: 30, y: 30, r: 5)
        canvas.paint(factor: (0.62, 0.62, 0.6), bounds: (80, 20, 100, 40)) { px, py in
            (px - 90) * (px - 90) + (py - 30) * (py - 30) <= 25
        }
        canvas.paint(factor: (0.3, 0.3, 0.3), bounds: (145, 25, 155, 35)) { px, py in
            (px - 150) * (px - 150) + (py - 30) * (py - 30) <= 4
        }
        canvas.blur(sigma: 2.5)
        return canvas.image(noise: 0.01)
    }

    @Test func aDefocusedCellKeepsItsRingAndDebrisHasNone() {
        let image = Self.defocused()
        let config = PipelineConfig()
        let judged = [30.0, 90, 150].map { x in
            let a = measureAppearance(image, x: x, y: 30, r: 7)
            return (a, debrisVerdict(a, x: x, y: 30, r: 7, in: image, config: config))
        }
        // The zoned measure calls all three dark unstained debris: the rim annulus at
        // 4.2 ... 7.7 px averages the cell's rim with the background.
        for (a, _) in judged { #expect(isUnstainedDark(a, config: config), "\(a)") }
        let (cell, blob, speck) = (judged[0].1, judged[1].1, judged[2].1)
        #expect(!cell.debris && (cell.ringDepth ?? 0) >= config.clearRingDepth, "\(cell)")
        #expect(blob.debris && (blob.ringDepth ?? 1) < config.clearRingDepth, "\(blob)")
        #expect(speck.debris && (speck.ringDepth ?? 1) < config.clearRingDepth, "\(speck)")
    }

    @Test func zeroTurnsTheProfileTestOff() {
        let image = Self.defocused()
        var config = PipelineConfig()
        config.clearRingDepth = 0
        // (The disc edge would spare the cell as a round disc seen out of focus.)
        config.defocusedDiscRoundness = 0
        let a = measureAppearance(image, x: 30, y: 30, r: 7)
        let verdict = debrisVerdict(a, x: 30, y: 30, r: 7, in: image, config: config)
        #expect(verdict.debris && verdict.ringDepth == nil)
    }

    /// Across a ruling line the profile shows the line's two edges as a ring (the light gap
    /// between a triple line's strokes): a candidate on a line is judged by the zoned rule.
    @Test func aCandidateOnALineIsNotSparedByItsProfile() {
        let image = Self.defocused()
        let a = measureAppearance(image, x: 30, y: 30, r: 7)
        let verdict = debrisVerdict(a, x: 30, y: 30, r: 7, onLine: true, in: image, config: PipelineConfig())
        #expect(verdict.debris && verdict.ringDepth == nil)
    }

    /// The profile is taken only where every annulus lies inside the image; elsewhere no
    /// ring is claimed (and nothing traps, whatever the radius).
    @Test func aProfileLeavingTheImageClaimsNoRing() {
        let image = Self.defocused()
        for (x, r) in [(3.0, 7.0), (30, 40), (30, 1e300), (30, .nan), (30, -1), (.infinity, 5)] {
            #expect(clearRingDepth(image, x: x, y: 30, r: r, background: 0.5) == 0)
        }
        #expect(radialLuminanceProfile(image, x: 30, y: 30, bins: 0) == nil)
        let profile = radialLuminanceProfile(image, x: 30, y: 30, bins: 9)
        #expect(profile?.count == 9)
    }
}

@Suite("A ragged outline's ring does not make a clear cell")
struct RaggedRingTests {
    /// Two grey objects out of focus (sigma 1 px), each lighter at its middle than 0.5 r out, so
    /// both show a ring in their radial profile (`clearRingDepth`): at (30, 30) a round disc of
    /// radius 7 (a clear cell a little out of focus), at (90, 30) a three-lobed blob of the same
    /// size (lobes of 40 %: mottled debris, whose darker patches fake the ring).
    static func roundAndRagged() -> Image {
        var canvas = Canvas(width: 120, height: 60)
        let grey = (0.6, 0.59, 0.58), lighter = (1.25, 1.25, 1.25)
        canvas.annulus(x: 30, y: 30, outer: 7, factor: grey)
        canvas.annulus(x: 30, y: 30, outer: 2.5, factor: lighter)
        canvas.paint(factor: grey, bounds: (70, 10, 110, 50)) { px, py in
            let dx = px - 90, dy = py - 30
            return (dx * dx + dy * dy).squareRoot() <= 7 * (1 + 0.4 * cos(3 * atan2(dy, dx)))
        }
        canvas.annulus(x: 90, y: 30, outer: 2.5, factor: lighter)
        canvas.blur(sigma: 1)
        return canvas.image(noise: 0.01)
    }

    @Test func theRingSparesTheRoundDiscAndNotTheRaggedBlob() throws {
        let image = Self.roundAndRagged()
        let config = PipelineConfig()
        var off = config
        off.clearRingRaggedRoundness = 0
        for (x, y) in [(30.0, 30.0), (90, 27.25)] {
            let a = measureAppearance(image, x: x, y: y, r: 7)
            #expect(isUnstainedDark(a, config: config), "x \(x): \(a)")
            let depth = clearRingDepth(image, x: x, y: 30, r: 7, background: a.backgroundLuminance)
            #expect(depth >= config.clearRingDepth, "x \(x): ring depth \(depth)")
        }
        let round = measureAppearance(image, x: 30, y: 30, r: 7)
        let ragged = measureAppearance(image, x: 90, y: 30, r: 7)
        let kept = debrisVerdict(round, x: 30, y: 30, r: 7, in: image, config: config)
        #expect(!kept.debris && kept.disc == nil, "\(kept)")
        let dropped = debrisVerdict(ragged, x: 90, y: 30, r: 7, in: image, config: config)
        let edge = try #require(dropped.disc)
        #expect(dropped.debris && edge.roundShare < 0.6 && edge.lobes > 0.1, "\(dropped)")
        // Off, the ring alone decides, as before.
        let before = debrisVerdict(ragged, x: 90, y: 30, r: 7, in: image, config: off)
        #expect(!before.debris && before.disc == nil, "\(before)")
    }

    @Test func theSettingsAreConfigurationKeys() throws {
        let config = try PipelineConfig.parse(Array(#"{"clearRingRaggedRoundness": 0.7, "clearRingRaggedLobes": 0.2}"#.utf8))
        #expect(config.clearRingRaggedRoundness == 0.7 && config.clearRingRaggedLobes == 0.2)
        let defaults = PipelineConfig()
        #expect(defaults.clearRingRaggedRoundness == 0.6 && defaults.clearRingRaggedLobes == 0.1)
        #expect(config.configHash != defaults.configHash)
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"clearRingRaggedRoundness": 1.5}"#.utf8)) }
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"clearRingRaggedLobes": -1}"#.utf8)) }
    }
}

@Suite("A bright centre needs a round rim")
struct RefractileRimTests {
    /// Two places dark round a brighter middle, without a clear ring
    /// (`isDarkWithBrightCentreOnly`), out of focus (sigma 1 px): at (30, 30) a refractile cell,
    /// a grey disc of radius 7 darker at its edge (5 ... 7 px) round a sharp bright point; at
    /// (90, 30) the light gap between two strokes of a triple line (strokes 2 px wide, 5.5 px
    /// apart, at y 24.5, 30 and 35.5 across the right half), where the strokes darken the
    /// background annulus more than the gap.
    static func cellAndTripleLine() -> Image {
        var canvas = Canvas(width: 120, height: 60)
        let grey = (0.55, 0.54, 0.53), darker = (0.75, 0.75, 0.75), bright = (2.5, 2.5, 2.5)
        canvas.annulus(x: 30, y: 30, outer: 7, factor: grey)
        canvas.annulus(x: 30, y: 30, inner: 5, outer: 7, factor: darker)
        for y in [24.5, 30, 35.5] {
            canvas.paint(factor: (0.45, 0.45, 0.45), bounds: (62, 20, 119, 40)) { px, py in px >= 62 && abs(py - y) <= 1 }
        }
        canvas.blur(sigma: 1)
        canvas.annulus(x: 30, y: 30, outer: 0.8, factor: bright)
        return canvas.image(noise: 0.01)
    }

    @Test func theCellsRimHoldsTheCircleAndTheGapBetweenStrokesIsDropped() throws {
        let image = Self.cellAndTripleLine()
        let config = PipelineConfig()
        var verdicts: [DebrisVerdict] = []
        for (x, y) in [(30.0, 30.0), (90, 27.25)] {
            let a = measureAppearance(image, x: x, y: y, r: 7)
            #expect(isDarkWithBrightCentreOnly(a, config: config) && !isUnstainedDark(a, config: config), "x \(x): \(a)")
            verdicts.append(debrisVerdict(a, x: x, y: y, r: 7, in: image, config: config))
        }
        let cell = try #require(verdicts[0].rimInliers), gap = try #require(verdicts[1].rimInliers)
        let needed = config.refractileRimShare * Double(RimCircle.rays)
        #expect(!verdicts[0].debris && Double(cell) >= needed, "\(verdicts[0])")
        #expect(verdicts[1].debris && Double(gap) < needed, "\(verdicts[1])")
        // Off, a bright centre alone makes a cell, as before.
        var off = config
        off.refractileRimShare = 0
        let a = measureAppearance(image, x: 90, y: 27.25, r: 7)
        #expect(debrisVerdict(a, x: 90, y: 27.25, r: 7, in: image, config: off) == DebrisVerdict(debris: false))
    }

    /// A live cell's clear ring (its centre above its rim) is not asked for the circle.
    @Test func aClearRingIsNotAsked() {
        var canvas = Canvas(width: 60, height: 60)
        canvas.liveCell(x: 30, y: 30, r: 7)
        let image = canvas.image(noise: 0.01)
        let a = measureAppearance(image, x: 30, y: 30, r: 7)
        #expect(!isDarkWithBrightCentreOnly(a, config: PipelineConfig()), "\(a)")
        #expect(debrisVerdict(a, x: 30, y: 30, r: 7, in: image, config: PipelineConfig()) == DebrisVerdict(debris: false))
    }

    @Test func theShareIsAConfigurationKey() throws {
        let config = try PipelineConfig.parse(Array(#"{"refractileRimShare": 0.75}"#.utf8))
        #expect(config.refractileRimShare == 0.75 && PipelineConfig().refractileRimShare == 0.8)
        #expect(config.configHash != PipelineConfig().configHash)
        #expect(throws: (any Error).self) { try PipelineConfig.parse(Array(#"{"refractileRimShare": 2}"#.utf8)) }
    }
}
