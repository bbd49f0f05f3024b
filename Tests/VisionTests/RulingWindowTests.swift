import Foundation
import Testing
@testable import Vision

/// `unregisteredWindowRadii`: in a view whose ruling is found but whose scale is not
/// registered, a candidate enclosed by ruling lines close round it is one of the ruling's
/// windows (the light squares between the strokes of crossing triple lines), not a cell.
@Suite("A window of an unregistered ruling holds no cell")
struct RulingWindowTests {
    /// A contrast map of `size` pixels with lines (contrast 0.3, 2 px wide) at the given
    /// columns and rows.
    static func lattice(size: Int = 120, columns: [Int], rows: [Int]) -> Plane {
        var plane = Plane(width: size, height: size)
        for y in 0..<size {
            for x in 0..<size where columns.contains(where: { abs(x - $0) <= 1 }) || rows.contains(where: { abs(y - $0) <= 1 }) {
                plane.data[y * size + x] = 0.3
            }
        }
        return plane
    }

    /// Lines run horizontally (angle 0) and vertically (pi / 2).
    static let angles = [0.0, Double.pi / 2]

    @Test func aPointBoxedInByLinesWithinReachIsAWindow() {
        let plane = Self.lattice(columns: [50, 70], rows: [50, 70])
        func window(_ x: Double, _ y: Double, farthest: Double) -> Bool {
            isInRulingWindow(plane, x: x, y: y, angles: Self.angles, halfLength: 30, level: 0.1, nearest: 4,
                             farthest: farthest)
        }
        #expect(window(60, 60, farthest: 12))
        // The lines lie 10 px off: beyond a reach of 8 the box is open.
        #expect(!window(60, 60, farthest: 8))
        // A line through the point: on the ruling, not in a window.
        #expect(!window(60, 50, farthest: 12))
        // Outside the box, lines flank one side only.
        #expect(!window(90, 90, farthest: 12))
    }

    @Test func linesOnThreeSidesAreNoWindow() {
        let plane = Self.lattice(columns: [50, 70], rows: [50])
        #expect(!isInRulingWindow(plane, x: 60, y: 60, angles: Self.angles, halfLength: 30, level: 0.1, nearest: 4,
                                  farthest: 12))
        #expect(!isInRulingWindow(plane, x: 60, y: 60, angles: [0], halfLength: 30, level: 0.1, nearest: 4,
                                  farthest: 12))
    }

    /// The sixth generator's second draw, `hard-04.jpg` (heavy dark lines, triple lines' strokes
    /// about 15 µm apart, JPEG): the ruling's lines are found but its scale is not registered.
    static let path = "Tests/Images/unregistered-ruling-windows.png"
    /// Windows between the strokes detected without the rule, image pixels (none within three
    /// radii of a labelled cell).
    static let windows: [(Double, Double)] = [(460, 98), (460, 114), (257, 318), (257, 335), (240, 336), (462, 336)]

    @Test func thePipelineDropsTheWindowsOnly() throws {
        try expectDropsOnly(Self.path, Self.windows, within: 2) { $0.unregisteredWindowRadii = 0 }
    }

    @Test func theWindowSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("unregisteredWindowRadii", off: "0", reads: 0.0, through: \.unregisteredWindowRadii,
                                   defaultText: "2.0", invalid: "-1")
    }
}
