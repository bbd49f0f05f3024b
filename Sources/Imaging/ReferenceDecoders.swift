import CCodecs

/// The codec libraries called as plainly as possible (libpng's simplified API, a bare libjpeg
/// scanline loop), for benchmarking what the `Image.decode` path costs on top of them.
/// Not for production use: no pixel limit, no strict mode, no error messages.
public enum ReferenceDecoders {
    /// Decodes a PNG to RGB via `png_image_*`; nil on any failure.
    public static func decodePNG(_ bytes: [UInt8]) -> Image? {
        run(bytes, cc_reference_png_decode)
    }

    /// Decodes a JPEG to RGB via a plain libjpeg loop; nil on any failure.
    public static func decodeJPEG(_ bytes: [UInt8]) -> Image? {
        run(bytes, cc_reference_jpeg_decode)
    }

    private static func run(
        _ bytes: [UInt8],
        _ decode: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                   UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<UInt32>) -> Int32
    ) -> Image? {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var width: UInt32 = 0
        var height: UInt32 = 0
        let status = bytes.withUnsafeBufferPointer { decode($0.baseAddress, $0.count, &output, &width, &height) }
        defer { cc_free(output) }
        guard status == CC_OK, let output else { return nil }
        let count = Int(width) * Int(height) * 3
        return Image(width: Int(width), height: Int(height),
                     pixels: Array(UnsafeBufferPointer(start: output, count: count)))
    }

    /// Decodes into a malloc'd buffer and frees it, returning only success: the timing loop's
    /// form, so the reference does no more work than the C library itself.
    public static func timePNG(_ bytes: [UInt8]) -> Bool { bare(bytes, cc_reference_png_decode) }

    /// As `timePNG`, for JPEG.
    public static func timeJPEG(_ bytes: [UInt8]) -> Bool { bare(bytes, cc_reference_jpeg_decode) }

    private static func bare(
        _ bytes: [UInt8],
        _ decode: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                   UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<UInt32>) -> Int32
    ) -> Bool {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var width: UInt32 = 0
        var height: UInt32 = 0
        let status = bytes.withUnsafeBufferPointer { decode($0.baseAddress, $0.count, &output, &width, &height) }
        cc_free(output)
        return status == CC_OK
    }
}
