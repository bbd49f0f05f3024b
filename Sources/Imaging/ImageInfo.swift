import CCodecs

/// What an image file's header says, read without decoding pixels.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// Bits per sample as stored: PNG 1, 2, 4, 8 or 16; JPEG data precision (8).
    public var bitDepth: Int
    /// Stored colour model: "gray", "gray+alpha", "palette", "rgb", "rgba" (PNG);
    /// "gray", "ycbcr", "rgb", "cmyk", "ycck" (JPEG).
    public var colorType: String
    /// Samples per pixel as stored (palette: 1).
    public var channels: Int
    /// Adam7 interlaced PNG or progressive JPEG.
    public var interlaced: Bool
    /// A JPEG's EXIF orientation when it is not 1 (as stored): viewers turn or mirror the
    /// pixels, cellqa does not (`exifOrientation(jpeg:)`).
    public var exifOrientation: Int?

    public init(format: ImageFormat, width: Int, height: Int, bitDepth: Int, colorType: String,
                channels: Int, interlaced: Bool) {
        self.format = format
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.channels = channels
        self.interlaced = interlaced
    }

    init(_ info: cc_info, format: ImageFormat) {
        self.init(format: format, width: Int(info.width), height: Int(info.height),
                  bitDepth: Int(info.bit_depth), colorType: ImageInfo.colorName(info.color),
                  channels: Int(info.channels), interlaced: info.interlaced != 0)
    }

    static func colorName(_ color: Int32) -> String {
        switch Int(color) {
        case Int(CC_COLOR_GRAY): return "gray"
        case Int(CC_COLOR_GRAY_ALPHA): return "gray+alpha"
        case Int(CC_COLOR_PALETTE): return "palette"
        case Int(CC_COLOR_RGB): return "rgb"
        case Int(CC_COLOR_RGBA): return "rgba"
        case Int(CC_COLOR_YCBCR): return "ycbcr"
        case Int(CC_COLOR_CMYK): return "cmyk"
        case Int(CC_COLOR_YCCK): return "ycck"
        default: return "unknown"
        }
    }

    /// Reads the header of an encoded image.
    public static func read(_ bytes: [UInt8]) throws(ImageError) -> ImageInfo {
        try bytes.withUnsafeBytes { read(raw: $0) }.get()
    }

    /// Reads the header of an image file (read-only; only the leading part of the file is read
    /// unless the header extends further). Checks a .png/.jpg/.jpeg extension against the
    /// contents.
    public static func read(file path: String) throws(ImageError) -> ImageInfo {
        let prefixLength = 256 * 1024
        let file = try ImageFile.open(path)
        defer { file.close() }
        var bytes = try file.read(upTo: prefixLength)
        do {
            return try check(read: bytes, path: path)
        } catch .truncated(_, _, _) where bytes.count == prefixLength {
            // Long metadata before the first scan or IDAT: read everything.
            bytes += try file.read(upTo: Int.max)
            return try check(read: bytes, path: path)
        }
    }

    private static func check(read bytes: [UInt8], path: String) throws(ImageError) -> ImageInfo {
        do {
            let info = try read(bytes)
            try ImageFile.checkExtension(of: path, against: info.format)
            return info
        } catch {
            throw error.naming(file: path)
        }
    }

    static func read(raw bytes: UnsafeRawBufferPointer) -> Result<ImageInfo, ImageError> {
        let format: ImageFormat
        switch sniffFormat(raw: bytes) {
        case .success(let sniffed): format = sniffed
        case .failure(let error): return .failure(error)
        }
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let call = CodecCall.run { info, message, capacity in
            switch format {
            case .png: return cc_png_read_info(base, bytes.count, info, message, capacity)
            case .jpeg: return cc_jpeg_read_info(base, bytes.count, info, message, capacity)
            }
        }
        if let error = call.error(format: format, maxPixels: Int.max) { return .failure(error) }
        var info = ImageInfo(call.info, format: format)
        if format == .jpeg, let orientation = Imaging.exifOrientation(jpeg: bytes), orientation != 1 {
            info.exifOrientation = orientation
        }
        return .success(info)
    }

    /// Empty input and unknown signatures, shared by header reading and decoding.
    static func sniffFormat(raw bytes: UnsafeRawBufferPointer) -> Result<ImageFormat, ImageError> {
        if bytes.isEmpty { return .failure(.emptyInput(file: nil)) }
        guard let format = ImageFormat.sniff(bytes) else {
            return .failure(.unknownFormat(file: nil, leadingBytes: Array(bytes.prefix(8))))
        }
        return .success(format)
    }
}
