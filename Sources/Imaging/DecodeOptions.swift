/// Safety settings for decoding untrusted files.
public struct DecodeOptions: Sendable, Equatable {
    /// Largest accepted width * height, checked after the header is read and before any pixel
    /// buffer is allocated. Default 100 megapixels (300 MB of RGB).
    public var maxPixels: Int
    /// When true, JPEG scan data that ends early or is corrupt (libjpeg only warns and fills
    /// grey) is an error.
    public var strictJPEG: Bool

    public init(maxPixels: Int = 100_000_000, strictJPEG: Bool = true) {
        self.maxPixels = maxPixels
        self.strictJPEG = strictJPEG
    }
}
