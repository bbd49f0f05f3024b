import Foundation
import Hemocytometer

/// The image -> chamber map of a registered ruling (`registerRuling`): chamber y from the
/// first line family (lines near horizontal), chamber x from the second, each an affine function
/// of the image position along its family's normal.
///
/// - Parameters:
///   - normals: each family's normal direction on the working plane, radians.
///   - fits: each family's registration (working-plane units along its normal).
///   - scale: image pixels per working pixel (working pixel i covers image pixels
///     s i ... s i + s - 1, centre s i + (s - 1) / 2).
/// - Returns: the row-major 3 x 3 map from image pixels to chamber µm, and µm per image pixel
///   (geometric mean of the two families'); nil without two families or with a degenerate fit.
public func chamberMapping(normals: [Double], fits: [RulingFamilyFit], scale: Int)
    -> (imageToChamber: [Double], umPerPixel: Double)? {
    guard normals.count == 2, fits.count == 2, scale >= 1 else { return nil }
    let s = Double(scale)
    var rows: [(nx: Double, ny: Double, c: Double, u: Double)] = []
    for k in 0..<2 {
        var nx = cos(normals[k]), ny = sin(normals[k])
        let u = fits[k].umPerPixel / s
        guard u.isFinite, u > 0, fits[k].offsetUm.isFinite else { return nil }
        // Normal coordinate of image pixel p on the working plane: n . (p - (s - 1) / 2) / s.
        var c = fits[k].offsetUm - u * (s - 1) / 2 * (nx + ny)
        // Chamber y runs down the image and x to the right. A normal pointing the other way
        // registered the ruling's mirror image, which is the ruling itself: u -> 3000 - u.
        if (k == 0 && ny < 0) || (k == 1 && nx < 0) {
            nx = -nx
            ny = -ny
            c = NeubauerGeometry.ruledAreaUm - c
        }
        rows.append((nx * u, ny * u, c, u))
    }
    let (y, x) = (rows[0], rows[1])
    return ([x.nx, x.ny, x.c, y.nx, y.ny, y.c, 0, 0, 1], (x.u * y.u).squareRoot())
}

/// Whether any of the view lies inside the ruled area (0 ... 3000 µm both ways) under the
/// image -> chamber map: every point of a 17 x 17 lattice over the image, its corners
/// included, is mapped and tested. A ruling's lines are all inside the ruled area, so a view
/// that shows them meets it; a map that puts the whole view outside has its scale or its place
/// wrong. (A view meeting the ruled area only between lattice points would show a sliver of
/// it less than a sixteenth of the view across.)
///
/// - Parameters:
///   - imageToChamber: row-major 3 x 3 map from image pixels to chamber µm.
///   - width, height: the image, pixels.
func viewMeetsRuledArea(imageToChamber: [Double], width: Int, height: Int) -> Bool {
    guard let map = Homography(matrix: imageToChamber), width > 0, height > 0 else { return false }
    let side = NeubauerGeometry.ruledAreaUm, steps = 16
    for j in 0...steps {
        for i in 0...steps {
            // Pixel centres span 0 ... width - 1.
            let p = Point(x: Double(width - 1) * Double(i) / Double(steps), y: Double(height - 1) * Double(j) / Double(steps))
            if let q = map.apply(p), (0...side).contains(q.x), (0...side).contains(q.y) { return true }
        }
    }
    return false
}
