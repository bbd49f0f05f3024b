import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("Core seeds")
struct CoreSeedsTests {
    static let settings = CoreSeedSettings(minContrast: Float(PipelineConfig().coreSeedContrast),
                                           rimDepth: Float(PipelineConfig().coreSeedRimDepth),
                                           minRays: PipelineConfig().coreSeedRays)

    /// Live cells as the smoothed log luminance shows them: a bright core inside a dark rim of
    /// radius `r`, blurred (`sigma`) until touching cells' rims run together; `spots` adds
    /// bright spots without a rim.
    static func cells(_ centres: [(Double, Double)], r: Double, spots: [(Double, Double)] = [],
                      size: Int = 64, sigma: Double = 1.5) -> Plane {
        var plane = Plane(width: size, height: size)
        for y in 0..<size {
            for x in 0..<size {
                var v: Float = 0
                for (cx, cy) in centres {
                    let d = hypot(Double(x) - cx, Double(y) - cy)
                    if abs(d - r) < 1 { v = min(v, -0.4) }
                    if d < 0.4 * r { v = max(v, 0.2) }
                }
                for (sx, sy) in spots where hypot(Double(x) - sx, Double(y) - sy) < 2 { v = 0.2 }
                plane[x, y] = v
            }
        }
        return gaussianBlur(plane, sigma: sigma)
    }

    static func nearest(_ seeds: [Candidate], _ x: Double, _ y: Double) -> Double {
        seeds.map { hypot($0.x - x, $0.y - y) }.min() ?? .infinity
    }

    @Test func theCellsOfAMergedClumpGetSeedsAtTheirCores() {
        // Three touching cells in a row; the detector saw one blob over the middle one.
        let centres = [(18.0, 32.0), (30.0, 32.0), (42.0, 32.0)]
        let blob = Candidate(x: 30, y: 32, r: 9, score: 8, contrast: 0.2)
        let seeds = coreSeeds(Self.cells(centres, r: 5), besides: [blob], minR: 3, maxR: 8, settings: Self.settings)
        #expect(Self.nearest(seeds, 18, 32) <= 1.5, "\(seeds)")
        #expect(Self.nearest(seeds, 42, 32) <= 1.5, "\(seeds)")
        // None on the blob itself (it stands for the middle cell), none anywhere else.
        #expect(Self.nearest(seeds, 30, 32) > 0.7 * blob.r)
        #expect(seeds.count == 2, "\(seeds)")
        #expect(seeds.allSatisfy { $0.seeded && $0.score == 0 && $0.r >= 3 && $0.r <= blob.r })
    }

    @Test func aBrightSpotWithoutARimAndCellsOutOfReachGetNone() {
        // A bright speck beside the blob has no dark ring; a cell 4 radii off is out of reach.
        let plane = Self.cells([(20, 20), (20, 52)], r: 5, spots: [(30, 20)])
        let blob = Candidate(x: 20, y: 20, r: 5, score: 8, contrast: 0.2)
        let seeds = coreSeeds(plane, besides: [blob], minR: 3, maxR: 8, settings: Self.settings)
        #expect(seeds.isEmpty, "\(seeds)")
        var open = Self.settings
        open.minRays = 0
        #expect(Self.nearest(coreSeeds(plane, besides: [blob], minR: 3, maxR: 8, settings: open), 30, 20) <= 1.5, "the speck is a core but for its rays")
        // The far cell is a core like any other once a candidate stands beside it.
        let beside = Candidate(x: 20, y: 42, r: 5, score: 8, contrast: 0.2)
        #expect(Self.nearest(coreSeeds(plane, besides: [beside], minR: 3, maxR: 8, settings: Self.settings), 20, 52) <= 1.5)
    }

    @Test func aRingOpenOnOneSideIsNoCore() {
        // A bright spot between three cells: dark towards each of them, background between.
        let centres = [(20.0, 20.0), (44.0, 20.0), (32.0, 41.0)]
        let plane = Self.cells(centres, r: 5, spots: [(32, 27)])
        let blob = Candidate(x: 20, y: 20, r: 8, score: 8, contrast: 0.2)
        let seeds = coreSeeds(plane, besides: [blob], minR: 3, maxR: 8, settings: Self.settings)
        #expect(Self.nearest(seeds, 32, 27) > 3, "\(seeds)")
        var open = Self.settings
        open.minRays = 0
        #expect(Self.nearest(coreSeeds(plane, besides: [blob], minR: 3, maxR: 8, settings: open), 32, 27) <= 1.5, "the spot is a core but for its rays")
    }

    @Test func degenerateInputsGiveNoSeedsWithoutTrapping() {
        let plane = Self.cells([(20, 20)], r: 5)
        let good = Candidate(x: 27, y: 20, r: 5, score: 8, contrast: 0.2)
        #expect(coreSeeds(plane, besides: [], minR: 3, maxR: 8, settings: Self.settings).isEmpty)
        #expect(coreSeeds(Plane(width: 4, height: 4), besides: [good], minR: 3, maxR: 8, settings: Self.settings).isEmpty)
        #expect(coreSeeds(plane, besides: [good], minR: 8, maxR: 3, settings: Self.settings).isEmpty)
        #expect(coreSeeds(plane, besides: [good], minR: 0, maxR: 8, settings: Self.settings).isEmpty)
        // Radii whose ring would not fit the plane are not tried (nor tabled).
        #expect(coreSeeds(plane, besides: [good], minR: 40, maxR: 2000, settings: Self.settings).isEmpty)
        let broken = [Candidate(x: .nan, y: 20, r: 5, score: 1, contrast: 0.1),
                      Candidate(x: 20, y: 20, r: .infinity, score: 1, contrast: 0.1),
                      Candidate(x: 1e12, y: -1e12, r: 1e9, score: 1, contrast: 0.1),
                      Candidate(x: 1e300, y: 20, r: 5, score: 1, contrast: 0.1),
                      Candidate(x: 20, y: -1e300, r: 1e300, score: 1, contrast: 0.1),
                      Candidate(x: 20, y: 20, r: 0, score: 1, contrast: 0.1)]
        #expect(coreSeeds(plane, besides: broken, minR: 3, maxR: 8, settings: Self.settings).isEmpty)
        // A candidate at the border: its reach leaves the plane and the rays are read clamped.
        let corner = Candidate(x: 0, y: 0, r: 8, score: 1, contrast: 0.1)
        _ = coreSeeds(Self.cells([(4, 4)], r: 5), besides: [corner], minR: 3, maxR: 8, settings: Self.settings)
    }

    @Test func discSumsAreNearestFirstAndAddUp() {
        let discs = DiscSums(maxRadius: 3)
        #expect(zip(discs.offsets, discs.offsets.dropFirst()).allSatisfy { $0.d2 <= $1.d2 })
        #expect(discs.count(within: 0) == 1 && discs.count(within: 1) == 5 && discs.count(within: 3) == discs.offsets.count)
        // On a ramp, a disc's mean is its centre's value; at the border the edge repeats.
        let ramp = Plane(width: 9, height: 9, data: (0..<81).map { Float($0 % 9) })!
        var sums = [Float](repeating: 0, count: discs.offsets.count + 1)
        ramp.data.withUnsafeBufferPointer { d in
            discs.runningSums(d, width: 9, height: 9, x: 4, y: 4, count: discs.offsets.count, into: &sums)
        }
        #expect(abs(sums[discs.offsets.count] / Float(discs.offsets.count) - 4) < 1e-5)
        ramp.data.withUnsafeBufferPointer { d in
            discs.runningSums(d, width: 9, height: 9, x: 0, y: 0, count: 5, into: &sums)
        }
        #expect(sums[5] == 0 + 0 + 1 + 0 + 0, "\(Array(sums.prefix(6)))")
    }

    /// A blurred chain of live cells (`Tests/Images/blurred-clump.png`): the detector's blobs
    /// and the centre seeds miss the cell at (145.57, 110.68); its core is found, and nothing
    /// else is added. (`roundRimShortfall` keeps a second core, a labelled cell at (104.9,
    /// 185.0) that shows its rim in too few sectors: off here, so that the test sees the core
    /// seeds alone.)
    @Test func aBlurredClumpGainsItsHiddenCell() throws {
        var base = PipelineConfig()
        base.roundRimShortfall = 0
        let run = try detectionsWithAndWithout("Tests/Images/blurred-clump.png", base: base) { $0.coreSeedContrast = 0 }
        #expect(nearestDistance(run.with, to: 145.57, 110.68) <= 2.5)
        #expect(nearestDistance(run.without, to: 145.57, 110.68) > 5)
        #expect(run.with.count == run.without.count + 1)
        // Every detection of the run without core seeds is still there (the found cell's
        // neighbour settles 1.1 px from where it did, the rest where they did).
        #expect(run.without.allSatisfy { d in nearestDistance(run.with, to: d.x, d.y) < 1.5 })
        // `--explain` shows where it came from: nothing near it before the core seeds, a seed there.
        let image = try Image.decode(file: repositoryRoot + "/Tests/Images/blurred-clump.png")
        let (_, trace) = try Pipeline(config: PipelineConfig()).explain(image, probes: [.init(x: 145.57, y: 110.68)], reach: 3)
        let firstNear = trace.entries[0].first { $0.near > 0 }
        #expect(firstNear?.step == "core seeds")
        #expect(firstNear?.nearest?.note == "seed")
        #expect(trace.lostAt(probe: 0) == nil)
    }
}
