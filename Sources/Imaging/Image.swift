/// A decoded image: 8-bit RGB, interleaved, rows top to bottom, no padding.
///
/// Every decoder converts to this one layout so that the pipeline has a single input type.
/// `sourceBitDepth` remembers what the file held (16-bit PNGs are scaled to 8 bits here; a
/// future 16-bit path can branch on it).
public struct Image: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 3` bytes: R, G, B for each pixel.
    public var pixels: [UInt8]
    public var sourceBitDepth: Int
    /// The JPEG's EXIF orientation (2 to 8) when it asks viewers to turn or mirror the stored
    /// pixels; nil as stored. The pixels here are always as stored (`exifOrientation(jpeg:)`).
    public var exifOrientation: Int?

    public init(width: Int, height: Int, pixels: [UInt8], sourceBitDepth: Int = 8) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 3,
                     "Image: pixel buffer size does not match \(width)x\(height) RGB")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.sourceBitDepth = sourceBitDepth
    }

    /// A uniform image of one colour.
    public init(width: Int, height: Int, fill: (r: UInt8, g: UInt8, b: UInt8)) {
        var buffer = [UInt8](repeating: 0, count: width * height * 3)
        for i in stride(from: 0, to: buffer.count, by: 3) {
            buffer[i] = fill.r
            buffer[i + 1] = fill.g
            buffer[i + 2] = fill.b
        }
        self.init(width: width, height: height, pixels: buffer)
    }

    public var pixelCount: Int { width * height }

    /// The RGB triple at (x, y); for tests and tools, not for hot loops.
    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        get {
            let i = (y * width + x) * 3
            return (pixels[i], pixels[i + 1], pixels[i + 2])
        }
        set {
            let i = (y * width + x) * 3
            pixels[i] = newValue.r
            pixels[i + 1] = newValue.g
            pixels[i + 2] = newValue.b
        }
    }
}
