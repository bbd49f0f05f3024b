import Fixtures
import Foundation
import Hemocytometer
import Testing
@testable import Vision

/// Where a generator's label puts the ruling of a committed test view: the label's ruled-area
/// corners map image pixels into the chamber, independent of where the pipeline's own
/// registration places the view.
struct LabelledRuling {
    let label: Label
    let toChamber: Homography
    /// Every stroke's position across its lines, µm (a triple line's strokes each count).
    private static let strokes = NeubauerGeometry.rulingLines().flatMap(\.strokePositionsUm)

    /// The label at `path`, relative to the repository root.
    init(label path: String) throws {
        label = try Label.load(path: repositoryRoot + "/" + path)
        let corners = try #require(label.grid?.corners).map { Point(x: $0.x, y: $0.y) }
        toChamber = try #require(Homography(from: corners, to: NeubauerGeometry.ruledAreaCorners))
    }

    /// How far a detection's centre lies from the nearest stroke across each direction, µm,
    /// and where it lies in the chamber.
    func offLine(_ d: Detection) throws -> (x: Double, y: Double, chamber: Point) {
        let p = try #require(toChamber.apply(Point(x: d.x, y: d.y)))
        func nearest(_ t: Double) -> Double { Self.strokes.map { abs($0 - t) }.min() ?? .infinity }
        return (nearest(p.x), nearest(p.y), p)
    }
}
