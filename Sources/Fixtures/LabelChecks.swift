import JSON

extension Label {
    /// Compares the label with the decoded image: a stated `width`/`height` must equal the
    /// image's, every cell must lie inside the image or within its radius of the edge, and no
    /// radius may exceed the image diagonal.
    ///
    /// - Parameters:
    ///   - imageWidth: decoded image width in pixels.
    ///   - imageHeight: decoded image height in pixels.
    ///   - file: the label file, for the messages.
    ///   - viewerTurn: how viewers show the image when its file asks them to turn it a quarter
    ///     (a JPEG's EXIF orientation 5 to 8, `Imaging.swappingViewerTurn(ofExifOrientation:)`),
    ///     for the message of a label whose size is the image's swapped, or whose cells lie
    ///     outside the image but inside it turned.
    /// - Returns: every disagreement, empty when the label fits the image.
    public func check(imageWidth: Int, imageHeight: Int, file: String? = nil, viewerTurn: String? = nil) -> [LabelError] {
        var errors: [LabelError] = []
        if let width, let height, width != height, width == imageHeight, height == imageWidth {
            // One message for both: a label drawn on the image as a viewer showed it, turned.
            let cause = viewerTurn.map { "\($0); cellqa measures the pixels as stored (labels-v1), so label them so or save the image turned" }
                ?? "was it labelled in a viewer that showed it turned? cellqa measures the pixels as stored (labels-v1)"
            errors.append(LabelError(JSONError(
                file: file, path: "width",
                expected: "the label is \(width)x\(height) but the decoded image is \(imageWidth)x\(imageHeight), "
                    + "its width and height swapped: \(cause)", actual: nil)))
            return errors
        }
        if let width, width != imageWidth {
            errors.append(LabelError(JSONError(
                file: file, path: "width", expected: "the decoded image width \(imageWidth)", actual: String(width))))
        }
        if let height, height != imageHeight {
            errors.append(LabelError(JSONError(
                file: file, path: "height", expected: "the decoded image height \(imageHeight)", actual: String(height))))
        }
        var outside = 0
        for (index, cell) in cells.enumerated() {
            let cursor = JSONCursor(.null, file: file, path: JSONPath.appending("cells", index: index))
            if let r = cell.r {
                let radiusCursor = JSONCursor(.double(r), file: file, path: JSONPath.appending(cursor.path, key: "r"))
                if let error = implausibleRadiusError(r, at: radiusCursor, imageWidth: imageWidth, imageHeight: imageHeight) {
                    errors.append(LabelError(error))
                }
            }
            if let error = outsideImageError(cell, at: cursor, width: imageWidth, height: imageHeight) {
                errors.append(LabelError(error))
                outside += 1
            }
        }
        // A label without a size, drawn on the image as a viewer showed it turned: its cells
        // fit the turned image. One line that says why, after the cells it explains.
        if outside > 0, let viewerTurn, width == nil || height == nil,
           cells.allSatisfy({ outsideImageError($0, at: JSONCursor(.null, file: file, path: ""), width: imageHeight, height: imageWidth) == nil }) {
            errors.append(LabelError(JSONError(
                file: file, path: "cells",
                expected: "\(outside) of \(cells.count) cells lie outside the \(imageWidth) x \(imageHeight) image but every cell "
                    + "fits it turned (\(imageHeight) x \(imageWidth)): \(viewerTurn); cellqa measures the pixels as stored (labels-v1)",
                actual: nil)))
        }
        return errors
    }
}
