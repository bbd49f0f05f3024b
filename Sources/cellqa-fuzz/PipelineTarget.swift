import Imaging
import Vision

/// Fuzz target for the whole pipeline on small images.
enum PipelineTarget {
    /// Largest side; small so one run takes milliseconds even under AddressSanitizer.
    static let maxSide = 96

    /// Input layout: byte 0 -> width (1...96), byte 1 -> height (1...96), byte 2 -> detector
    /// and grid switch, the rest -> RGB pixels, repeated to fill the image (mid-grey when
    /// absent). A result must describe the image it came from and hold only finite numbers.
    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 3 else { return }
        let width = 1 + Int(bytes[0]) % maxSide
        let height = 1 + Int(bytes[1]) % maxSide
        var config = PipelineConfig()
        let detectors = DetectorKind.allCases
        config.detector = detectors[Int(bytes[2]) % detectors.count]
        config.gridEnabled = bytes[2] & 0x80 == 0
        let payload = bytes[3...]
        var pixels = [UInt8](repeating: 128, count: width * height * 3)
        if !payload.isEmpty {
            var source = payload.startIndex
            for index in pixels.indices {
                pixels[index] = payload[source]
                source = source == payload.endIndex - 1 ? payload.startIndex : source + 1
            }
        }
        let image = Image(width: width, height: height, pixels: pixels)
        let result: PipelineResult
        do {
            result = try Pipeline(config: config).run(image)
        } catch {
            return  // a typed refusal is an acceptable outcome
        }
        if result.width != width || result.height != height {
            FuzzInvariant.fail("result is \(result.width)x\(result.height) for a \(width)x\(height) image")
        }
        for detection in result.detections
        where !(detection.x.isFinite && detection.y.isFinite && detection.r.isFinite && detection.score.isFinite) {
            FuzzInvariant.fail("non-finite detection \(detection) on \(width)x\(height)")
        }
    }
}
