import Imaging

/// Fuzz targets for the image decoders.
enum ImageTargets {
    /// Small enough that a hostile header claiming the maximum cannot exhaust memory under
    /// AddressSanitizer (4 megapixels = 12 MB of RGB), large enough for every seed.
    static let maxPixels = 4_000_000

    /// Reads the header and decodes `bytes`; a successful decode must agree with the header,
    /// and every error must be a decoding error (never a file error: no file was involved).
    static func decode(_ bytes: [UInt8], expecting format: ImageFormat) {
        // The last byte picks strict or lenient JPEG handling, so both paths see the corpus.
        let strict = (bytes.last ?? 0) & 1 == 0
        let options = DecodeOptions(maxPixels: maxPixels, strictJPEG: strict)
        let header: ImageInfo?
        do {
            header = try ImageInfo.read(bytes)
        } catch {
            check(error)
            header = nil
        }
        do {
            let image = try Image.decode(bytes, options: options)
            guard let header else { FuzzInvariant.fail("decode succeeded where the header read failed") }
            if header.width != image.width || header.height != image.height {
                FuzzInvariant.fail("header says \(header.width)x\(header.height), decode gave \(image.width)x\(image.height)")
            }
            if image.pixels.count != image.width * image.height * 3 {
                FuzzInvariant.fail("pixel buffer of \(image.pixels.count) bytes for \(image.width)x\(image.height)")
            }
            if header.format != format && ImageFormat.sniff(bytes) == format {
                FuzzInvariant.fail("sniffed \(format) but header says \(header.format)")
            }
            if image.exifOrientation != header.exifOrientation || image.exifOrientation.map({ !(2...8).contains($0) }) == true {
                FuzzInvariant.fail("EXIF orientation \(String(describing: image.exifOrientation)) after the header's "
                                   + "\(String(describing: header.exifOrientation)) (expected nil or 2 ... 8)")
            }
        } catch {
            check(error)
        }
    }

    private static func check(_ error: ImageError) {
        switch error {
        case .fileNotFound, .isDirectory, .permissionDenied, .readFailed, .writeFailed, .extensionMismatch,
             .encodeFailed, .invalidArgument:
            FuzzInvariant.fail("in-memory decode threw a file or encoder error: \(error)")
        default:
            if error.description.isEmpty { FuzzInvariant.fail("empty error message") }
        }
    }
}
