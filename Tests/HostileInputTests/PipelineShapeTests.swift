import Imaging
import Testing
import Vision

/// The pipeline on degenerate image shapes: it returns a result describing the image (or a
/// typed error), never traps.
@Suite struct PipelineShapeTests {
    static let shapes: [(width: Int, height: Int)] = [(0, 0), (1, 1), (1, 57), (57, 1), (2, 3), (3, 2)]

    @Test(arguments: 0..<shapes.count) func degenerateShape(index: Int) throws {
        let (width, height) = Self.shapes[index]
        let pixels = (0..<(width * height * 3)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let result = try Pipeline().run(Image(width: width, height: height, pixels: pixels))
        #expect(result.width == width && result.height == height)
        #expect(result.detections.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.r.isFinite })
    }

    @Test func emptyImageIsFlagged() throws {
        let result = try Pipeline().run(Image(width: 0, height: 0, pixels: []))
        #expect(result.flags.contains("empty-image"))
        #expect(result.detections.isEmpty)
    }

    @Test func uniformExtremes() throws {
        for value: UInt8 in [0, 255] {
            let result = try Pipeline().run(Image(width: 40, height: 30, fill: (value, value, value)))
            #expect(result.detections.isEmpty, "uniform \(value)")
        }
    }
}
