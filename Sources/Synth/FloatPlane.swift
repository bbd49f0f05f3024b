import Foundation

/// A single-channel Float image, rows top to bottom without padding.
struct FloatPlane {
    let width: Int
    let height: Int
    var data: [Float]

    init(width: Int, height: Int, value: Float) {
        self.width = width
        self.height = height
        data = [Float](repeating: value, count: width * height)
    }
}

/// Separable Gaussian blur of a plane in place.
///
/// - Parameters:
///   - plane: the plane to blur.
///   - sigma: standard deviation in pixels; below 0.3 nothing is done (the kernel would be
///     a single tap). The kernel is truncated at 3 sigma and normalised; borders clamp.
func gaussianBlur(_ plane: inout FloatPlane, sigma: Double) {
    guard sigma >= 0.3 else { return }
    let radius = Int((3 * sigma).rounded(.up))
    var kernel = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
    let sum = kernel.reduce(0, +)
    kernel = kernel.map { $0 / sum }
    let width = plane.width
    let height = plane.height
    // Horizontal pass through one padded row buffer (taps outer, pixels inner, no branches);
    // vertical pass row by row from a copy of the plane, so both passes read contiguously.
    var padded = [Float](repeating: 0, count: width + 2 * radius)
    var line = [Float](repeating: 0, count: width)
    var copy = [Float](repeating: 0, count: width * height)
    do {
        plane.data.withUnsafeMutableBufferPointer { img in
            padded.withUnsafeMutableBufferPointer { pad in
                line.withUnsafeMutableBufferPointer { out in
                    kernel.withUnsafeBufferPointer { k in
                        for y in 0..<height {
                            let row = y &* width
                            for x in 0..<width { pad[x &+ radius] = img[row &+ x] }
                            for i in 0..<radius {
                                pad[i] = img[row]
                                pad[radius &+ width &+ i] = img[row &+ width &- 1]
                            }
                            convolve(pad, k, count: width, into: out)
                            for x in 0..<width { img[row &+ x] = out[x] }
                        }
                    }
                }
            }
            copy.withUnsafeMutableBufferPointer { src in
                kernel.withUnsafeBufferPointer { k in
                    for i in 0..<(width &* height) { src[i] = img[i] }
                    for y in 0..<height {
                        let row = y &* width
                        for x in 0..<width { img[row &+ x] = 0 }
                        for j in 0..<k.count {
                            let sy = min(max(y &+ j &- radius, 0), height &- 1)
                            let srcRow = sy &* width
                            let w = k[j]
                            for x in 0..<width { img[row &+ x] += w * src[srcRow &+ x] }
                        }
                    }
                }
            }
        }
    }
}

/// out[i] = sum_j k[j] * pad[i + j] for i in 0..<count.
@inline(__always)
private func convolve(_ pad: UnsafeMutableBufferPointer<Float>, _ k: UnsafeBufferPointer<Float>, count: Int,
                      into out: UnsafeMutableBufferPointer<Float>) {
    for i in 0..<count { out[i] = 0 }
    for j in 0..<k.count {
        let w = k[j]
        for i in 0..<count {
            out[i] += w * pad[i &+ j]
        }
    }
}
