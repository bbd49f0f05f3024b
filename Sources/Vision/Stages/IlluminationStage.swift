/// Smooth background estimate: a large Gaussian computed on a downsampled copy (the background
/// varies slowly, so this costs a fraction of a full-resolution blur) and resized back.
///
/// - Parameters:
///   - plane: luminance.
///   - sigma: Gaussian sigma, pixels of `plane`.
public func estimateBackground(_ plane: Plane, sigma: Double) -> Plane {
    guard plane.count > 0 else { return plane }
    let factor = max(1, Int(sigma / 3))
    let small = downsample(plane, factor: factor)
    let blurred = gaussianBlur(small, sigma: sigma / Double(factor))
    return resizeBilinear(blurred, width: plane.width, height: plane.height)
}

/// Divides luminance by its background: 1 = background, < 1 darker (absorbing), > 1 brighter.
///
/// - Parameter epsilon: linear-light offset added to both so that near-black regions do not
///   blow noise up.
public func flatten(_ luminance: Plane, background: Plane, epsilon: Float = 0.01) -> Plane {
    var out = luminance
    out.data.withUnsafeMutableBufferPointer { o in
        background.data.withUnsafeBufferPointer { b in
            for i in 0..<o.count { o[i] = (o[i] + epsilon) / (b[i] + epsilon) }
        }
    }
    return out
}

/// Stage 2: divide out uneven illumination (vignetting, glare gradients, colour of the lamp).
struct IlluminationStage: Stage {
    let name = "illumination"

    func run(_ frame: inout Frame) throws {
        guard frame.luminance.count > 0 else { return }
        let sigma = max(4, frame.config.backgroundSigmaRadii * frame.maxRadius)
        let background = estimateBackground(frame.luminance, sigma: sigma)
        frame.flat = flatten(frame.luminance, background: background)
    }
}
