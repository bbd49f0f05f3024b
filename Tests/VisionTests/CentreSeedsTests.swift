import Foundation
import Testing
@testable import Vision

@Suite("Centre seeds")
struct CentreSeedsTests {
    /// The default vote floor: what the pipeline uses.
    static let votes = PipelineConfig().seedMinVotes

    /// Dark rings (a cell's rim) of radius `r` at `centres` on a flat plane, blurred like the
    /// smoothed log luminance the stage hands in.
    static func rings(_ centres: [(Double, Double)], r: Double, size: Int = 60) -> Plane {
        var plane = Plane(width: size, height: size)
        for y in 0..<size {
            for x in 0..<size {
                for (cx, cy) in centres where abs(hypot(Double(x) - cx, Double(y) - cy) - r) < 1 {
                    plane[x, y] = -0.3
                }
            }
        }
        return gaussianBlur(plane, sigma: 1)
    }

    /// Seeds of a plane, as the stage finds them.
    static func seeds(_ plane: Plane, minRadius: Double = 4, maxRadius: Double = 8, gridNormals: [Double] = [],
                      minVotes: Double = votes) -> [(x: Int, y: Int, votes: Double)] {
        centreSeeds(centreVoteMap(plane, minRadius: minRadius, maxRadius: maxRadius, threshold: 0.01,
                                  gridNormals: gridNormals), minRadius: minRadius, minVotes: minVotes)
    }

    static func nearest(_ seeds: [(x: Int, y: Int, votes: Double)], _ x: Double, _ y: Double) -> Double {
        seeds.map { hypot(Double($0.x) - x, Double($0.y) - y) }.min() ?? .infinity
    }

    @Test func eachCellOfATouchingChainGetsItsOwnSeed() {
        // Three touching cells in a row: one elongated blob to a DoG, three rims to the votes.
        let centres = [(18.0, 30.0), (30.0, 30.0), (42.0, 30.0)]
        let seeds = Self.seeds(Self.rings(centres, r: 6))
        for (x, y) in centres {
            #expect(Self.nearest(seeds, x, y) <= 1.5, "no seed near (\(x), \(y)): \(seeds)")
        }
    }

    @Test func straightRulingAndSpecksGiveNoSeeds() {
        var plane = Plane(width: 60, height: 60)
        for y in 0..<60 {
            for x in 0..<60 {
                // A ruling line along x (its gradients lie on the grid normal) and a 1-pixel speck.
                if abs(y - 20) <= 1 { plane[x, y] = -0.3 }
                if hypot(Double(x) - 40, Double(y) - 45) <= 1 { plane[x, y] = -0.3 }
            }
        }
        let blurred = gaussianBlur(plane, sigma: 1)
        let seeds = Self.seeds(blurred, gridNormals: [Double.pi / 2])
        #expect(seeds.isEmpty, "\(seeds)")
        // The same ring is found either way, so the silence above is the line's and the speck's.
        #expect(!Self.seeds(Self.rings([(30, 40)], r: 6), gridNormals: [Double.pi / 2]).isEmpty)
    }

    @Test func seedsAreStrongestFirstAndAboveTheFloor() {
        let plane = Self.rings([(20, 20), (40, 40)], r: 6)
        let seeds = Self.seeds(plane)
        #expect(!seeds.isEmpty)
        #expect(zip(seeds, seeds.dropFirst()).allSatisfy { $0.votes >= $1.votes })
        #expect(seeds.allSatisfy { $0.votes >= Self.votes }, "\(seeds)")
        #expect(Self.seeds(plane, minVotes: 1000).isEmpty)
    }

    @Test func seedCandidatesSkipCentresTheDetectorHas() {
        let plane = Self.rings([(20, 30), (40, 30)], r: 6)
        let detector = [Candidate(x: 20.3, y: 29.8, r: 6, score: 5, contrast: 0.2)]
        let map = centreVoteMap(plane, minRadius: 4, maxRadius: 8, threshold: 0.01)
        let seeds = seedCandidates(map, besides: detector, minR: 4, maxR: 8, minVotes: Self.votes)
        #expect(seeds.allSatisfy { hypot($0.x - 20.3, $0.y - 29.8) >= 2 })
        #expect(seeds.contains { hypot($0.x - 40, $0.y - 30) <= 1.5 && $0.seeded && $0.score == 0 })
    }
}

@Suite("Crossings")
struct CrossingTests {
    /// A contrast map with a horizontal and a vertical ruling line (log contrast 0.5) crossing
    /// at (30, 30), and a cell-sized disc on the horizontal line at (10, 30).
    static func ruling() -> Plane {
        var plane = Plane(width: 60, height: 60)
        for y in 0..<60 {
            for x in 0..<60 {
                var v: Float = 0.02
                if abs(y - 30) <= 2 || abs(x - 30) <= 2 { v = 0.5 }
                if hypot(Double(x) - 10, Double(y) - 30) <= 5 { v = 0.7 }
                plane[x, y] = v
            }
        }
        return plane
    }

    @Test func lineStrengthSeesTheLineNotTheCell() {
        let plane = Self.ruling()
        #expect(abs(lineStrength(plane, x: 45, y: 30, angle: 0, halfLength: 20) - 0.5) < 0.01)
        #expect(abs(lineStrength(plane, x: 45, y: 30, angle: .pi / 2, halfLength: 20) - 0.02) < 0.01)
        // Off the lines, a cell covering a fifth of the samples leaves the quantile at the floor.
        #expect(lineStrength(plane, x: 10, y: 45, angle: .pi / 2, halfLength: 20) < 0.03)
    }

    @Test func onlyWhereBothDirectionsCarryALineIsACrossing() {
        let plane = Self.ruling()
        let angles = [0.0, Double.pi / 2]
        #expect(isOnCrossing(plane, x: 30, y: 30, angles: angles, halfLength: 20, level: 0.24))
        // A cell on one line, an open spot, and a grid of one direction only.
        #expect(!isOnCrossing(plane, x: 10, y: 30, angles: angles, halfLength: 20, level: 0.24))
        #expect(!isOnCrossing(plane, x: 45, y: 45, angles: angles, halfLength: 20, level: 0.24))
        #expect(!isOnCrossing(plane, x: 30, y: 30, angles: [0], halfLength: 20, level: 0.24))
    }
}

extension Canvas {
    /// A clear cell lying over whatever is beneath it (it hides a ruling line): a dark rim
    /// (0.7 r ... r) and a bright interior, as colours, not factors.
    mutating func clearCellOnTop(x: Double, y: Double, r: Double, background: Double = 0.74) {
        for py in Int(y - r - 1)...Int(y + r + 1) {
            for px in Int(x - r - 1)...Int(x + r + 1) where px >= 0 && py >= 0 && px < width && py < height {
                var rim = 0, inside = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let dx = Double(px) + (Double(sx) + 0.5) / 4 - 0.5 - x, dy = Double(py) + (Double(sy) + 0.5) / 4 - 0.5 - y
                        let d2 = dx * dx + dy * dy
                        if d2 <= 0.49 * r * r { inside += 1 } else if d2 <= r * r { rim += 1 }
                    }
                }
                guard rim + inside > 0 else { continue }
                let a = Double(rim + inside) / 16
                let colour = (Double(rim) * 0.5 + Double(inside) * 1.2) / Double(rim + inside) * background
                for k in 0..<3 { rgb[(py * width + px) * 3 + k] = rgb[(py * width + px) * 3 + k] * (1 - a) + colour * a }
            }
        }
    }
}

@Suite("Cells on crossings")
struct CellsOnCrossingsTests {
    /// Heavy ruling (dark 6-pixel lines every 80 pixels): a clear cell on a crossing is counted,
    /// the bare crossings are not.
    @Test func aClearCellOnAHeavyCrossingIsCounted() throws {
        var canvas = Canvas(width: 320, height: 240)
        canvas.grid(spacing: 80, angle: 0.03, lineWidth: 6, darkness: 0.35)
        let onCrossing = (80 * cos(0.03) - 80 * sin(0.03), 80 * sin(0.03) + 80 * cos(0.03))
        canvas.clearCellOnTop(x: onCrossing.0, y: onCrossing.1, r: 8)
        var config = PipelineConfig()
        config.minRadiusPx = 5
        config.maxRadiusPx = 12
        // Every line here is heavy, which the registration may read as the central column's
        // triple lines; a cell centred on a registered triple crossing is given up for the
        // little squares between the strokes (TripleCrossingTests). This test is about the
        // polarity rule on any heavy crossing.
        config.tripleCrossingMarginPx = 0
        let result = try Pipeline(config: config).run(canvas.image(noise: 0.01))
        #expect(result.grid != nil, "flags \(result.flags)")
        #expect(matchCount(result.detections, [(x: onCrossing.0, y: onCrossing.1)], tolerance: 4) == 1, "\(result.detections)")
        #expect(result.detections.count == 1, "\(result.detections)")
    }
}

@Suite("Bright rulings")
struct BrightRulingTests {
    @Test func polarityFollowsTheLines() {
        var lines = Plane(width: 40, height: 40), logLuminance = Plane(width: 40, height: 40)
        for x in 0..<40 { for y in 18...21 { lines[x, y] = 0.5; logLuminance[x, y] = -0.4 } }
        #expect(rulingPolarity(lines: lines, logLuminance: logLuminance, level: 0.24) == -1)
        for i in 0..<logLuminance.count { logLuminance.data[i] = -logLuminance.data[i] }
        #expect(rulingPolarity(lines: lines, logLuminance: logLuminance, level: 0.24) == 1)
        #expect(rulingPolarity(lines: Plane(width: 40, height: 40), logLuminance: logLuminance, level: 0.24) == -1)
        #expect(rulingPolarity(lines: Plane(width: 3, height: 3), logLuminance: logLuminance, level: 0.24) == -1)
    }

    /// The crossing of `CrossingTests.ruling()` read as bright lines (log luminance +0.5 on
    /// them): a bright candidate there is the crossing's residue, a dark one a cell lying on
    /// it; under dark lines the other way round; a stained one is always a cell.
    @Test func aResidueHasTheLinesPolarity() {
        let contrast = CrossingTests.ruling()
        let angles = [0.0, Double.pi / 2]
        func residue(_ brightness: Float, polarity: Float, stained: Bool = false) -> Bool {
            isCrossingResidue(contrast, x: 30, y: 30, brightness: brightness, polarity: polarity, stained: stained,
                              angles: angles, halfLength: 20, level: 0.24)
        }
        #expect(residue(0.5, polarity: 1))
        #expect(!residue(-0.3, polarity: 1))
        #expect(residue(-0.3, polarity: -1))
        #expect(!residue(0.2, polarity: -1))
        #expect(!residue(-0.3, polarity: -1, stained: true))
        // Off the crossing nothing is a residue.
        #expect(!isCrossingResidue(contrast, x: 45, y: 45, brightness: 0.5, polarity: 1, stained: false,
                                   angles: angles, halfLength: 20, level: 0.24))
    }
}
