import Foundation
import Imaging
import Hemocytometer

/// Colours of the overlay (8-bit RGB).
public enum OverlayColor {
    public static let live: (UInt8, UInt8, UInt8) = (0, 220, 0)
    public static let dead: (UInt8, UInt8, UInt8) = (255, 0, 255)
    public static let grid: (UInt8, UInt8, UInt8) = (0, 160, 255)
}

/// The image with the pipeline's findings drawn on it: live cells as green circles, dead cells
/// as magenta circles, the detected ruling (every line of the dominant spacing) in blue.
///
/// - Parameters:
///   - gridSpacingUm: spacing of the drawn ruling lines, micrometres (the config's
///     `gridSpacingUm`, i.e. the detected period).
public func drawOverlay(_ image: Image, result: PipelineResult, gridSpacingUm: Double) -> Image {
    var out = image
    guard image.width > 0, image.height > 0 else { return out }
    let thickness = max(1, Double(min(image.width, image.height)) / 700)
    if let grid = result.grid, let toChamber = Homography(matrix: grid.imageToChamber),
       let toImage = toChamber.inverse, gridSpacingUm > 0 {
        // Chamber extent visible in the image, from the mapped image corners.
        let corners = [Point(x: 0, y: 0), Point(x: Double(image.width), y: 0),
                       Point(x: 0, y: Double(image.height)), Point(x: Double(image.width), y: Double(image.height))]
        let mapped = corners.compactMap { toChamber.apply($0) }
        if mapped.count == 4 {
            let lo = (x: mapped.map(\.x).min()!, y: mapped.map(\.y).min()!)
            let hi = (x: mapped.map(\.x).max()!, y: mapped.map(\.y).max()!)
            let maxLines = 400
            let firstX = (lo.x / gridSpacingUm).rounded(.down), lastX = (hi.x / gridSpacingUm).rounded(.up)
            let firstY = (lo.y / gridSpacingUm).rounded(.down), lastY = (hi.y / gridSpacingUm).rounded(.up)
            if lastX - firstX < Double(maxLines), lastY - firstY < Double(maxLines) {
                for k in stride(from: firstX, through: lastX, by: 1) {
                    let u = k * gridSpacingUm
                    if let a = toImage.apply(Point(x: u, y: lo.y)), let b = toImage.apply(Point(x: u, y: hi.y)) {
                        drawSegment(&out, a, b, OverlayColor.grid, thickness: thickness)
                    }
                }
                for k in stride(from: firstY, through: lastY, by: 1) {
                    let v = k * gridSpacingUm
                    if let a = toImage.apply(Point(x: lo.x, y: v)), let b = toImage.apply(Point(x: hi.x, y: v)) {
                        drawSegment(&out, a, b, OverlayColor.grid, thickness: thickness)
                    }
                }
            }
        }
    }
    for d in result.detections {
        drawCircle(&out, x: d.x, y: d.y, r: d.r, d.cellClass == .dead ? OverlayColor.dead : OverlayColor.live,
                   thickness: thickness)
    }
    return out
}

/// Plots a filled square of side `thickness` at every step along a circle.
func drawCircle(_ image: inout Image, x: Double, y: Double, r: Double, _ color: (UInt8, UInt8, UInt8), thickness: Double) {
    guard r.isFinite, x.isFinite, y.isFinite, r > 0, r < 1e5 else { return }
    let steps = max(16, Int(2 * .pi * r))
    for k in 0..<steps {
        let a = Double(k) / Double(steps) * 2 * .pi
        plot(&image, x + r * cos(a), y + r * sin(a), color, thickness: thickness)
    }
}

func drawSegment(_ image: inout Image, _ a: Point, _ b: Point, _ color: (UInt8, UInt8, UInt8), thickness: Double) {
    let length = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
    guard length.isFinite, length < 1e6 else { return }
    let steps = max(1, Int(length))
    for k in 0...steps {
        let t = Double(k) / Double(steps)
        plot(&image, a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, color, thickness: thickness)
    }
}

func plot(_ image: inout Image, _ x: Double, _ y: Double, _ color: (UInt8, UInt8, UInt8), thickness: Double) {
    let half = Int((thickness / 2).rounded(.down))
    let cx = Int(x.rounded()), cy = Int(y.rounded())
    for py in (cy - half)...(cy + half) where py >= 0 && py < image.height {
        for px in (cx - half)...(cx + half) where px >= 0 && px < image.width {
            let i = (py * image.width + px) * 3
            image.pixels[i] = color.0
            image.pixels[i + 1] = color.1
            image.pixels[i + 2] = color.2
        }
    }
}
