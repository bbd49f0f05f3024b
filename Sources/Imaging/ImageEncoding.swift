import CCodecs

extension Image {
    /// PNG bytes: 8-bit RGB, not interlaced. `compressionLevel` is zlib's 0 (none) ... 9 (smallest).
    public func pngData(compressionLevel: Int = 6) throws(ImageError) -> [UInt8] {
        guard (0...9).contains(compressionLevel) else {
            throw .invalidArgument("PNG compression level \(compressionLevel) is outside 0...9")
        }
        let (width, height) = try dimensions(for: .png, maxSide: 0x7fff_ffff)
        return try Image.collect(format: .png) { out, size, message, capacity in
            pixels.withUnsafeBufferPointer {
                cc_png_encode_rgb8($0.baseAddress, width, height, Int32(compressionLevel), out, size, message, capacity)
            }
        }
    }

    /// JPEG bytes (baseline, YCbCr 4:2:0). `quality` is libjpeg's 1...100.
    public func jpegData(quality: Int = 90) throws(ImageError) -> [UInt8] {
        guard (1...100).contains(quality) else {
            throw .invalidArgument("JPEG quality \(quality) is outside 1...100")
        }
        let (width, height) = try dimensions(for: .jpeg, maxSide: 65_500)
        var settings = cc_jpeg_encode_options(components: 3, quality: Int32(quality), progressive: 0,
                                              colorspace: 0, adobe_marker: -1, full_chroma: 0)
        return try Image.collect(format: .jpeg) { out, size, message, capacity in
            pixels.withUnsafeBufferPointer {
                cc_jpeg_encode($0.baseAddress, width, height, &settings, out, size, message, capacity)
            }
        }
    }

    /// Writes a PNG atomically (temporary file beside `path`, then rename).
    public func writePNG(to path: String, compressionLevel: Int = 6) throws(ImageError) {
        try ImageFile.writeAtomically(pngData(compressionLevel: compressionLevel), to: path)
    }

    /// Writes a JPEG atomically (temporary file beside `path`, then rename).
    public func writeJPEG(to path: String, quality: Int = 90) throws(ImageError) {
        try ImageFile.writeAtomically(jpegData(quality: quality), to: path)
    }

    private func dimensions(for format: ImageFormat, maxSide: Int) throws(ImageError) -> (UInt32, UInt32) {
        guard width > 0, height > 0, width <= maxSide, height <= maxSide else {
            throw .invalidArgument("\(format.rawValue.uppercased()) cannot hold a \(width)x\(height) image "
                                   + "(1...\(maxSide) pixels per side)")
        }
        return (UInt32(width), UInt32(height))
    }

    /// Runs an encoder that returns a malloc'd buffer and copies it into an array.
    static func collect(
        format: ImageFormat,
        _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>,
                   UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws(ImageError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        let call = CodecCall.run { _, message, capacity in encode(&output, &size, message, capacity) }
        defer { cc_free(output) }
        if let error = call.error(format: format, maxPixels: Int.max) {
            if case .invalidArgument = error { throw error }
            throw .encodeFailed(format: format, message: call.message)
        }
        guard let output else { throw .encodeFailed(format: format, message: "encoder returned no data") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
