import Fixtures
import JSON
import Vision

/// The tag of a drafted label (`draftLabel`): a person drops it once the label is checked.
public let draftTag = "draft"

/// A labels-v1 label drafted from what the pipeline found in an image, for a person to correct
/// (`cellqa count --draft-labels`): labelling a new dataset starts from the detections rather
/// than from nothing.
///
/// The draft holds the image's name and size, every detection as a cell (centre, radius,
/// live or dead), the calibration and the counting area's corners where the ruling was
/// registered, and the tag `draft` with the algorithm version in `draftedBy` (an unknown
/// top-level field, which labels-v1 readers keep and ignore), so that a label nobody has
/// checked yet is told apart from a checked one. A calibration whose scale the grid stage
/// only assumed ("grid-scale-assumed") or the cells contradict ("calibration-implausible") is
/// left out with the corners, and so are the corners of a view whose place in the chamber it
/// only assumed ("grid-origin-assumed"): a draft should not state what the pipeline guessed.
/// Positions and radii are rounded to 0.01 px, the calibration to 1e-6 µm per pixel: a draft
/// is read and edited by a person.
///
/// - Parameters:
///   - result: the pipeline's result for the image.
///   - imageName: the image's file name (the label's `image` field).
///   - configHash: the configuration's hash, recorded in `draftedBy`.
///   - dilution: the sample's dilution (the configuration's), recorded when not 1.
public func draftLabel(for result: PipelineResult, imageName: String, configHash: String, dilution: Double = 1) -> Label {
    let scaleUntrusted = result.flags.contains("grid-scale-assumed") || result.flags.contains("calibration-implausible")
    let originAssumed = result.flags.contains("grid-origin-assumed")
    var grid: LabelGrid?
    if let found = result.grid, !scaleUntrusted, !originAssumed, found.corners.count == 4,
       found.corners.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) {
        grid = LabelGrid(corners: found.corners.map { PixelPoint(x: rounded($0.x, 100), y: rounded($0.y, 100)) })
    }
    let cells = result.detections.map { d in
        LabelledCell(x: rounded(d.x, 100), y: rounded(d.y, 100), r: rounded(d.r, 100),
                     label: d.cellClass == .dead ? .dead : .live)
    }
    var extra = JSONObject()
    extra.set("draftedBy", .string("cellqa count, config \(configHash)"))
    return Label(image: imageName, width: result.width, height: result.height,
                 umPerPixel: scaleUntrusted ? nil : result.umPerPixel.flatMap { $0.isFinite && $0 > 0 ? rounded($0, 1e6) : nil },
                 dilution: dilution, grid: grid, cells: cells, tags: [draftTag], extra: extra)
}

/// `value` to the nearest 1 / `perUnit` (divided last, so that 5.27 prints as 5.27).
private func rounded(_ value: Double, _ perUnit: Double) -> Double { (value * perUnit).rounded() / perUnit }
