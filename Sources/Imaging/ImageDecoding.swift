import CCodecs

extension Image {
    /// Decodes a PNG or JPEG held in memory to 8-bit RGB.
    public static func decode(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions()) throws(ImageError) -> Image {
        try bytes.withUnsafeBytes { decode(raw: $0, options: options) }.get()
    }

    /// Decodes a PNG or JPEG file (opened read-only). A .png/.jpg/.jpeg extension, any case,
    /// must match the contents; errors name the file.
    public static func decode(file path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> Image {
        let bytes = try ImageFile.readAll(path)
        do {
            if let format = ImageFormat.sniff(bytes) {
                try ImageFile.checkExtension(of: path, against: format)
            }
            return try decode(bytes, options: options)
        } catch {
            throw error.naming(file: path)
        }
    }

    /// The decoder proper: sniff, read the header, check the limit, then decode straight into
    /// the array's storage.
    static func decode(raw bytes: UnsafeRawBufferPointer, options: DecodeOptions) -> Result<Image, ImageError> {
        let info: ImageInfo
        switch ImageInfo.read(raw: bytes) {
        case .success(let header): info = header
        case .failure(let error): return .failure(error)
        }
        let limit = max(options.maxPixels, 0)
        let (pixelCount, overflow) = info.width.multipliedReportingOverflow(by: info.height)
        let (byteCount, overflow3) = pixelCount.multipliedReportingOverflow(by: 3)
        if overflow || overflow3 || pixelCount > limit {
            return .failure(.tooLarge(file: nil, format: info.format, width: info.width, height: info.height,
                                      maxPixels: limit))
        }
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var call = CodecCall(status: 0, info: cc_info(), message: "")
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            call = CodecCall.run { cInfo, message, capacity in
                switch info.format {
                case .png:
                    return cc_png_decode_rgb8(base, bytes.count, UInt64(limit), buffer.baseAddress, byteCount,
                                              cInfo, message, capacity)
                case .jpeg:
                    return cc_jpeg_decode_rgb8(base, bytes.count, UInt64(limit), options.strictJPEG ? 1 : 0,
                                               buffer.baseAddress, byteCount, cInfo, message, capacity)
                }
            }
            initialized = call.status == CC_OK ? byteCount : 0
        }
        if let error = call.error(format: info.format, maxPixels: limit) { return .failure(error) }
        var image = Image(width: info.width, height: info.height, pixels: pixels, sourceBitDepth: info.bitDepth)
        image.exifOrientation = info.exifOrientation
        return .success(image)
    }
}
