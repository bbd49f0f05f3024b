import Harness
import Imaging

/// Fuzz target for what `cellqa review` reads: a run's detections.csv.
enum ReviewTarget {
    static let fileName = "fuzz.csv"

    /// Parses the input as detections.csv; every error names the file, and whatever parses is
    /// drawn on a small image.
    static func run(_ bytes: [UInt8]) {
        let marks: [ReviewMark]
        do {
            marks = try reviewMarks(csv: String(decoding: bytes, as: UTF8.self), file: fileName)
        } catch {
            if error.file != fileName || !error.description.hasPrefix(fileName) {
                FuzzInvariant.fail("error does not name the file: \(error)")
            }
            return
        }
        for mark in marks where !(mark.x.isFinite && mark.y.isFinite && mark.r.isFinite) {
            FuzzInvariant.fail("a mark that is not finite: \(mark)")
        }
        let image = Image(width: 32, height: 24, pixels: [UInt8](repeating: 100, count: 32 * 24 * 3))
        let drawn = drawReview(image, marks: marks)
        if drawn.width != 32 || drawn.height != 24 { FuzzInvariant.fail("the overlay changed the image's size") }
    }
}
