/// Image pixels against working pixels: working pixel i covers image pixels s i ... s i + s - 1
/// (`Frame.scale` = s), so its centre is image pixel s i + (s - 1) / 2. The one place that
/// convention is written; every conversion between the two goes through it.
struct WorkingScale {
    /// Image pixels per working pixel.
    let factor: Double
    /// The image coordinate of working coordinate 0.
    let shift: Double

    init(_ scale: Int) {
        factor = Double(scale)
        shift = (factor - 1) / 2
    }

    /// An image coordinate (x or y) on the working planes.
    @inline(__always) func toWorking(_ v: Double) -> Double { (v - shift) / factor }

    /// A working coordinate (x or y) in image pixels.
    @inline(__always) func toImage(_ v: Double) -> Double { v * factor + shift }
}
