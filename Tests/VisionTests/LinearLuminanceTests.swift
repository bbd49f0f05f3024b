import Testing
@testable import Vision

/// The vector glare / colour counts against the per-pixel test.
@Suite("Linear luminance counts")
struct LinearLuminanceTests {
    @Test func glareAndColourCountsMatchPerPixelTest() {
        var state: UInt64 = 17
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        // Grey-ish pixels near the limits and random ones, 1300 pixels (more than 255 vector steps).
        var bytes: [UInt8] = []
        for i in 0..<1300 {
            let base = next()
            if i % 3 == 0 {
                bytes += [next(), next(), next()]
            } else {
                bytes += [base, base &+ (next() & 7), base &- (next() & 3)]
            }
        }
        for n in [0, 1, 5, 6, 7, 11, 12, 40, 1300] {
            for (level, limit) in [(250, 5), (0, 0), (255, 254), (128, 255), (200, -1), (7, 300), (1, 3)] {
                let got = bytes.withUnsafeBufferPointer {
                    countGlareAndColour($0.baseAddress!, pixels: n, glareLevel: UInt8(level), chromaLimit: limit)
                }
                var glare = 0, coloured = 0
                for i in 0..<n {
                    let r = bytes[3 * i], g = bytes[3 * i + 1], b = bytes[3 * i + 2]
                    if max(r, g, b) >= UInt8(level) { glare += 1 }
                    if Int(max(r, g, b)) - Int(min(r, g, b)) > limit { coloured += 1 }
                }
                #expect(got.glare == glare && got.coloured == coloured, "n \(n) level \(level) limit \(limit)")
            }
        }
    }
}
