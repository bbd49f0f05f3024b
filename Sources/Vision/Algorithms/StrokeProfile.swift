import Foundation
import Imaging

/// The ruling's strokes across one direction round an image point, at full resolution: for
/// each offset across the direction (-`reach` ... `reach` image pixels), how far a line
/// through it stands off the background, in log grey: the 80th percentile along the line
/// below the background (a dark line: even its lighter samples are dark), or the 20th above
/// it (a light line), whichever is more, else 0. The background is the median over the
/// offsets of each line's median.
///
/// Why: the little squares between the strokes of two crossing triple lines face their
/// centres all round and pass every rim test. Strokes drawn a few µm apart lie two or three
/// working pixels apart, where the working planes blur them into one band; at full
/// resolution each shows as its own line with the background between. The percentiles ask for
/// a line that runs the stretch: a row of cells covers part of it, with background between
/// (medians took 52-100 cells in clumps on the independent synthetic set). The stretch leaves
/// out the middle of the candidate's own disc (`skipping`), whose light interior would
/// otherwise break a line that runs under it and read as a gap (a clear cell on a heavy
/// crossing); leaving out the whole disc lost cells in clumps, whose neighbours then fill
/// more of the stretch.
/// - Parameters:
///   - image: the decoded image.
///   - x, y: the point, image pixels.
///   - angle: the lines' direction, radians (0 = +x, pi/2 = +y).
///   - reach: offsets across the lines, pixels each way (>= 1).
///   - halfLength: the stretch along each line, pixels each way; every third pixel from
///     `skipping` + 1 on is read, at the nearest pixel (a ruling line runs on; the profile
///     across it is what needs every pixel).
///   - skipping: pixels each way of the point that the stretch leaves out (>= 0).
/// - Returns: 2 `reach` + 1 departures, or nil when a stretch leaves the image or holds
///   fewer than 3 samples each way.
func strokeProfile(_ image: Image, x: Double, y: Double, angle: Double, reach: Int, halfLength: Int,
                   skipping: Int = 0) -> [Float]? {
    let skip = max(0, skipping)
    // Samples every `step` pixels along the line from skip + 1 to at most halfLength, each way.
    let step = 3
    let half = (halfLength - skip - 1) / step + 1
    guard reach >= 1, half >= 3, x.isFinite, y.isFinite else { return nil }
    let dx = cos(angle), dy = sin(angle), nx = -dy, ny = dx
    let extent = Double(reach + halfLength) + 1
    guard x - extent >= 0, y - extent >= 0, x + extent <= Double(image.width - 1),
          y + extent <= Double(image.height - 1) else { return nil }
    let samples = 2 * half, width = image.width
    var medians = [Float](repeating: 0, count: 2 * reach + 1)
    var lows = medians, highs = medians
    withUnsafeTemporaryAllocation(of: Float.self, capacity: samples) { stretch in
        image.pixels.withUnsafeBufferPointer { px in
            logGreyTable.withUnsafeBufferPointer { table in
                for o in -reach...reach {
                    let cx = x + Double(o) * nx + 0.5, cy = y + Double(o) * ny + 0.5
                    // Each sample, both ways along the line, inserted in order.
                    var n = 0
                    func insert(_ t: Double) {
                        let v = logGreyOfPixel(px, at: (Int(cy + t * dy) * width + Int(cx + t * dx)) * 3, table: table)
                        var i = n
                        while i > 0 && stretch[i - 1] > v {
                            stretch[i] = stretch[i - 1]
                            i -= 1
                        }
                        stretch[i] = v
                        n += 1
                    }
                    for k in 0..<half {
                        let t = Double(skip + 1 + step * k)
                        insert(t)
                        insert(-t)
                    }
                    medians[o + reach] = stretch[samples / 2]
                    lows[o + reach] = stretch[samples / 5]
                    highs[o + reach] = stretch[samples - 1 - samples / 5]
                }
            }
        }
    }
    let background = medians.sorted()[reach]
    return (0..<medians.count).map { k in max(0, background - highs[k], lows[k] - background) }
}

/// Whether a line profile across a direction (`value` by offset, -`reach` ... `reach`, >= 1)
/// shows a gap between two strokes: on each side at least `level`, and at the middle at most
/// half the weaker side's.
func isGap(reach: Int, level: Float, _ value: (Int) -> Float) -> Bool {
    let sides = min((1...reach).map { value(-$0) }.max()!, (1...reach).map(value).max()!)
    return sides >= level && value(0) <= 0.5 * sides
}
