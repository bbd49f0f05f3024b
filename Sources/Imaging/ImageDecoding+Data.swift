#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Image {
    /// Decodes a PNG or JPEG held in a `Data` (no copy of the encoded bytes).
    public static func decode(_ data: Data, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> Image {
        try data.withUnsafeBytes { decode(raw: $0, options: options) }.get()
    }
}

extension ImageInfo {
    /// Reads the header of an encoded image held in a `Data`.
    public static func read(_ data: Data) throws(ImageError) -> ImageInfo {
        try data.withUnsafeBytes { read(raw: $0) }.get()
    }
}
