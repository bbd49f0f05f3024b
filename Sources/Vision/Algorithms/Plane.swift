/// A single-channel image of 32-bit floats, row-major, no padding.
///
/// Every algorithm in this module works on planes: luminance, flattened luminance, contrast
/// maps, filter responses. Coordinates follow the labels-v1 convention (x right, y down, origin
/// at the centre of the top-left pixel).
public struct Plane: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height` samples.
    public var data: [Float]

    public init(width: Int, height: Int, repeating value: Float = 0) {
        let w = max(0, width), h = max(0, height)
        self.width = w
        self.height = h
        self.data = [Float](repeating: value, count: w * h)
    }

    /// A plane whose samples `fill` writes through a pointer to all `width * height` of them,
    /// with no zeroing pass first (a full-plane filter output). `fill` must write every one.
    init(width: Int, height: Int, filling fill: (UnsafeMutablePointer<Float>) -> Void) {
        let w = max(0, width), h = max(0, height)
        self.width = w
        self.height = h
        self.data = [Float](unsafeUninitializedCapacity: w * h) { buffer, initialized in
            if let base = buffer.baseAddress, w * h > 0 { fill(base) }
            initialized = w * h
        }
    }

    /// Wraps existing samples; returns nil when the count does not match the size.
    public init?(width: Int, height: Int, data: [Float]) {
        guard width >= 0, height >= 0, data.count == width * height else { return nil }
        self.width = width
        self.height = height
        self.data = data
    }

    public var count: Int { width * height }

    /// The sample at (x, y); for tests and tools, not for hot loops.
    public subscript(x: Int, y: Int) -> Float {
        get { data[y * width + x] }
        set { data[y * width + x] = newValue }
    }

    /// The sample at (x, y) with coordinates clamped to the plane (replicated border).
    public func clamped(_ x: Int, _ y: Int) -> Float {
        let cx = min(max(x, 0), width - 1), cy = min(max(y, 0), height - 1)
        return data[cy * width + cx]
    }

    /// Bilinear sample at a sub-pixel position, replicated border. Zero for an empty plane.
    public func bilinear(_ x: Double, _ y: Double) -> Float {
        guard width > 0, height > 0 else { return 0 }
        let fx = min(max(x, 0), Double(width - 1)), fy = min(max(y, 0), Double(height - 1))
        return data.withUnsafeBufferPointer { Plane.bilinear($0, width: width, height: height, fx, fy) }
    }

    /// `bilinear` of the samples `d` of a `width` x `height` plane at a position inside it
    /// (0 ... width - 1, 0 ... height - 1), unchecked: for loops that keep their positions
    /// inside and read many samples through one pointer.
    @inline(__always)
    static func bilinear(_ d: UnsafeBufferPointer<Float>, width: Int, height: Int, _ x: Double, _ y: Double) -> Float {
        let x0 = Int(x), y0 = Int(y)
        let x1 = min(x0 &+ 1, width &- 1), y1 = min(y0 &+ 1, height &- 1)
        let ax = Float(x - Double(x0)), ay = Float(y - Double(y0))
        let top = d[y0 &* width &+ x0] * (1 - ax) + d[y0 &* width &+ x1] * ax
        let bottom = d[y1 &* width &+ x0] * (1 - ax) + d[y1 &* width &+ x1] * ax
        return top * (1 - ay) + bottom * ay
    }

    /// Applies `transform` to every sample. (Written into a new plane: copying this one and
    /// transforming the copy in place, as copy-on-write would, moves every sample twice.)
    public func map(_ transform: (Float) -> Float) -> Plane {
        data.withUnsafeBufferPointer { d in
            Plane(width: width, height: height) { out in
                for i in d.indices { out[i] = transform(d[i]) }
            }
        }
    }

    /// Minimum and maximum sample; (0, 0) for an empty plane.
    public var range: (min: Float, max: Float) {
        guard !data.isEmpty else { return (0, 0) }
        var lo = Float.infinity, hi = -Float.infinity
        data.withUnsafeBufferPointer { buffer in
            for v in buffer {
                lo = min(lo, v)
                hi = max(hi, v)
            }
        }
        return (lo, hi)
    }
}
