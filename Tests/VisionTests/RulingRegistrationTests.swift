import Foundation
import Hemocytometer
import Testing
@testable import Vision

/// Registration of detected line families against the Neubauer-improved ruling, on line
/// profiles drawn from the ruling itself: a view of `samples` plane pixels along one axis,
/// `umPerSample` µm each, starting at chamber coordinate `startUm`. Period and phase come from
/// `dominantPeriod`, as in the grid stage.
@Suite("Ruling registration")
struct RulingRegistrationTests {
    /// A projection profile of the ruling: background 0.05, each stroke a Gaussian `strokeUm`
    /// wide (sigma) of height 0.2 (half for the central square's 50 µm lines, which run
    /// through a third of the ruled area), plus uniform noise of +-`noise`.
    static func family(startUm: Double, umPerSample: Double, samples: Int = 600, strokeUm: Double = 1.2,
                       noise: Double = 0.01, seed: UInt64 = 1) -> (family: RulingFamilyProfile, truth: (Double) -> Double) {
        var random = TestSequence(state: seed)
        let strokes = NeubauerGeometry.rulingLines().flatMap { line in
            let partial = line.extentEndUm - line.extentStartUm < NeubauerGeometry.ruledAreaUm
            return line.strokePositionsUm.map { ($0, partial ? 0.1 : 0.2) }
        }
        let profile = (0..<samples).map { i -> Double in
            let u = startUm + (Double(i) + 0.5) * umPerSample
            var v = 0.05
            for (position, height) in strokes {
                let d = (u - position) / strokeUm
                if abs(d) < 6 { v += height * exp(-0.5 * d * d) }
            }
            return v + noise * (2 * random.next() - 1)
        }
        // Grid stage defaults: spacing search 40 ... 600 image pixels at working scale 2.
        let p = dominantPeriod(profile, minLag: 20, maxLag: 300)!
        let origin = 17.0
        return (RulingFamilyProfile(profile: profile, origin: origin, period: p.period, phase: p.phase),
                { t in startUm + (t - origin) * umPerSample })
    }

    /// The fit's spacing and scale, and its chamber coordinates within 15 µm of the truth
    /// (modulo `period` where the view does not tell which of the ruling's repeats it shows).
    static func expectRegistered(_ fit: RulingFamilyFit, spacing: Double, truth: (Double) -> Double,
                                 umPerSample: Double, modulo period: Double? = nil,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(fit.spacingUm == spacing, sourceLocation: sourceLocation)
        #expect(abs(fit.umPerPixel / umPerSample - 1) < 0.03, sourceLocation: sourceLocation)
        for t in [40.0, 300, 560] {
            var error = fit.chamberUm(t) - truth(t)
            if let period {
                error = error.truncatingRemainder(dividingBy: period)
                error = min(abs(error), period - abs(error))
            }
            #expect(abs(error) < 15, "at normal coordinate \(t)", sourceLocation: sourceLocation)
        }
    }

    @Test func outerSquaresWithTheirTripleBorderRegisterAt250() throws {
        // x: lines 2250, 2500, 2750 single, 3000 triple, then 400 µm of unruled margin (which
        // tells it from the same lines before 1000, where the central square follows); y: the
        // central row's last group line and 50 µm lines, the 2000 border, the outer row's lines.
        let (x, xTruth) = Self.family(startUm: 2080, umPerSample: 1.6, samples: 820)
        let (y, yTruth) = Self.family(startUm: 1880, umPerSample: 1.6, seed: 2)
        let fits = try #require(registerRuling([x, y]))
        Self.expectRegistered(fits[0], spacing: 250, truth: xTruth, umPerSample: 1.6)
        Self.expectRegistered(fits[1], spacing: 250, truth: yTruth, umPerSample: 1.6)
        #expect(fits.allSatisfy { $0.scaleKnown })
        #expect(fits[0].originKnown)
    }

    @Test func centralGroupSquaresAreTwoHundredNotTwoFifty() throws {
        // Triple lines every 200 µm with the 50 µm lines between: the period a ruling-blind
        // grid search takes for 250 µm (25% off).
        let (x, xTruth) = Self.family(startUm: 1130, umPerSample: 1.5)
        let (y, yTruth) = Self.family(startUm: 1210, umPerSample: 1.5, seed: 3)
        let fits = try #require(registerRuling([x, y]))
        Self.expectRegistered(fits[0], spacing: 200, truth: xTruth, umPerSample: 1.5)
        Self.expectRegistered(fits[1], spacing: 200, truth: yTruth, umPerSample: 1.5)
        #expect(fits.allSatisfy { $0.scaleKnown })
    }

    @Test func theOtherFamilySettlesAScaleItsOwnPatternLeavesOpen() throws {
        // Along x: 250 µm lines with the triple border every fourth, the same pattern as the
        // central square's 50 µm lines with a triple line every fourth; along y the central
        // row's 200 µm triple lines. One µm-per-pixel scale fits both families only at 250.
        let (x, xTruth) = Self.family(startUm: 40, umPerSample: 1.7, strokeUm: 2.5)
        let (y, yTruth) = Self.family(startUm: 1150, umPerSample: 1.7, strokeUm: 2.5, seed: 4)
        let fits = try #require(registerRuling([x, y]))
        // (The x view ends 60 µm into the central square: 0 ... 1000 or 2000 ... 3000 alike.)
        Self.expectRegistered(fits[0], spacing: 250, truth: xTruth, umPerSample: 1.7, modulo: 2000)
        Self.expectRegistered(fits[1], spacing: 200, truth: yTruth, umPerSample: 1.7, modulo: 200)
    }

    @Test func blurredStrokesStillTellTripleFromSingle() throws {
        let (x, xTruth) = Self.family(startUm: 2080, umPerSample: 1.6, strokeUm: 5)
        let (y, yTruth) = Self.family(startUm: 1130, umPerSample: 1.6, strokeUm: 5, seed: 5)
        let fits = try #require(registerRuling([x, y]))
        Self.expectRegistered(fits[0], spacing: 250, truth: xTruth, umPerSample: 1.6, modulo: 2000)
        Self.expectRegistered(fits[1], spacing: 200, truth: yTruth, umPerSample: 1.6, modulo: 200)
    }

    @Test func aViewOfSinglesOnlyLeavesTheOriginOpen() throws {
        // Single lines 250 µm apart and nothing else: the same in each outer large square, and
        // mirrored. The scale is the assumed one and the origin is not claimed.
        let (x, xTruth) = Self.family(startUm: 2300, umPerSample: 0.9)
        let (y, _) = Self.family(startUm: 2290, umPerSample: 0.9, seed: 6)
        let fits = try #require(registerRuling([x, y]))
        #expect(fits[0].spacingUm == 250)
        #expect(abs(fits[0].umPerPixel / 0.9 - 1) < 0.03)
        #expect(!fits[0].originKnown)
        // Whichever outer square it picked, lines fall on lines: chamber coordinates agree
        // with the truth modulo 250 µm.
        let truth = xTruth(300)
        let error = (fits[0].chamberUm(300) - truth).truncatingRemainder(dividingBy: 250)
        #expect(min(abs(error), 250 - abs(error)) < 10)
    }

    @Test func aFlatOrShortProfileIsNotRegistered() {
        let flat = RulingFamilyProfile(profile: [Double](repeating: 0.05, count: 400), origin: 0, period: 100, phase: 10)
        #expect(registerRuling([flat, flat]) == nil)
        let short = RulingFamilyProfile(profile: [0.1, 0.2, 0.1], origin: 0, period: 2, phase: 1)
        #expect(registerRuling([short]) == nil)
        #expect(registerRuling([]) == nil)
        let nonsense = RulingFamilyProfile(profile: [Double](repeating: 0.05, count: 400), origin: 0, period: .nan, phase: 10)
        #expect(registerRuling([nonsense]) == nil)
    }

    @Test func chamberMappingFromWorkingPlaneFits() throws {
        // Working scale 2: working pixel i is image pixels 2i, 2i + 1 (centre 2i + 0.5). Along
        // y (normal +y) 1.5 µm per working pixel, chamber y 1000 at working y 0; along x
        // (normal +x) 1.5 µm, chamber x 2000 at working x 0.
        func fit(_ offset: Double) -> RulingFamilyFit {
            RulingFamilyFit(umPerPixel: 1.5, offsetUm: offset, spacingUm: 250, scaleKnown: true, originKnown: true, score: 1)
        }
        let (m, umPerPixel) = try #require(chamberMapping(normals: [.pi / 2, 0], fits: [fit(1000), fit(2000)], scale: 2))
        #expect(abs(umPerPixel - 0.75) < 1e-12)
        let toChamber = try #require(Homography(matrix: m))
        // Image pixel (0.5, 0.5) is working pixel (0, 0)'s centre.
        let p = try #require(toChamber.apply(Point(x: 0.5, y: 0.5)))
        #expect(abs(p.x - 2000) < 1e-9 && abs(p.y - 1000) < 1e-9)
        let q = try #require(toChamber.apply(Point(x: 100.5, y: 40.5)))
        #expect(abs(q.x - 2075) < 1e-9 && abs(q.y - 1030) < 1e-9)
        // Normals pointing up and left registered the ruling's mirror image: the same image
        // point lands at 3000 - (the mirrored fit's chamber coordinate).
        let (mirrored, _) = try #require(chamberMapping(normals: [-.pi / 2, .pi], fits: [fit(-1000), fit(-2000)], scale: 2))
        let r = try #require(Homography(matrix: mirrored)?.apply(Point(x: 100.5, y: 40.5)))
        #expect(abs(r.x - (3000 - (-2000 - 75))) < 1e-9 && abs(r.y - (3000 - (-1000 - 30))) < 1e-9)
        #expect(chamberMapping(normals: [0], fits: [fit(0)], scale: 2) == nil)
        #expect(chamberMapping(normals: [0, 1], fits: [fit(0), RulingFamilyFit(umPerPixel: .nan, offsetUm: 0, spacingUm: 250,
                                                                                  scaleKnown: false, originKnown: false, score: 0)],
                               scale: 2) == nil)
    }
}
