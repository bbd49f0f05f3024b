import Fixtures
import Foundation
import Imaging
import JSON
import Testing
import Vision
@testable import Harness

/// Draft labels (`cellqa count --draft-labels`): what the pipeline found, as labels-v1 a
/// person can correct.
@Suite struct DraftLabelTests {
    /// A Golden whose ruling is registered with its scale and place in the chamber measured
    /// (no "assumed" flag), small enough to run quickly.
    static func registeredGolden() throws -> PipelineResult {
        let image = try Image.decode(file: repositoryRoot + "/Goldens/standard-s111-000.png")
        let result = try Pipeline(config: PipelineConfig()).run(image)
        try #require(result.grid != nil && !result.detections.isEmpty)
        try #require(!result.flags.contains("grid-origin-assumed") && !result.flags.contains("grid-scale-assumed"),
                     "the test needs a placed ruling: \(result.flags)")
        return result
    }

    @Test func aDraftIsLabelsV1ThatReadsBackTheSame() throws {
        let result = try Self.registeredGolden()
        let draft = draftLabel(for: result, imageName: "standard-s111-000.png", configHash: "0123456789abcdef", dilution: 2)
        let text = draft.jsonValue.serialized(pretty: true)
        let decoded = try Label.decode(try JSONValue.parse(text), file: "draft.json")
        #expect(decoded == draft)
        #expect(decoded.image == "standard-s111-000.png")
        #expect(decoded.width == result.width && decoded.height == result.height)
        #expect(decoded.dilution == 2)
        #expect(decoded.tags == ["draft"])
        #expect(decoded.extra["draftedBy"] == .string("cellqa count, config 0123456789abcdef"))
        // Every detection, in order, to 0.01 px, with its class.
        #expect(decoded.cells.count == result.detections.count)
        for (cell, detection) in zip(decoded.cells, result.detections) {
            #expect(abs(cell.x - detection.x) <= 0.005 && abs(cell.y - detection.y) <= 0.005)
            #expect(abs(try #require(cell.r) - detection.r) <= 0.005)
            #expect(cell.label == (detection.cellClass == .dead ? .dead : .live))
        }
        #expect(decoded.deadCount == result.detections.count { $0.cellClass == .dead })
        // The registered ruling: its calibration and the counting area's corners.
        let umPerPixel = try #require(result.umPerPixel)
        #expect(abs(try #require(decoded.umPerPixel) - umPerPixel) <= 5e-7)
        let corners = try #require(decoded.grid?.corners)
        let found = try #require(result.grid?.corners)
        #expect(corners.count == 4)
        for (a, b) in zip(corners, found) { #expect(abs(a.x - b.x) <= 0.005 && abs(a.y - b.y) <= 0.005) }
        #expect(decoded.grid?.widthUm == 3000 && decoded.grid?.heightUm == 3000)
    }

    @Test func whatTheGridStageOnlyAssumedIsLeftOut() throws {
        var result = try Self.registeredGolden()
        result.flags.append("grid-origin-assumed")
        let placeAssumed = draftLabel(for: result, imageName: "a.png", configHash: "h")
        #expect(placeAssumed.grid == nil)
        #expect(placeAssumed.umPerPixel != nil, "the scale was measured")
        result.flags.append("grid-scale-assumed")
        let scaleAssumed = draftLabel(for: result, imageName: "a.png", configHash: "h")
        #expect(scaleAssumed.grid == nil && scaleAssumed.umPerPixel == nil)
        #expect(scaleAssumed.cells.count == result.detections.count)
    }

    /// A calibration the cells contradict is no better than an assumed one.
    @Test func aCalibrationTheCellsContradictIsLeftOut() throws {
        var result = try Self.registeredGolden()
        #expect(draftLabel(for: result, imageName: "a.png", configHash: "h").umPerPixel != nil)
        result.flags.append("calibration-implausible")
        let draft = draftLabel(for: result, imageName: "a.png", configHash: "h")
        #expect(draft.grid == nil && draft.umPerPixel == nil)
        #expect(draft.cells.count == result.detections.count)
    }

    @Test func aViewWithoutCellsDraftsAnEmptyLabel() throws {
        let image = Image(width: 64, height: 48, pixels: [UInt8](repeating: 180, count: 64 * 48 * 3))
        let result = try Pipeline(config: PipelineConfig()).run(image)
        let draft = draftLabel(for: result, imageName: "flat.png", configHash: "h")
        #expect(draft.cells.isEmpty && draft.grid == nil && draft.umPerPixel == nil)
        let decoded = try Label.decode(try JSONValue.parse(draft.jsonValue.serialized(pretty: false)), file: "flat.json")
        #expect(decoded == draft)
    }
}
