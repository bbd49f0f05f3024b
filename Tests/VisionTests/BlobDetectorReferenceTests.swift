import Testing
@testable import Vision

/// The DoG detector's SIMD pre-filtered scan against the exhaustive one (every pixel through
/// the full peak test): same candidates, bit for bit, in the same order.
@Suite("Blob detector reference")
struct BlobDetectorReferenceTests {
    /// Noise plus bright and dark discs (dark ones are holes), some touching in pairs so that
    /// the elongated-blob split runs too.
    static func blobPlane(width: Int, height: Int, seed: UInt64) -> Plane {
        var plane = KernelReferenceTests.noisePlane(width: width, height: height, seed: seed)
        for i in 0..<plane.count { plane.data[i] = (plane.data[i] - 0.5) * 0.08 }
        var state = seed &+ 17
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 40) / Double(1 << 24)
        }
        for k in 0..<(width * height / 150) {
            let cx = next() * Double(width), cy = next() * Double(height), r = 2 + 3.5 * next()
            let amplitude = Float((k % 3 == 0 ? -1 : 1) * (0.2 + next()))
            let twin = k % 5 == 0
            for y in 0..<height {
                for x in 0..<width {
                    let d0 = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                    let d1 = ((Double(x) - cx - 2 * r) * (Double(x) - cx - 2 * r) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                    if d0 <= r || (twin && d1 <= r) { plane[x, y] += amplitude }
                }
            }
        }
        return plane
    }

    static func sameCandidates(_ a: [Candidate], _ b: [Candidate]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { p, q in
            p.x.bitPattern == q.x.bitPattern && p.y.bitPattern == q.y.bitPattern && p.r.bitPattern == q.r.bitPattern
                && p.score.bitPattern == q.score.bitPattern && p.contrast.bitPattern == q.contrast.bitPattern
                && p.brightSpot == q.brightSpot
        }
    }

    /// The detector settings the scan tests sweep: holes (off, on, on as spots too), splits
    /// and bright spots each on and off, with a label naming them.
    static func scanSettings() -> [(label: String, settings: BlobDetectorSettings)] {
        [(false, false), (true, false), (true, true)].flatMap { holes, holeSpots in
            [false, true].flatMap { split in
                [0, 0.1].map { spotLevel in
                    ("holes \(holes) hole spots \(holeSpots) split \(split) spots \(spotLevel)",
                     BlobDetectorSettings(minRadius: 2, maxRadius: 5, levels: 5, minScore: 3, minContrast: 0.05,
                                          maxEdgeRatio: 4, splitElongated: split, holes: holes, holeSpots: holeSpots,
                                          brightSpotLevel: spotLevel))
                }
            }
        }
    }

    /// Widths on both sides of the 8-pixel groups, tiny planes, with and without holes.
    @Test(arguments: [(3, 3), (9, 7), (10, 12), (17, 40), (64, 48), (131, 97)])
    func prefilteredScanMatchesExhaustive(size: (Int, Int)) {
        let plane = Self.blobPlane(width: size.0, height: size.1, seed: UInt64(size.0 * 1000 + size.1))
        var support = KernelReferenceTests.noisePlane(width: size.0, height: size.1, seed: 5)
        for i in 0..<support.count where i % 3 == 0 { support.data[i] = 0 }
        // The signed plane as brightness: its small bright discs are spots.
        for (name, settings) in Self.scanSettings() {
            let fast = detectBlobs(plane, settings: settings, holeSupport: support, brightness: plane,
                                   exhaustiveScan: false)
            let plain = detectBlobs(plane, settings: settings, holeSupport: support, brightness: plane,
                                    exhaustiveScan: true)
            let label = "size \(size) \(name)"
            #expect(Self.sameCandidates(fast, plain), "\(label)")
            if size.0 * size.1 > 5000 { #expect(fast.count > 5, "\(label): \(fast.count) candidates") }
        }
    }
}
