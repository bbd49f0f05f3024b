import Testing
@testable import Imaging

/// Builds a spec filled with seeded random samples covering the full value range.
func makePNGSpec(_ colorType: PNGColorType, bitDepth: Int, width: Int = 13, height: Int = 9,
                 interlaced: Bool = false, transparency: Bool = false, seed: UInt64 = 1) -> PNGSpec {
    var random = SeededGenerator(state: seed &+ UInt64(bitDepth) &* 977 &+ UInt64(colorType.rawValue))
    let channels = colorType.channels
    var palette: [[UInt8]] = []
    var sampleLimit = 1 << bitDepth
    if colorType == .palette {
        // Not every index needs an entry: use 5 colours for 1/2-bit, more for wider indices.
        let entries = min(sampleLimit, bitDepth >= 4 ? 11 + bitDepth : 1 << bitDepth)
        palette = (0..<entries).map { _ in [UInt8(random.below(256)), UInt8(random.below(256)), UInt8(random.below(256))] }
        sampleLimit = entries
    }
    var samples = (0..<(width * height * channels)).map { _ in UInt16(random.below(sampleLimit)) }
    // Pin the extremes so scaling of 0 and the maximum is always exercised.
    samples[0] = 0
    samples[samples.count - 1] = UInt16(sampleLimit - 1)
    var trns: [UInt8]? = nil
    if transparency {
        switch colorType {
        case .palette: trns = (0..<min(palette.count, 4)).map { UInt8($0 * 60) }
        case .gray: trns = [UInt8(samples[1] >> 8), UInt8(samples[1] & 0xFF)]
        case .rgb: trns = samples[0..<3].flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        default: break
        }
    }
    return PNGSpec(width: width, height: height, bitDepth: bitDepth, colorType: colorType, interlaced: interlaced,
                   samples: samples, palette: palette, transparency: trns)
}

let pngVariants: [PNGSpec] = {
    var specs: [PNGSpec] = []
    for depth in [1, 2, 4, 8, 16] { specs.append(makePNGSpec(.gray, bitDepth: depth)) }
    for depth in [1, 2, 4, 8] {
        specs.append(makePNGSpec(.palette, bitDepth: depth))
        specs.append(makePNGSpec(.palette, bitDepth: depth, transparency: true))
    }
    for depth in [8, 16] {
        specs.append(makePNGSpec(.gray, bitDepth: depth, transparency: true))
        specs.append(makePNGSpec(.grayAlpha, bitDepth: depth))
        specs.append(makePNGSpec(.rgb, bitDepth: depth))
        specs.append(makePNGSpec(.rgb, bitDepth: depth, transparency: true))
        specs.append(makePNGSpec(.rgba, bitDepth: depth))
    }
    // Adam7: sizes that leave some passes empty (1x1, 3x2) and one that fills every pass.
    for (color, depth) in [(PNGColorType.gray, 1), (.gray, 4), (.gray, 8), (.gray, 16), (.palette, 2),
                           (.palette, 8), (.grayAlpha, 8), (.rgb, 8), (.rgb, 16), (.rgba, 8), (.rgba, 16)] {
        specs.append(makePNGSpec(color, bitDepth: depth, width: 17, height: 11, interlaced: true))
    }
    specs.append(makePNGSpec(.rgb, bitDepth: 8, width: 1, height: 1, interlaced: true))
    specs.append(makePNGSpec(.gray, bitDepth: 2, width: 3, height: 2, interlaced: true))
    specs.append(makePNGSpec(.rgba, bitDepth: 8, width: 1, height: 1))
    return specs
}()

@Suite struct PNGDecodeTests {
    @Test(arguments: pngVariants)
    func decodesExactPixels(_ spec: PNGSpec) throws {
        let image = try Image.decode(spec.encode())
        #expect(image.width == spec.width)
        #expect(image.height == spec.height)
        #expect(image.sourceBitDepth == spec.bitDepth)
        #expect(image.pixels == spec.expectedRGB)
    }

    @Test(arguments: pngVariants)
    func headerInfoMatchesFile(_ spec: PNGSpec) throws {
        let info = try ImageInfo.read(spec.encode())
        let names: [PNGColorType: String] = [.gray: "gray", .grayAlpha: "gray+alpha", .palette: "palette",
                                             .rgb: "rgb", .rgba: "rgba"]
        #expect(info == ImageInfo(format: .png, width: spec.width, height: spec.height, bitDepth: spec.bitDepth,
                                  colorType: names[spec.colorType] ?? "?", channels: spec.colorType.channels,
                                  interlaced: spec.interlaced))
    }

    @Test func sixteenBitScalingRoundsToNearest() throws {
        let values: [UInt16] = [0, 1, 127, 128, 129, 255, 256, 32767, 32768, 32896, 65279, 65280, 65534, 65535]
        let spec = PNGSpec(width: values.count, height: 1, bitDepth: 16, colorType: .gray, interlaced: false,
                           samples: values)
        let image = try Image.decode(spec.encode())
        let reds = stride(from: 0, to: image.pixels.count, by: 3).map { image.pixels[$0] }
        #expect(reds == values.map { UInt8((Int($0) * 255 + 32767) / 65535) })
    }
}
