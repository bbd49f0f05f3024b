import Imaging
import Testing
@testable import Vision

/// The AVX kernels (used where the CPU has AVX) against the portable Swift paths they stand
/// in for: the same results, bit for bit.
@Suite("Wide kernels")
struct WideKernelTests {
    /// Edge evidence with the facing pixels found in C and in Swift: the same centres, radii
    /// (windows narrower and wider than eight pixels, clipped by the plane's edges),
    /// thresholds, sector counts and grid normals as the reference test.
    @Test func edgeEvidenceMatchesPortable() {
        let plane = RingEvidenceReferenceTests.ringPlane()
        let field = RadialEdgeField(plane)
        var sequence = TestSequence(state: 71)
        func next() -> Double { sequence.next() }
        var covered = 0
        for i in 0..<800 {
            var x = -8 + 106 * next(), y = -8 + 86 * next()
            if i % 5 == 0 { x = (2 * x).rounded() / 2; y = (2 * y).rounded() / 2 }
            let r = 0.5 + 20 * next() * next()
            let threshold = Float(0.002 + 0.05 * next())
            let sectors = [16, 16, 16, 1, 3, 7, 64, 65][i % 8]
            let tilt: Double = 0.29 + 0.1 * next()
            let choices: [[Double]] = [[], [tilt, tilt + Double.pi / 2], [1.1], [0.2, 0.2 + Double.pi / 2, 0.2 + Double.pi / 4]]
            let normals = choices[i % 4]
            let wide = field.evidence(x: x, y: y, r: r, threshold: threshold, sectors: sectors, gridNormals: normals, wide: true)
            let portable = field.evidence(x: x, y: y, r: r, threshold: threshold, sectors: sectors, gridNormals: normals,
                                          wide: false)
            #expect(wide.coverage.bitPattern == portable.coverage.bitPattern
                        && wide.gridAligned.bitPattern == portable.gridAligned.bitPattern,
                    "centre (\(x), \(y)) r \(r) t \(threshold) sectors \(sectors): \(wide) vs \(portable)")
            if portable.coverage > 0.5 { covered += 1 }
        }
        #expect(covered > 20)
    }

    /// The DoG scan's pre-filter in C and in Swift: the same candidates in the same order, with
    /// and without holes, splits and bright spots, on widths either side of the groups.
    @Test(arguments: [(3, 3), (9, 7), (10, 12), (17, 40), (64, 48), (131, 97)])
    func blobScanMatchesPortable(size: (Int, Int)) {
        let plane = BlobDetectorReferenceTests.blobPlane(width: size.0, height: size.1, seed: UInt64(size.0 * 7 + size.1))
        var support = KernelReferenceTests.noisePlane(width: size.0, height: size.1, seed: 11)
        for i in 0..<support.count where i % 3 == 0 { support.data[i] = 0 }
        for (name, settings) in BlobDetectorReferenceTests.scanSettings() {
            let wide = detectBlobs(plane, settings: settings, holeSupport: support, brightness: plane,
                                   exhaustiveScan: false, wide: true)
            let portable = detectBlobs(plane, settings: settings, holeSupport: support, brightness: plane,
                                       exhaustiveScan: false, wide: false)
            #expect(BlobDetectorReferenceTests.sameCandidates(wide, portable), "size \(size) \(name)")
            if size.0 * size.1 > 5000 { #expect(wide.count > 5) }
        }
    }

    /// Planes transposed eight by eight through AVX registers and one sample at a time: the
    /// same samples, on sizes with and without ragged 8 x 8 blocks and 32 x 32 tiles, and
    /// transposing back gives the plane again.
    @Test(arguments: [(1, 1), (1, 9), (7, 3), (8, 8), (9, 16), (33, 17), (64, 40), (131, 97)])
    func transposeMatchesPortable(size: (Int, Int)) {
        let plane = KernelReferenceTests.noisePlane(width: size.0, height: size.1, seed: UInt64(size.0 * 31 + size.1))
        let wide = transposed(plane, wide: true), portable = transposed(plane, wide: false)
        #expect(wide.width == size.1 && wide.height == size.0)
        #expect(wide.data.map(\.bitPattern) == portable.data.map(\.bitPattern), "size \(size)")
        #expect(portable.data[0] == plane.data[0])
        if size.0 > 1 && size.1 > 1 { #expect(portable.data[1] == plane.data[size.0], "size \(size)") }
        #expect(transposed(wide, wide: true).data.map(\.bitPattern) == plane.data.map(\.bitPattern))
    }

    /// The voting reference's touching pair on a grid, with a big live cell against the top
    /// edge and a small dead one near the left.
    static func cellsOnAGrid() -> Image {
        EdgeCentreVoteReferenceTests.touchingPairOnAGrid { canvas in
            canvas.liveCell(x: 95, y: 20, r: 12)
            canvas.deadCell(x: 15, y: 75, r: 5)
        }
    }

    /// Boundary radii summed eight columns at a time in C and by the Swift loop: the same bits,
    /// for centres on, beside and off cells, windows clipped by the image's edges.
    @Test func boundaryRadiusMatchesPortable() {
        let image = Self.cellsOnAGrid()
        var sequence = TestSequence(state: 8)
        func next() -> Double { sequence.next() }
        var measured = 0
        for i in 0..<400 {
            var x = -5 + 130 * next(), y = -5 + 100 * next()
            if i % 4 == 0 { x = x.rounded(); y = y.rounded() }
            let r = 0.3 + 25 * next()
            let wide = boundaryRadius(image, x: x, y: y, r: r, wide: true)
            let portable = boundaryRadius(image, x: x, y: y, r: r, wide: false)
            #expect(wide.bitPattern == portable.bitPattern, "centre (\(x), \(y)) r \(r): \(wide) vs \(portable)")
            if portable > 0 { measured += 1 }
        }
        #expect(measured > 200)
    }

    /// Grey windows eight pixels at a time and one by one: every width around the eight-pixel
    /// groups, windows against each edge of the image (the last row's last byte included).
    @Test func greyWindowMatchesPortable() {
        var state: UInt64 = 12
        let w = 37, h = 11
        let pixels = (0..<(w * h * 3)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let image = Image(width: w, height: h, pixels: pixels)
        for (x0, y0) in [(0, 0), (3, 2), (0, 5)] {
            for width in 1...(w - x0) {
                for height in [1, h - y0] {
                    var wide = [Float](repeating: -1, count: width * height), portable = wide
                    wide.withUnsafeMutableBufferPointer {
                        greyWindow(image, x0: x0, y0: y0, width: width, height: height, into: $0.baseAddress!, wide: true)
                    }
                    portable.withUnsafeMutableBufferPointer {
                        readGreyWindow(image, x0: x0, y0: y0, width: width, height: height, into: $0.baseAddress!)
                    }
                    #expect(wide == portable, "window (\(x0), \(y0)) \(width) x \(height)")
                }
            }
        }
        // The window that ends at the image's last byte.
        var wide = [Float](repeating: 0, count: 16), portable = wide
        wide.withUnsafeMutableBufferPointer {
            greyWindow(image, x0: w - 16, y0: h - 1, width: 16, height: 1, into: $0.baseAddress!, wide: true)
        }
        portable.withUnsafeMutableBufferPointer {
            readGreyWindow(image, x0: w - 16, y0: h - 1, width: 16, height: 1, into: $0.baseAddress!)
        }
        #expect(wide == portable)
    }

    /// Centre votes from windows read eight pixels at a time and one by one: the same centres.
    @Test func centreVoteMatchesPortable() {
        let image = Self.cellsOnAGrid()
        var sequence = TestSequence(state: 5)
        func next() -> Double { sequence.next() }
        var wideScratch = VoteScratch(), portableScratch = VoteScratch()
        var moved = 0
        for _ in 0..<300 {
            let x = -5 + 130 * next(), y = -5 + 100 * next(), r = 1 + 20 * next()
            let wide = voteCentre(image, x: x, y: y, r: r, scratch: &wideScratch, wide: true)
            let portable = voteCentre(image, x: x, y: y, r: r, scratch: &portableScratch, wide: false)
            #expect(wide.x.bitPattern == portable.x.bitPattern && wide.y.bitPattern == portable.y.bitPattern,
                    "start (\(x), \(y)) r \(r): \(wide) vs \(portable)")
            if wide.x != x || wide.y != y { moved += 1 }
        }
        #expect(moved > 100)
    }
}
