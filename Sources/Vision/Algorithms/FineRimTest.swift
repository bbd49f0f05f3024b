import Foundation
import Imaging

/// The boundary test (`radialEdgeCoverage`) on the full-resolution image, for candidates too
/// small for it at the working scale.
///
/// Why: a cell of radius 5 px is 2.5 working pixels; its rim is a ring about 16 working pixels
/// round, too few for each of the 16 sectors to hold a pixel whose gradient points at the
/// centre, so clearly visible small cells missed a sector (coverage 11/16 against 12/16: 97
/// of the independent synthetic set's misses, isolated cells among them). Read at full
/// resolution the same ring has four times the pixels. Only a window around the candidate is
/// formed: the log luminance of its pixels, smoothed as the working plane is.
///
/// More pixels also give more chances for a stray gradient to face the centre (the spots
/// between cells in a clump, JPEG block edges), so the caller asks for more coverage here
/// than at the working scale and for a dark ring all round (`darkRingSectors`), and the
/// threshold is the working test's per pixel: an edge's gradient per image pixel is about
/// 1 / scale of its gradient per working pixel, so this is the stricter test (a threshold
/// from the full-resolution noise let JPEG q60 block edges through).
struct FineRimTest {
    let image: Image
    /// Gaussian smoothing of the log luminance, image pixels.
    let sigma: Double
    /// Facing gradients must exceed this, log luminance per image pixel.
    let threshold: Float
    /// `darkRingSectors`'s depth, log luminance.
    let ringDepth: Float

    /// Coverage and grid share of the boundary facing (x, y), as `radialEdgeCoverage` finds
    /// them on the full-resolution window, and its `darkRingSectors`.
    /// - Parameters:
    ///   - x, y, r: candidate centre and radius, image pixels.
    ///   - gridNormals: directions (radians) of the ruling's line normals, if known.
    func evidence(x: Double, y: Double, r: Double, gridNormals: [Double]) -> (coverage: Double, gridAligned: Double, darkRingSectors: Int) {
        // The annulus reaches 1.6 r.
        guard let (window, x0, y0) = window(x: x, y: y, reach: 1.6 * r) else { return (0, 0, 0) }
        let e = radialEdgeCoverage(window, x: x - Double(x0), y: y - Double(y0), r: r, threshold: threshold,
                                   gridNormals: gridNormals)
        return (e.coverage, e.gridAligned, Vision.darkRingSectors(window, x: x - Double(x0), y: y - Double(y0), r: r, depth: ringDepth))
    }

    /// `darkRingSectors` alone, on a window reaching only as far as the ring (1.4 r).
    func darkRingSectors(x: Double, y: Double, r: Double) -> Int {
        guard let (window, x0, y0) = window(x: x, y: y, reach: 1.4 * r) else { return 0 }
        return Vision.darkRingSectors(window, x: x - Double(x0), y: y - Double(y0), r: r, depth: ringDepth)
    }

    /// The smoothed log luminance of the image round (x, y) out to `reach` px, plus what the
    /// blur (3 sigma) and the gradient (a pixel) read beyond it, and its origin; nil when it
    /// would be degenerate.
    private func window(x: Double, y: Double, reach: Double) -> (Plane, Int, Int)? {
        let reach = Int((reach + 3 * sigma).rounded(.up)) + 2
        let x0 = max(0, Int(x.rounded(.down)) - reach), y0 = max(0, Int(y.rounded(.down)) - reach)
        let x1 = min(image.width - 1, Int(x.rounded(.up)) + reach), y1 = min(image.height - 1, Int(y.rounded(.up)) + reach)
        // `pixels` is a public var: a buffer that no longer matches the size is not read.
        guard x1 - x0 >= 2, y1 - y0 >= 2, image.pixels.count >= image.width * image.height * 3 else { return nil }
        return (smoothedLogLuminance(image, x0: x0, y0: y0, width: x1 - x0 + 1, height: y1 - y0 + 1, sigma: sigma), x0, y0)
    }
}

/// Of 16 sectors round (x, y), how many hold a point between 0.6 r and 1.4 r from it, on the
/// sector's middle ray, darker than the centre by more than `depth`.
///
/// Why: the full-resolution boundary test also passes spots between cells in a clump, where
/// the neighbours' rims face the spot from most sides; a small cell's own rim is a dark ring
/// all round its centre, while between the neighbours the spot's rays run out onto the
/// background, as bright as where they start.
/// - Parameters:
///   - plane: smoothed log luminance.
///   - x, y, r: centre and radius, pixels of `plane`.
///   - depth: log luminance (0.02: 2 % darker; above the rounding of the smoothing and the
///     interpolation, which a uniform background must not pass, far below a rim's contrast).
func darkRingSectors(_ plane: Plane, x: Double, y: Double, r: Double, sectors: Int = 16, depth: Float) -> Int {
    let centre = plane.bilinear(x, y)
    var dark = 0
    for k in 0..<sectors {
        let a = (Double(k) + 0.5) * 2 * .pi / Double(sectors)
        let dx = cos(a), dy = sin(a)
        var rho = 0.6 * r
        while rho <= 1.4 * r {
            if plane.bilinear(x + rho * dx, y + rho * dy) < centre - depth {
                dark += 1
                break
            }
            rho += 0.5
        }
    }
    return dark
}

/// Gaussian-smoothed log of the linear luminance of a window of an 8-bit sRGB image, formed
/// as the working plane is (`logPlane`, then the blur).
/// - Parameters:
///   - x0, y0, width, height: the window, image pixels (inside the image).
///   - sigma: Gaussian smoothing, pixels.
func smoothedLogLuminance(_ image: Image, x0: Int, y0: Int, width: Int, height: Int, sigma: Double) -> Plane {
    let luminance = Plane(width: width, height: height) { out in
        image.pixels.withUnsafeBufferPointer { px in
            weightedLinearChannels.withUnsafeBufferPointer { t in
                for y in 0..<height {
                    var p = px.baseAddress! + ((y0 + y) * image.width + x0) * 3
                    let row = out + y * width
                    for x in 0..<width {
                        row[x] = t[Int(p[0])] + t[256 &+ Int(p[1])] + t[512 &+ Int(p[2])]
                        p += 3
                    }
                }
            }
        }
    }
    return gaussianBlur(logPlane(luminance), sigma: sigma)
}
