import Foundation
import Testing
@testable import Vision

/// Defocused live cells: a bright spot smaller than a cell, inside a faint dark rim.
@Suite("Bright spots")
struct BrightSpotTests {
    /// A Gaussian spot of `amplitude` (signed) and `sigma` pixels at each point, plus, when
    /// `rim` is not 0, a dark ring of that depth at radius `rimRadius`.
    static func spots(_ points: [(Double, Double)], width: Int = 64, height: Int = 64, amplitude: Float,
                      sigma: Double = 1, rim: Float = 0, rimRadius: Double = 5) -> Plane {
        var plane = Plane(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                for (cx, cy) in points {
                    let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                    plane[x, y] += amplitude * Float(exp(-d * d / (2 * sigma * sigma)))
                    plane[x, y] += rim * Float(exp(-(d - rimRadius) * (d - rimRadius) / 2))
                }
            }
        }
        return plane
    }

    static let settings = BlobDetectorSettings(minRadius: 3, maxRadius: 7, levels: 5, minScore: 3,
                                               minContrast: 0.02, brightSpotLevel: 0.1)

    /// The detector sees contrast |log|; the signed log says bright or dark.
    static func detect(_ signed: Plane, spotLevel: Double) -> [Candidate] {
        var settings = Self.settings
        settings.brightSpotLevel = spotLevel
        var contrast = signed
        for i in 0..<contrast.count { contrast.data[i] = abs(contrast.data[i]) }
        // A little noise so that the detector's noise estimate is not zero.
        for i in 0..<contrast.count { contrast.data[i] += Float((i &* 7_919) % 13) * 0.0005 }
        return detectBlobs(contrast, settings: settings, brightness: signed)
    }

    @Test func aSmallBrightSpotIsACandidateOnlyWithTheRule() {
        let plane = Self.spots([(32, 32)], amplitude: 0.5)
        let near = { (c: Candidate) in hypot(c.x - 32, c.y - 32) < 2 }
        #expect(!Self.detect(plane, spotLevel: 0).contains(where: near))
        let found = Self.detect(plane, spotLevel: 0.1).filter(near)
        #expect(found.count == 1)
        #expect(found.first?.brightSpot == true)
    }

    @Test func aDarkSpeckOfTheSameSizeIsNot() {
        let plane = Self.spots([(32, 32)], amplitude: -0.5)
        #expect(!Self.detect(plane, spotLevel: 0.1).contains { hypot($0.x - 32, $0.y - 32) < 2 })
    }

    @Test func aSpotFainterThanTheLevelIsNot() {
        let plane = Self.spots([(32, 32)], amplitude: 0.08)
        #expect(!Self.detect(plane, spotLevel: 0.1).contains { hypot($0.x - 32, $0.y - 32) < 2 })
    }

    @Test func aCellSizedBlobIsNoSpot() {
        let plane = Self.spots([(32, 32)], amplitude: 0.5, sigma: 3.5)
        let found = Self.detect(plane, spotLevel: 0.1).filter { hypot($0.x - 32, $0.y - 32) < 2 }
        #expect(found.count == 1)
        #expect(found.first?.brightSpot == false)
    }

    @Test func theSIMDScanFindsTheSameSpotsAsTheExhaustiveOne() {
        let points: [(Double, Double)] = (0..<12).map { (k: Int) -> (Double, Double) in
            let column = Double(k % 4), row = Double(k / 4)
            return (6.5 + column * 13.3, 7.25 + row * 15.1)
        }
        var plane = Self.spots(points, width: 61, height: 53, amplitude: 0.4)
        for i in 0..<plane.count { plane.data[i] = abs(plane.data[i]) + Float((i &* 7_919) % 13) * 0.0005 }
        let brightness = Self.spots(points, width: 61, height: 53, amplitude: 0.4)
        let fast = detectBlobs(plane, settings: Self.settings, holeSupport: nil, brightness: brightness, exhaustiveScan: false)
        let plain = detectBlobs(plane, settings: Self.settings, holeSupport: nil, brightness: brightness, exhaustiveScan: true)
        #expect(BlobDetectorReferenceTests.sameCandidates(fast, plain))
        #expect(fast.filter { $0.brightSpot }.count == points.count)
    }

    @Test func darkRimDepthMeasuresTheRimAroundASpot() {
        let cell = Self.spots([(32, 32)], amplitude: 0.5, rim: -0.1, rimRadius: 5)
        let depth = darkRimDepth(cell, x: 32, y: 32, innerRadius: 2, outerRadius: 8)
        #expect(depth < -0.07 && depth > -0.11, "depth \(depth)")
        let speck = Self.spots([(32, 32)], amplitude: 0.5)
        #expect(darkRimDepth(speck, x: 32, y: 32, innerRadius: 2, outerRadius: 8) >= 0)
    }

    @Test func aLineCrossingTheRingIsNoRim() {
        var plane = Self.spots([(32, 32)], amplitude: 0.5)
        for y in 0..<64 { for x in 36...37 { plane[x, y] -= 0.3 } }
        #expect(darkRimDepth(plane, x: 32, y: 32, innerRadius: 3, outerRadius: 8) > -0.02)
    }

    @Test func outsideThePlaneThereIsNoRing() {
        let plane = Self.spots([(32, 32)], amplitude: 0.5)
        #expect(darkRimDepth(plane, x: -100, y: 32, innerRadius: 2, outerRadius: 8) == 0)
        #expect(darkRimDepth(plane, x: .nan, y: 32, innerRadius: 2, outerRadius: 8) == 0)
        #expect(darkRimDepth(plane, x: 32, y: 32, innerRadius: 8, outerRadius: 2) == 0)
    }
}
