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
/// as magenta circles, and the Neubauer ruling as the grid stage registered it (every line of
/// `NeubauerGeometry.rulingLines` within view, triple lines twice as thick) in blue, so that a
/// misregistered grid shows as lines beside the ruling's.
public func drawOverlay(_ image: Image, result: PipelineResult) -> Image {
    var out = image
    guard image.width > 0, image.height > 0 else { return out }
    let thickness = max(1, Double(min(image.width, image.height)) / 700)
    if let grid = result.grid, let toChamber = Homography(matrix: grid.imageToChamber),
       let toImage = toChamber.inverse {
        // Chamber extent visible in the image, from the mapped image corners.
        let corners = [Point(x: 0, y: 0), Point(x: Double(image.width), y: 0),
                       Point(x: 0, y: Double(image.height)), Point(x: Double(image.width), y: Double(image.height))]
        let mapped = corners.compactMap { toChamber.apply($0) }
        if mapped.count == 4, let loX = mapped.map(\.x).min(), let hiX = mapped.map(\.x).max(),
           let loY = mapped.map(\.y).min(), let hiY = mapped.map(\.y).max() {
            for line in NeubauerGeometry.rulingLines() {
                let width = line.style == .triple ? 2 * thickness : thickness
                // The ruling is symmetric: each line is drawn once vertical (x = position) and
                // once horizontal (y = position), over its extent within view.
                for vertical in [true, false] {
                    let (lo, hi) = vertical ? (loX, hiX) : (loY, hiY)
                    let (alongLo, alongHi) = vertical ? (loY, hiY) : (loX, hiX)
                    let from = max(line.extentStartUm, alongLo), to = min(line.extentEndUm, alongHi)
                    guard line.positionUm >= lo, line.positionUm <= hi, from < to else { continue }
                    let ends = vertical
                        ? (Point(x: line.positionUm, y: from), Point(x: line.positionUm, y: to))
                        : (Point(x: from, y: line.positionUm), Point(x: to, y: line.positionUm))
                    if let a = toImage.apply(ends.0), let b = toImage.apply(ends.1) {
                        drawSegment(&out, a, b, OverlayColor.grid, thickness: width)
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
public func drawCircle(_ image: inout Image, x: Double, y: Double, r: Double, _ color: (UInt8, UInt8, UInt8), thickness: Double) {
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
    // Off the image by more than the dot's size (or not finite): nothing to draw, and a
    // coordinate beyond Int's range must not reach the conversions below.
    let margin = thickness + 1
    guard thickness.isFinite, thickness < 1e4, x > -margin, y > -margin,
          x < Double(image.width) + margin, y < Double(image.height) + margin else { return }
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
