import Foundation
import Hemocytometer
import Imaging
import Testing
@testable import Vision

@Suite("A ruling seen strongly off square")
struct KeystoneTests {
    /// The central large square seen with perspective terms this strong: its 50 µm spacing
    /// changes by a fifth across the view and its lines turn by several degrees, so no one
    /// direction projects them all sharply.
    static let strongTilt = (3.5e-4, 2e-4)

    static func flat(_ image: Image, config: PipelineConfig = PipelineConfig()) throws -> Plane {
        try PerspectiveTests.gridFrame(image, config: config).flat
    }

    /// The whole-view search finds no ruling in such a view; rectified, the view registers and
    /// the refined map finds every point of the view within 2 µm (modulo the group squares,
    /// which a view inside the central square does not tell apart).
    @Test func aViewSeenStronglyOffSquareRegistersOnceRectified() throws {
        let truth = PerspectiveTests.truth(tilt: Self.strongTilt)
        let image = PerspectiveTests.view(map: truth)
        var off = PipelineConfig()
        off.gridKeystone = false
        let without = try PerspectiveTests.gridFrame(image, config: off)
        #expect(without.grid == nil)
        #expect(without.flags.contains("no-grid"))
        // (Frames are not printed: a failed #require would print every sample.)
        let rectified = try PerspectiveTests.gridFrame(image)
        #expect(rectified.grid != nil)
        #expect(rectified.flags.contains("grid-keystone") && !rectified.flags.contains("no-grid"))
        // The fallback that found the ruling has its own step, before the registration's.
        let steps = rectified.steps.filter { $0.stage == "grid" }.map(\.step)
        #expect(Array(steps.prefix(3)) == ["line search", "keystone fallback", "registration"], "\(steps)")
        guard let grid = rectified.grid else { return }
        let error = PerspectiveTests.largestError(grid.result.imageToChamber, truth)
        #expect(error < 2, "\(grid.result.imageToChamber)")
        #expect(abs(grid.result.umPerPixel - 1.1) < 0.05, "\(grid.result.umPerPixel)")
    }

    /// The rectification sends each family's lines to nearly parallel lines: the images of
    /// five lines of a family, drawn through the rectification, spread over less than a tenth
    /// of the degrees they spread over in the view (near enough for the search's first
    /// half-degree steps; the registered map is refined on the view itself).
    @Test func theRectifiedLinesRunParallel() throws {
        let truth = PerspectiveTests.truth(tilt: Self.strongTilt)
        let flat = try Self.flat(PerspectiveTests.view(map: truth))
        let rectification = try #require(KeystoneRectification.of(flat))
        #expect(rectification.convergenceDegrees > 2, "\(rectification.convergenceDegrees)")
        let toImage = try #require(Homography(matrix: truth)?.inverse)
        let rectify = try #require(Homography(matrix: rectification.matrix))
        // Working pixels are image pixels halved (pixel centres aligned).
        func direction(_ a: Point, _ b: Point, through map: Homography?) -> Double {
            let (p, q) = (toImage.apply(a)!, toImage.apply(b)!)
            var (u, v) = (Point(x: (p.x - 0.5) / 2, y: (p.y - 0.5) / 2), Point(x: (q.x - 0.5) / 2, y: (q.y - 0.5) / 2))
            if let map { u = map.apply(u)!; v = map.apply(v)! }
            return atan2(v.y - u.y, v.x - u.x) * 180 / .pi
        }
        for axis in 0..<2 {
            let lines = stride(from: 1300.0, through: 1700, by: 100).map { c -> (Point, Point) in
                axis == 0 ? (Point(x: c, y: 1200), Point(x: c, y: 1800)) : (Point(x: 1200, y: c), Point(x: 1800, y: c))
            }
            let seen = lines.map { direction($0.0, $0.1, through: nil) }
            let rectified = lines.map { direction($0.0, $0.1, through: rectify) }
            let spread = (seen: seen.max()! - seen.min()!, rectified: rectified.max()! - rectified.min()!)
            #expect(spread.seen > 3 && spread.rectified < 0.1 * spread.seen, "\(seen) \(rectified)")
        }
    }

    /// A view seen a little off square registers on the view itself, as before: no flag.
    @Test func aViewSeenSlightlyOffSquareIsNotRectified() throws {
        let frame = try PerspectiveTests.gridFrame(PerspectiveTests.view(map: PerspectiveTests.truth(tilt: (6e-5, -5e-5))))
        #expect(frame.grid != nil)
        #expect(!frame.flags.contains("grid-keystone"))
    }

    /// A view seen square on converges by almost nothing: its lines run parallel already.
    @Test func aSquareOnViewConvergesByNothing() throws {
        let flat = try Self.flat(PerspectiveTests.view(map: PerspectiveTests.truth(tilt: (0, 0))))
        let rectification = try #require(KeystoneRectification.of(flat))
        #expect(rectification.convergenceDegrees < KeystoneRectification.parallelDegrees)
        // The lines' normals at the centre, as the truth draws them (working pixels are image
        // pixels halved, which turns no direction).
        let toImage = try #require(Homography(matrix: PerspectiveTests.truth(tilt: (0, 0)))?.inverse)
        for (k, normal) in rectification.normalDegrees.enumerated() {
            let ends = [(1500.0, 1400.0), (1500.0, 1600.0), (1400.0, 1500.0), (1600.0, 1500.0)][(2 * k)...(2 * k + 1)]
            let (a, b) = (toImage.apply(Point(x: ends.first!.0, y: ends.first!.1))!,
                          toImage.apply(Point(x: ends.last!.0, y: ends.last!.1))!)
            let lineDegrees = atan2(b.y - a.y, b.x - a.x) * 180 / .pi
            let seen = [normal, normal + 90].map { abs(remainder($0 - lineDegrees, 180)) }
            #expect(seen.contains { $0 < 0.3 }, "normal \(normal), line \(lineDegrees)")
        }
    }

    /// Noise and a few scattered discs show no two families of straight lines: no
    /// rectification, and the view keeps "no-grid".
    @Test func aViewWithoutLinesHasNoRectification() throws {
        let (width, height) = (640, 480)
        var random = TestSequence(state: 7)
        var flat = Plane(width: width, height: height, repeating: 1)
        for i in 0..<flat.count { flat.data[i] = 1 + 0.05 * Float(random.next() - 0.5) }
        for (cx, cy) in [(100, 100), (300, 200), (500, 380), (200, 400)] {
            for y in (cy - 8)...(cy + 8) {
                for x in (cx - 8)...(cx + 8) where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= 64 {
                    flat[x, y] = 0.7
                }
            }
        }
        #expect(KeystoneRectification.of(flat) == nil)
    }

    /// Planes of odd sizes holding a lattice of lines seen through random maps (turned,
    /// scaled, with random perspective terms up to strong keystone): whatever the
    /// rectification makes of them, it is a finite map whose inverse undoes it, and the
    /// rectified plane has the plane's size and finite samples.
    @Test func rectificationsOfRandomViewsAreWellFormed() {
        var random = TestSequence(state: 99)
        var rectified = 0
        for _ in 0..<40 {
            let w = 200 + Int(random.next() * 300), h = 150 + Int(random.next() * 250)
            let turn = (random.next() - 0.5) * 0.8, spacing = 12 + random.next() * 30
            let tilt = ((random.next() - 0.5) * 1.6e-3, (random.next() - 0.5) * 1.6e-3)
            let (c, s) = (cos(turn), sin(turn))
            var flat = Plane(width: w, height: h, repeating: 1)
            for y in 0..<h {
                for x in 0..<w {
                    let px = Double(x) - Double(w) / 2, py = Double(y) - Double(h) / 2
                    let d = 1 + tilt.0 * px + tilt.1 * py
                    let u = (c * px - s * py) / d, v = (s * px + c * py) / d
                    if abs(remainder(u, spacing)) < 1 || abs(remainder(v, spacing)) < 1 { flat[x, y] = 0.6 }
                }
            }
            guard let r = KeystoneRectification.of(flat) else { continue }
            rectified += 1
            #expect(r.matrix.allSatisfy(\.isFinite) && r.inverse.allSatisfy(\.isFinite))
            let m = Homography(matrix: r.matrix)!, inv = Homography(matrix: r.inverse)!
            for (x, y) in [(0.0, 0.0), (Double(w - 1), Double(h - 1)), (Double(w) / 3, Double(h) / 2)] {
                guard let back = m.apply(Point(x: x, y: y)).flatMap({ inv.apply($0) }) else {
                    Issue.record("a view point maps to infinity: \(x), \(y)")
                    continue
                }
                #expect(abs(back.x - x) < 1e-6 && abs(back.y - y) < 1e-6)
            }
            let warped = r.warp(flat, fill: 1)
            #expect(warped.width == w && warped.height == h && warped.data.allSatisfy(\.isFinite))
        }
        // (Most such views show both families in enough tiles.)
        #expect(rectified >= 20, "\(rectified) of 40")
    }

    @Test func theRectificationIsAConfigurationKey() throws {
        try expectConfigurationKey("gridKeystone", off: "false", reads: false, through: \.gridKeystone,
                                   defaultText: "true", invalid: "\"no\"")
    }

    /// The common point of lines that all pass through (3, -2) is that point, and the
    /// eigen-decomposition under it reproduces its matrix.
    @Test func theCommonPointOfConcurrentLinesIsTheirIntersection() throws {
        let lines = [0.0, 40, 95, 150].map { degrees -> [Double] in
            let t = degrees * .pi / 180
            return [-sin(t), cos(t), sin(t) * 3 - cos(t) * -2]
        }
        let v = try #require(commonPoint(lines))
        #expect(abs(v[0] / v[2] - 3) < 1e-9 && abs(v[1] / v[2] + 2) < 1e-9, "\(v)")
        let m: [Double] = [4, 1, 0.5, 1, 3, -1, 0.5, -1, 2]
        let (values, vectors) = try #require(symmetricEigen3(m))
        for k in 0..<3 {
            let e = [vectors[k], vectors[3 + k], vectors[6 + k]]
            for i in 0..<3 {
                let product = (0..<3).reduce(0.0) { $0 + m[i * 3 + $1] * e[$1] }
                #expect(abs(product - values[k] * e[i]) < 1e-9)
            }
        }
        #expect(abs(values.reduce(0, +) - 9) < 1e-9)
    }
}
