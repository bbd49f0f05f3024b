import CCodecs

/// Encodes interleaved samples with libjpeg through the CCodecs test-facing encoder, so JPEG
/// decode tests start from pixel data we chose.
func encodeJPEG(_ samples: [UInt8], width: Int, height: Int, components: Int, quality: Int = 100,
                progressive: Bool = false, colorspace: Int32 = 0, adobeMarker: Int32 = -1,
                fullChroma: Bool = true) throws -> [UInt8] {
    var options = cc_jpeg_encode_options(components: Int32(components), quality: Int32(quality),
                                         progressive: progressive ? 1 : 0, colorspace: colorspace,
                                         adobe_marker: adobeMarker, full_chroma: fullChroma ? 1 : 0)
    var output: UnsafeMutablePointer<UInt8>? = nil
    var size = 0
    var message = [CChar](repeating: 0, count: Int(CC_MESSAGE_CAPACITY))
    let status = samples.withUnsafeBufferPointer { pixels in
        cc_jpeg_encode(pixels.baseAddress, UInt32(width), UInt32(height), &options, &output, &size,
                       &message, message.count)
    }
    defer { cc_free(output) }
    guard status == CC_OK, let output else {
        throw JPEGFixtureError(message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                                               as: UTF8.self))
    }
    return Array(UnsafeBufferPointer(start: output, count: size))
}

struct JPEGFixtureError: Error { var message: String }

/// An image made of uniform 8x8 blocks: with quality 100 and no chroma subsampling each block
/// is a DC coefficient with quantiser 1, so the codec round trip is exact for single-channel
/// and CMYK data.
func blockSamples(width: Int, height: Int, components: Int, seed: UInt64) -> [UInt8] {
    var random = SeededGenerator(state: seed)
    let blocksX = (width + 7) / 8, blocksY = (height + 7) / 8
    let colors = (0..<(blocksX * blocksY)).map { _ in (0..<components).map { _ in UInt8(random.below(256)) } }
    var samples: [UInt8] = []
    samples.reserveCapacity(width * height * components)
    for y in 0..<height {
        for x in 0..<width { samples += colors[(y / 8) * blocksX + x / 8] }
    }
    return samples
}

/// Smooth colour gradients with a little seeded noise: photo-like content for lossy checks.
func gradientRGB(width: Int, height: Int, seed: UInt64) -> [UInt8] {
    var random = SeededGenerator(state: seed)
    var samples: [UInt8] = []
    for y in 0..<height {
        for x in 0..<width {
            let r = 40 + 170 * x / max(width - 1, 1)
            let g = 30 + 180 * y / max(height - 1, 1)
            let b = 200 - 150 * (x + y) / max(width + height - 2, 1)
            samples += [r, g, b].map { UInt8(clamping: $0 + random.below(5) - 2) }
        }
    }
    return samples
}

/// Largest and mean absolute difference between two equally long sample arrays.
func differences(_ a: [UInt8], _ b: [UInt8]) -> (max: Int, mean: Double) {
    var largest = 0, total = 0
    for (x, y) in zip(a, b) {
        let d = abs(Int(x) - Int(y))
        largest = max(largest, d)
        total += d
    }
    return (largest, Double(total) / Double(max(a.count, 1)))
}

/// (a * b) / 255 rounded to nearest: the CMYK to RGB model.
func multiply255(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Int(a) * Int(b) + 127) / 255) }

/// RGB for interleaved CMYK samples. `inverted`: Adobe convention, samples are 255 - ink.
func cmykToRGB(_ samples: [UInt8], inverted: Bool) -> [UInt8] {
    var rgb: [UInt8] = []
    rgb.reserveCapacity(samples.count / 4 * 3)
    for i in stride(from: 0, to: samples.count, by: 4) {
        let light = (0..<4).map { inverted ? samples[i + $0] : 255 - samples[i + $0] }
        for channel in 0..<3 { rgb.append(multiply255(light[channel], light[3])) }
    }
    return rgb
}
