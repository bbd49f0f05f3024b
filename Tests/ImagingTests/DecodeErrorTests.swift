import Testing
@testable import Imaging

/// Small valid files to damage.
let smallPNG = makePNGSpec(.rgb, bitDepth: 8, width: 9, height: 7).encode()
let smallInterlacedPNG = makePNGSpec(.palette, bitDepth: 4, width: 9, height: 7, interlaced: true).encode()
let smallJPEG: [UInt8] = (try? encodeJPEG(gradientRGB(width: 24, height: 16, seed: 20), width: 24, height: 16,
                                           components: 3, quality: 90, fullChroma: false)) ?? []
let smallProgressiveJPEG: [UInt8] = (try? encodeJPEG(gradientRGB(width: 24, height: 16, seed: 21), width: 24,
                                                      height: 16, components: 3, quality: 90,
                                                      progressive: true)) ?? []

func decodeError(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions()) -> ImageError? {
    do {
        _ = try Image.decode(bytes, options: options)
        return nil
    } catch {
        return error
    }
}

@Suite struct DecodeErrorTests {
    @Test func zeroBytesIsEmptyInput() {
        #expect(decodeError([]) == .emptyInput(file: nil))
        #expect(throws: ImageError.emptyInput(file: nil)) { try ImageInfo.read([]) }
    }

    @Test func unknownFormatShowsTheLeadingBytes() {
        let gif = Array("GIF89a\u{01}\u{00}rest".utf8)
        let error = decodeError(gif)
        #expect(error == .unknownFormat(file: nil, leadingBytes: Array(gif.prefix(8))))
        #expect(error?.description.contains("47 49 46 38 39 61 01 00") == true)
        #expect(error?.description.contains("GIF89a") == true)
    }

    @Test(arguments: [smallPNG, smallInterlacedPNG])
    func pngTruncatedAtEveryOffsetIsTruncated(_ file: [UInt8]) {
        for length in 1..<file.count {
            let error = decodeError(Array(file.prefix(length)))
            if length < 8 {
                #expect(error == .unknownFormat(file: nil, leadingBytes: Array(file.prefix(length))))
            } else {
                guard case .truncated(nil, .png, let message) = error else {
                    Issue.record("cut at \(length) of \(file.count): \(String(describing: error))")
                    continue
                }
                #expect(message.contains("truncated"))
            }
        }
    }

    @Test(arguments: [smallJPEG, smallProgressiveJPEG])
    func jpegTruncatedAtEveryOffsetIsTruncatedInStrictMode(_ file: [UInt8]) {
        #expect(file.count > 300)
        for length in 3..<file.count {
            let error = decodeError(Array(file.prefix(length)))
            guard case .truncated(nil, .jpeg, _) = error else {
                Issue.record("cut at \(length) of \(file.count): \(String(describing: error))")
                continue
            }
        }
    }

    @Test(arguments: [smallJPEG, smallProgressiveJPEG])
    func jpegTruncatedInLenientModeDecodesOrIsTruncated(_ file: [UInt8]) {
        for length in 3..<file.count {
            let error = decodeError(Array(file.prefix(length)), options: DecodeOptions(strictJPEG: false))
            switch error {
            case nil, .truncated(nil, .jpeg, _): break
            default: Issue.record("cut at \(length) of \(file.count): \(String(describing: error))")
            }
        }
    }

    @Test func baselineJPEGCutInsideScanDataDecodesInLenientMode() throws {
        // Once the headers are complete libjpeg fills the missing blocks grey.
        let sos = try #require(smallJPEG.indices.dropLast().first { smallJPEG[$0] == 0xFF && smallJPEG[$0 + 1] == 0xDA })
        let scanStart = sos + 2 + (Int(smallJPEG[sos + 2]) << 8 | Int(smallJPEG[sos + 3]))
        for length in (scanStart + 1)..<smallJPEG.count {
            let image = try Image.decode(Array(smallJPEG.prefix(length)), options: DecodeOptions(strictJPEG: false))
            #expect(image.width == 24 && image.height == 16)
        }
    }

    @Test func jpegWithTruncatedScanDataDecodesWhenNotStrict() throws {
        // libjpeg fills the missing blocks; the lenient mode accepts that.
        let cut = Array(smallJPEG.prefix(smallJPEG.count - 40))
        let lenient = DecodeOptions(strictJPEG: false)
        let image = try Image.decode(cut, options: lenient)
        #expect(image.width == 24 && image.height == 16)
        guard case .truncated(_, .jpeg, let message) = decodeError(cut) else {
            Issue.record("strict mode accepted truncated scan data")
            return
        }
        #expect(message.contains("Premature end of JPEG file"))
    }

    @Test func pngWithBadCRCIsCorrupt() {
        var header = smallPNG
        header[29] ^= 0xFF  // last CRC byte of IHDR (8 signature + 8 chunk head + 13 data)
        guard case .corrupt(nil, .png, let message) = decodeError(header) else {
            Issue.record("bad IHDR CRC: \(String(describing: decodeError(header)))")
            return
        }
        #expect(message.contains("CRC"))

        var data = smallPNG
        data[data.count - 13] ^= 0x01  // last CRC byte of IDAT, just before IEND
        guard case .corrupt(nil, .png, let idatMessage) = decodeError(data) else {
            Issue.record("bad IDAT CRC: \(String(describing: decodeError(data)))")
            return
        }
        #expect(idatMessage.contains("CRC"))
    }

    @Test func pngWithGarbageImageDataIsCorrupt() {
        var random = SeededGenerator(state: 30)
        let garbage = (0..<200).map { _ in UInt8(random.below(256)) }
        var file = Array(smallPNG.prefix(33))  // signature + IHDR
        file += pngChunk("IDAT", garbage) + pngChunk("IEND", [])
        guard case .corrupt(nil, .png, _) = decodeError(file) else {
            Issue.record("garbage IDAT: \(String(describing: decodeError(file)))")
            return
        }
    }

    @Test func jpegWithGarbageAfterSOIIsCorrupt() {
        var random = SeededGenerator(state: 31)
        let file: [UInt8] = [0xFF, 0xD8, 0xFF, 0x01] + (0..<300).map { _ in UInt8(random.below(256)) }
        guard case .corrupt(nil, .jpeg, let message) = decodeError(file) else {
            Issue.record("garbage JPEG: \(String(describing: decodeError(file)))")
            return
        }
        #expect(!message.isEmpty)
    }

    @Test func hugePNGHeaderIsRejectedBeforeAllocating() throws {
        // A complete, tiny PNG claiming 100000 x 100000 pixels (30 GB of RGB).
        var ihdr = bigEndian32(100_000) + bigEndian32(100_000)
        ihdr += [8, 2, 0, 0, 0]
        let file = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr)
            + pngChunk("IDAT", zlibStored([0, 0, 0, 0])) + pngChunk("IEND", [])
        #expect(file.count < 80)
        #expect(try ImageInfo.read(file).width == 100_000)
        let error = decodeError(file)
        #expect(error == .tooLarge(file: nil, format: .png, width: 100_000, height: 100_000, maxPixels: 100_000_000))
        #expect(error?.description.contains("100000x100000") == true)
    }

    @Test func hugeJPEGHeaderIsRejectedBeforeAllocating() throws {
        var file = smallJPEG
        let sof = try #require(file.indices.dropLast().first { file[$0] == 0xFF && file[$0 + 1] == 0xC0 })
        // SOF0: marker, length (2), precision (1), height (2), width (2).
        file[sof + 5] = 0xFF; file[sof + 6] = 0xDC
        file[sof + 7] = 0xFF; file[sof + 8] = 0xDC
        #expect(try ImageInfo.read(file).height == 65_500)
        #expect(decodeError(file) == .tooLarge(file: nil, format: .jpeg, width: 65_500, height: 65_500,
                                               maxPixels: 100_000_000))
    }

    @Test func twelveBitJPEGIsUnsupportedNotCorrupt() throws {
        // The same file claiming 12-bit samples (SOF precision 12): valid JPEG that this
        // libjpeg-turbo build (8-bit samples only) cannot decode.
        var file = smallJPEG
        let sof = try #require(file.indices.dropLast().first { file[$0] == 0xFF && file[$0 + 1] == 0xC0 })
        file[sof + 4] = 12
        guard case .unsupported(nil, .jpeg, let message) = decodeError(file) else {
            Issue.record("12-bit JPEG: \(String(describing: decodeError(file)))")
            return
        }
        #expect(message.contains("12"))
    }

    @Test func pixelLimitIsConfigurable() throws {
        let limit = DecodeOptions(maxPixels: 62)  // the PNG is 9 x 7 = 63 pixels
        #expect(decodeError(smallPNG, options: limit) == .tooLarge(file: nil, format: .png, width: 9, height: 7,
                                                                   maxPixels: 62))
        #expect(decodeError(smallJPEG, options: DecodeOptions(maxPixels: 383)) ==
                .tooLarge(file: nil, format: .jpeg, width: 24, height: 16, maxPixels: 383))
        #expect(try Image.decode(smallPNG, options: DecodeOptions(maxPixels: 63)).pixelCount == 63)
    }
}
