import CCodecs
import Testing
@testable import Imaging

@Suite struct JPEGDecodeTests {
    let width = 24, height = 16

    @Test func baselineRGBIsCloseToSource() throws {
        let source = gradientRGB(width: width, height: height, seed: 3)
        let image = try Image.decode(encodeJPEG(source, width: width, height: height, components: 3))
        #expect(image.width == width && image.height == height)
        let diff = differences(image.pixels, source)
        #expect(diff.max <= 6 && diff.mean < 1.5, "max \(diff.max), mean \(diff.mean)")
        let info = try ImageInfo.read(encodeJPEG(source, width: width, height: height, components: 3))
        #expect(info == ImageInfo(format: .jpeg, width: width, height: height, bitDepth: 8, colorType: "ycbcr",
                                  channels: 3, interlaced: false))
    }

    @Test func subsampledQuality90IsCloseToSource() throws {
        let source = gradientRGB(width: 33, height: 17, seed: 4)
        let bytes = try encodeJPEG(source, width: 33, height: 17, components: 3, quality: 90, fullChroma: false)
        let diff = differences(try Image.decode(bytes).pixels, source)
        #expect(diff.max <= 24 && diff.mean < 4, "max \(diff.max), mean \(diff.mean)")
    }

    @Test func progressiveDecodesToTheSamePixelsAsBaseline() throws {
        // Progressive scans carry the same quantised coefficients, so the pixels are identical.
        let source = gradientRGB(width: width, height: height, seed: 5)
        for fullChroma in [true, false] {
            let baseline = try encodeJPEG(source, width: width, height: height, components: 3, quality: 85,
                                          fullChroma: fullChroma)
            let progressive = try encodeJPEG(source, width: width, height: height, components: 3, quality: 85,
                                             progressive: true, fullChroma: fullChroma)
            #expect(baseline != progressive)
            #expect(try ImageInfo.read(progressive).interlaced)
            #expect(try Image.decode(progressive).pixels == Image.decode(baseline).pixels)
        }
    }

    @Test func grayscaleBlocksDecodeExactlyToGreyRGB() throws {
        let source = blockSamples(width: width, height: height, components: 1, seed: 6)
        for progressive in [false, true] {
            let bytes = try encodeJPEG(source, width: width, height: height, components: 1, progressive: progressive)
            let info = try ImageInfo.read(bytes)
            #expect(info.colorType == "gray" && info.channels == 1 && info.interlaced == progressive)
            #expect(try Image.decode(bytes).pixels == source.flatMap { [$0, $0, $0] })
        }
    }

    @Test func rgbStoredWithoutYCbCrBlocksDecodeExactly() throws {
        let source = blockSamples(width: width, height: height, components: 3, seed: 7)
        let bytes = try encodeJPEG(source, width: width, height: height, components: 3,
                                   colorspace: Int32(CC_COLOR_RGB))
        #expect(try ImageInfo.read(bytes).colorType == "rgb")
        #expect(try Image.decode(bytes).pixels == source)
    }

    @Test func adobeCMYKIsInvertedAndConvertedExactly() throws {
        // Adobe (Photoshop) CMYK stores 255 - ink; libjpeg writes the Adobe marker for CMYK.
        let stored = blockSamples(width: width, height: height, components: 4, seed: 8)
        let bytes = try encodeJPEG(stored, width: width, height: height, components: 4, adobeMarker: 1)
        let info = try ImageInfo.read(bytes)
        #expect(info.colorType == "cmyk" && info.channels == 4)
        let expected = cmykToRGB(stored, inverted: true)
        #expect(try Image.decode(bytes).pixels == expected)
    }

    @Test func plainCMYKWithoutAdobeMarkerIsInkAmounts() throws {
        let ink = blockSamples(width: width, height: height, components: 4, seed: 9)
        let bytes = try encodeJPEG(ink, width: width, height: height, components: 4, adobeMarker: 0)
        let expected = cmykToRGB(ink, inverted: false)
        #expect(try Image.decode(bytes).pixels == expected)
    }

    @Test func ycckIsConvertedLikeAdobeCMYK() throws {
        let stored = blockSamples(width: width, height: height, components: 4, seed: 10)
        for progressive in [false, true] {
            let bytes = try encodeJPEG(stored, width: width, height: height, components: 4, progressive: progressive,
                                       colorspace: Int32(CC_COLOR_YCCK))
            #expect(try ImageInfo.read(bytes).colorType == "ycck")
            let diff = differences(try Image.decode(bytes).pixels, cmykToRGB(stored, inverted: true))
            #expect(diff.max <= 3, "YCC rounding only; max \(diff.max)")
        }
    }

    @Test func publicEncoderRoundTrips() throws {
        let source = Image(width: 40, height: 30, pixels: gradientRGB(width: 40, height: 30, seed: 11))
        let bytes = try source.jpegData(quality: 95)
        #expect(ImageFormat.sniff(bytes) == .jpeg)
        let diff = differences(try Image.decode(bytes).pixels, source.pixels)
        #expect(diff.max <= 16 && diff.mean < 2.5, "max \(diff.max), mean \(diff.mean)")
        #expect(throws: ImageError.invalidArgument("JPEG quality 0 is outside 1...100")) {
            try source.jpegData(quality: 0)
        }
    }
}
