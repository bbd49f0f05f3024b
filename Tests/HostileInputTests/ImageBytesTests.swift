import Imaging
import Testing

/// Hostile encoded images, decoded from memory: every one gives a typed `ImageError` (or the
/// exact valid image), never a crash.
@Suite struct ImageBytesTests {
    private func failure(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions()) -> ImageError? {
        do {
            _ = try Image.decode(bytes, options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test func zeroBytes() {
        #expect(failure([]) == .emptyInput(file: nil))
        #expect(ImageError.emptyInput(file: nil).description == "empty input (0 bytes)")
    }

    @Test func unknownSignatureNamesTheBytes() {
        let gif = Array("GIF89a\u{01}\u{00}".utf8)
        let error = failure(gif)
        #expect(error == .unknownFormat(file: nil, leadingBytes: gif))
        #expect(error?.description.hasPrefix("unknown image format: first bytes are 47 49 46 38 39 61 01 00 (\"GIF89a..\")") == true)
    }

    /// Every prefix of a valid PNG: the signature cut short is not a PNG; anything longer is a
    /// truncated PNG (even when only IEND is missing, since the decoder reads to IEND).
    @Test func pngTruncatedAtEveryOffset() {
        let png = PNG.sample
        for length in 0..<png.count {
            let error = failure(Array(png.prefix(length)))
            switch length {
            case 0: #expect(error == .emptyInput(file: nil))
            case 1..<8: #expect(error == .unknownFormat(file: nil, leadingBytes: Array(png.prefix(length))), "length \(length)")
            default:
                guard case .truncated(nil, .png, let message)? = error else {
                    Issue.record("length \(length): expected truncated PNG, got \(String(describing: error))")
                    continue
                }
                #expect(!message.isEmpty)
            }
        }
        #expect((try? Image.decode(png))?.pixels == PNG.samplePixels)
    }

    @Test func pngBadHeaderCRC() {
        var png = PNG.sample
        png[29] ^= 0xFF  // last byte of the IHDR CRC
        guard case .corrupt(nil, .png, let message)? = failure(png) else {
            Issue.record("expected corrupt PNG")
            return
        }
        #expect(message.contains("CRC error"))
    }

    @Test func pngBadDataCRC() {
        var png = PNG.sample
        let iend = png.count - 12
        png[iend - 1] ^= 0x01  // last byte of the IDAT CRC
        guard case .corrupt(nil, .png, let message)? = failure(png) else {
            Issue.record("expected corrupt PNG, got \(String(describing: failure(png)))")
            return
        }
        #expect(message.contains("CRC error"))
    }

    @Test func pngDataBeforeHeader() {
        let idat = PNG.chunk("IDAT", PNG.zlibStored([0, 1, 2, 3]))
        let png = PNG.signature + idat + PNG.ihdr(width: 1, height: 1) + PNG.chunk("IEND", [])
        guard case .corrupt(nil, .png, let message)? = failure(png) else {
            Issue.record("expected corrupt PNG, got \(String(describing: failure(png)))")
            return
        }
        #expect(message.contains("IHDR"))
    }

    @Test func pngPaletteAfterData() {
        // A palette image whose PLTE comes after IDAT.
        let idat = PNG.chunk("IDAT", PNG.zlibStored([0, 0]))
        let png = PNG.signature + PNG.ihdr(width: 1, height: 1, colorType: 3) + idat
            + PNG.chunk("PLTE", [1, 2, 3]) + PNG.chunk("IEND", [])
        guard case .corrupt(nil, .png, let message)? = failure(png) else {
            Issue.record("expected corrupt PNG, got \(String(describing: failure(png)))")
            return
        }
        #expect(message.contains("PLTE"))
    }

    @Test func pngDecompressionBombHeader() {
        // 74 bytes claiming 100000 x 100000: refused from the header, before any allocation.
        let png = PNG.signature + PNG.ihdr(width: 100_000, height: 100_000) + PNG.chunk("IDAT", PNG.zlibStored([0]))
            + PNG.chunk("IEND", [])
        #expect(failure(png) == .tooLarge(file: nil, format: .png, width: 100_000, height: 100_000, maxPixels: 100_000_000))
        #expect(failure(png)?.description == "PNG is 100000x100000 (10000000000 pixels), over the limit of 100000000 pixels")
    }

    @Test func pngLargestDimensionsDoNotOverflow() {
        let png = PNG.signature + PNG.ihdr(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF) + PNG.chunk("IDAT", PNG.zlibStored([0]))
            + PNG.chunk("IEND", [])
        #expect(failure(png) == .tooLarge(file: nil, format: .png, width: 0x7FFF_FFFF, height: 0x7FFF_FFFF,
                                          maxPixels: 100_000_000))
    }

    @Test func pngZeroByZero() {
        let png = PNG.signature + PNG.ihdr(width: 0, height: 0) + PNG.chunk("IEND", [])
        #expect(failure(png) == .corrupt(file: nil, format: .png, message: "Invalid IHDR data"))
    }

    @Test func pngOneByOne() throws {
        let image = try Image.decode(PNG.rgb8(width: 1, height: 1, pixels: [10, 20, 30]))
        #expect(image.width == 1 && image.height == 1 && image.pixels == [10, 20, 30])
    }

    @Test func pngSixteenBitScaledToEight() throws {
        let image = try Image.decode(PNG.rgb16(width: 2, height: 1, samples: [0xFFFF, 0x8080, 0x0000, 0x0101, 0x7F7F, 0xFEFE]))
        #expect(image.pixels == [255, 128, 0, 1, 127, 254])
        #expect(image.sourceBitDepth == 16)
        #expect(try ImageInfo.read(PNG.rgb16(width: 2, height: 1, samples: [UInt16](repeating: 0, count: 6))).bitDepth == 16)
    }

    /// A PNG whose tEXt chunk claims 2 GB (found by fuzzing: a 111-byte file): libpng
    /// allocated the claimed length before reading it; now no chunk may exceed the input.
    @Test func pngChunkClaimingTwoGigabytes() {
        var png = PNG.signature + PNG.ihdr(width: 1, height: 1)
        png += PNG.bigEndian(0x7E00_0011) + Array("tEXt".utf8) + Array("Comment\u{0}fuzz".utf8)
        #expect(png.count < 120)
        let start = monotonicSeconds()
        let error = failure(png)
        #expect(monotonicSeconds() - start < 0.5)
        #expect(error == .truncated(file: nil, format: .png, message: "file truncated: chunk tEXt at byte 33 claims 2113929233 bytes, but only 12 remain"))
    }

    @Test func pixelLimitIsApplied() {
        #expect(failure(PNG.sample, options: DecodeOptions(maxPixels: 11))
            == .tooLarge(file: nil, format: .png, width: 4, height: 3, maxPixels: 11))
        #expect(failure(JPEG.sample, options: DecodeOptions(maxPixels: 127))
            == .tooLarge(file: nil, format: .jpeg, width: 16, height: 8, maxPixels: 127))
    }

    @Test func jpegTruncatedAtManyOffsets() {
        let jpeg = JPEG.sample
        #expect(jpeg.count > 100)
        for length in stride(from: 3, to: jpeg.count - 2, by: 7) {
            let error = failure(Array(jpeg.prefix(length)))
            guard case .truncated(nil, .jpeg, _)? = error else {
                Issue.record("length \(length): expected truncated JPEG, got \(String(describing: error))")
                continue
            }
        }
        #expect(failure(Array(jpeg.prefix(2))) == .unknownFormat(file: nil, leadingBytes: [0xFF, 0xD8]))
    }

    @Test func jpegMaximumWidthHeader() {
        // 65500 x 65500 is JPEG's largest; refused by the pixel limit from the header alone.
        let header = JPEG.claiming(width: 65500, height: 65500)
        #expect(failure(header) == .tooLarge(file: nil, format: .jpeg, width: 65500, height: 65500, maxPixels: 100_000_000))
        // 65500 x 1 is within the limit: the header reads; the scan data, far too short for
        // that width, ends at EOI, which libjpeg calls a premature end of the data segment.
        let wide = JPEG.claiming(width: 65500, height: 1)
        #expect((try? ImageInfo.read(wide))?.width == 65500)
        #expect(failure(wide) == .corrupt(file: nil, format: .jpeg, message: "Corrupt JPEG data: premature end of data segment"))
    }

    @Test func jpegZeroHeight() {
        let header = JPEG.claiming(width: 16, height: 0)
        guard case .corrupt(nil, .jpeg, let message)? = failure(header) else {
            Issue.record("expected corrupt JPEG, got \(String(describing: failure(header)))")
            return
        }
        #expect(message.lowercased().contains("empty") || message.lowercased().contains("zero"))
    }

    @Test func jpegCMYKIsConverted() throws {
        // Adobe CMYK stores inverted ink; a uniform "255" sample is no ink, i.e. white.
        let cmyk = JPEG.encode([UInt8](repeating: 255, count: 8 * 8 * 4), width: 8, height: 8, components: 4)
        #expect(try ImageInfo.read(cmyk).colorType == "cmyk")
        let image = try Image.decode(cmyk)
        #expect(image.width == 8 && image.pixels.allSatisfy { $0 >= 250 })
    }

    @Test func jpegGreyscaleOneByOne() throws {
        let grey = JPEG.encode([77], width: 1, height: 1, components: 1)
        let image = try Image.decode(grey)
        #expect(image.width == 1 && image.height == 1)
        #expect(image.pixels.allSatisfy { abs(Int($0) - 77) <= 1 })
    }

    @Test func jpegCorruptMarker() {
        var jpeg = JPEG.sample
        // Replace the SOF0 marker type with an undefined one (0xFF 0x02... reserved).
        if let index = (2..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) {
            jpeg[index + 1] = 0x02
        }
        guard case .corrupt(nil, .jpeg, _)? = failure(jpeg) else {
            Issue.record("expected corrupt JPEG, got \(String(describing: failure(jpeg)))")
            return
        }
    }

    @Test func trailingBytesAfterTheImageAreIgnored() throws {
        #expect(try Image.decode(PNG.sample + [1, 2, 3]).pixels == PNG.samplePixels)
        #expect(try Image.decode(JPEG.sample + [0, 0, 0]).width == 16)
    }
}

/// Decompression bombs in the compressed data itself.
@Suite struct DeflateBombTests {
    /// The generator is right: a small bomb inflates to the pixels it claims.
    @Test func bombInPixelDataIsBoundedByTheHeader() throws {
        // IDAT inflating to 1 + 258 * 40 zero bytes for a 1-row image that needs 1 + 3 * 3440
        // bytes: the row is decoded from the first bytes, the excess is an error of the stream
        // (libpng: "Too much image data" or "Extra compressed data"), never a larger buffer.
        let bomb = DeflateBomb.zeros(runs: 40)
        let png = PNG.signature + PNG.ihdr(width: 3440, height: 1) + PNG.chunk("IDAT", bomb.stream) + PNG.chunk("IEND", [])
        do {
            let image = try Image.decode(png)
            #expect(image.width == 3440 && image.pixels.allSatisfy { $0 == 0 })
        } catch {
            guard case .corrupt(nil, .png, _) = error else {
                Issue.record("expected zero pixels or a corrupt PNG, got \(error)")
                return
            }
        }
    }

    /// A 1 GB zTXt text chunk in a 1x1 PNG: libpng would allocate and inflate all of it while
    /// reading the header. With the chunk size capped the text is skipped (a benign error for
    /// an ancillary chunk) and the image decodes at once.
    @Test func gigabyteTextChunkIsSkippedQuickly() throws {
        let bomb = DeflateBomb.zeros(runs: 4_200_000)
        #expect(bomb.inflatedSize > 1_000_000_000)
        let ztxt = PNG.chunk("zTXt", Array("Comment".utf8) + [0, 0] + bomb.stream)
        let png = PNG.signature + PNG.ihdr(width: 1, height: 1) + ztxt
            + PNG.chunk("IDAT", PNG.zlibStored([0, 9, 8, 7])) + PNG.chunk("IEND", [])
        let start = monotonicSeconds()
        let image = try Image.decode(png)
        #expect(image.pixels == [9, 8, 7])
        #expect(monotonicSeconds() - start < 1.5)
    }
}

/// CPU bombs: small files that cost far more time than their size suggests.
@Suite struct CPUBombTests {
    @Test(arguments: [true, false]) func progressiveJPEGWithThousandsOfScans(strict: Bool) {
        let jpeg = JPEG.scanBomb(width: 1024, height: 1024, repeats: 3000)
        #expect(jpeg.count < 200_000)
        let start = monotonicSeconds()
        do {
            _ = try Image.decode(jpeg, options: DecodeOptions(strictJPEG: strict))
            Issue.record("decoded a JPEG with 3000+ scans")
        } catch {
            #expect(error == .corrupt(file: nil, format: .jpeg, message: "more than 200 scans in a progressive JPEG"))
        }
        #expect(monotonicSeconds() - start < 2)
    }
}
