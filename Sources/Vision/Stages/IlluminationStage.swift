import Foundation

/// Smooth background estimate: a large Gaussian computed on a downsampled copy (the background
/// varies slowly, so this costs a fraction of a full-resolution blur) and resized back.
///
/// A second, masked pass (normalised convolution) leaves out everything that deviates from
/// the first estimate by more than `outlierContrast` (grid lines, cells, debris): otherwise
/// heavy dark lines drag the background down beside them and the flattened image shows a
/// bright halo along every line.
/// - Parameters:
///   - plane: luminance.
///   - sigma: Gaussian sigma, pixels of `plane`.
///   - outlierContrast: |log(luminance / first estimate)| above which a pixel is left out; 0
///     skips the second pass.
///   - robustReference: take the first estimate from block medians (`downsampleMedian`)
///     instead of block means. A bright ruling covering a good part of every block lifts a
///     mean-based first estimate so far that the second pass leaves out the background too
///     and keeps the lifted estimate; the median stays on the background.
public func estimateBackground(_ plane: Plane, sigma: Double, outlierContrast: Float = 0.08,
                               robustReference: Bool = false) -> Plane {
    guard plane.count > 0 else { return plane }
    let factor = max(1, Int(sigma / 3))
    let small = downsample(plane, factor: factor)
    let smallSigma = sigma / Double(factor)
    var background = gaussianBlur(robustReference ? downsampleMedian(plane, factor: factor) : small, sigma: smallSigma)
    if outlierContrast > 0 {
        var weighted = small, mask = small
        let limit = outlierContrast
        weighted.data.withUnsafeMutableBufferPointer { wv in
            mask.data.withUnsafeMutableBufferPointer { mv in
                background.data.withUnsafeBufferPointer { bv in
                    small.data.withUnsafeBufferPointer { sv in
                        for i in 0..<sv.count {
                            let keep = abs(log(max(sv[i], 1e-6) / max(bv[i], 1e-6))) <= limit
                            mv[i] = keep ? 1 : 0
                            wv[i] = keep ? sv[i] : 0
                        }
                    }
                }
            }
        }
        let num = gaussianBlur(weighted, sigma: smallSigma), den = gaussianBlur(mask, sigma: smallSigma)
        background.data.withUnsafeMutableBufferPointer { bv in
            num.data.withUnsafeBufferPointer { nv in
                den.data.withUnsafeBufferPointer { dv in
                    // Where almost everything was left out, keep the first estimate.
                    for i in 0..<bv.count where dv[i] > 0.05 { bv[i] = nv[i] / dv[i] }
                }
            }
        }
    }
    return resizeBilinear(background, width: plane.width, height: plane.height)
}

/// Divides luminance by its background: 1 = background, < 1 darker (absorbing), > 1 brighter.
///
/// - Parameters:
///   - background: the same size as `luminance` (`estimateBackground` gives it so).
///   - epsilon: linear-light offset added to both so that near-black regions do not
///     blow noise up.
public func flatten(_ luminance: Plane, background: Plane, epsilon: Float = 0.01) -> Plane {
    // The loop below reads the background through an unchecked pointer.
    precondition(background.width == luminance.width && background.height == luminance.height,
                 "flatten: background \(background.width)x\(background.height) for a \(luminance.width)x\(luminance.height) plane")
    // Into a new plane (the frame keeps the luminance: changed in place, it would be copied).
    return luminance.data.withUnsafeBufferPointer { l in
        background.data.withUnsafeBufferPointer { b in
            Plane(width: luminance.width, height: luminance.height) { o in
                for i in 0..<l.count { o[i] = (l[i] + epsilon) / (b[i] + epsilon) }
            }
        }
    }
}

/// Stage 2: divide out uneven illumination (vignetting, glare gradients, colour of the lamp).
struct IlluminationStage: Stage {
    let name = "illumination"

    func run(_ frame: inout Frame) throws {
        guard frame.luminance.count > 0 else { return }
        let sigma = max(4, frame.config.backgroundSigmaRadii * frame.maxRadius)
        let background = estimateBackground(frame.luminance, sigma: sigma,
                                            robustReference: frame.config.robustBackground)
        frame.flat = flatten(frame.luminance, background: background)
    }
}
