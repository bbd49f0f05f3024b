import Testing
import Fixtures
import Imaging
@testable import Vision

/// The tests' deterministic pseudo-random sequence (a 64-bit linear congruential generator):
/// uniform values in [0, 1) from the top 53 bits of the state.
struct TestSequence {
    var state: UInt64

    mutating func next() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
}

/// Small drawn test images: a background with discs, rings and grid lines, all anti-aliased
/// by 4x4 supersampling so centres are exact to a fraction of a pixel.
struct Canvas {
    var width: Int
    var height: Int
    var rgb: [Double]

    init(width: Int, height: Int, background: (Double, Double, Double) = (0.75, 0.72, 0.68)) {
        self.width = width
        self.height = height
        rgb = [Double](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            rgb[i * 3] = background.0
            rgb[i * 3 + 1] = background.1
            rgb[i * 3 + 2] = background.2
        }
    }

    /// Multiplies the colour inside `inside(x, y)` (sub-pixel test) by `factor`.
    mutating func paint(factor: (Double, Double, Double), bounds: (Int, Int, Int, Int), inside: (Double, Double) -> Bool) {
        let (x0, y0, x1, y1) = bounds
        for y in max(0, y0)...min(height - 1, y1) {
            for x in max(0, x0)...min(width - 1, x1) {
                var covered = 0
                for sy in 0..<4 {
                    for sx in 0..<4 where inside(Double(x) + (Double(sx) + 0.5) / 4 - 0.5, Double(y) + (Double(sy) + 0.5) / 4 - 0.5) {
                        covered += 1
                    }
                }
                guard covered > 0 else { continue }
                let a = Double(covered) / 16
                let i = (y * width + x) * 3
                rgb[i] *= 1 - a + a * factor.0
                rgb[i + 1] *= 1 - a + a * factor.1
                rgb[i + 2] *= 1 - a + a * factor.2
            }
        }
    }

    /// A dead (trypan-blue) cell: a filled blue-grey disc.
    mutating func deadCell(x: Double, y: Double, r: Double) {
        paint(factor: (0.45, 0.55, 0.85), bounds: box(x, y, r)) { px, py in (px - x) * (px - x) + (py - y) * (py - y) <= r * r }
    }

    /// A live cell: a dark rim (0.7 r ... r) around a slightly bright centre.
    mutating func liveCell(x: Double, y: Double, r: Double) {
        paint(factor: (0.55, 0.55, 0.55), bounds: box(x, y, r)) { px, py in
            let d2 = (px - x) * (px - x) + (py - y) * (py - y)
            return d2 <= r * r && d2 >= 0.49 * r * r
        }
        paint(factor: (1.15, 1.15, 1.15), bounds: box(x, y, r)) { px, py in (px - x) * (px - x) + (py - y) * (py - y) <= 0.16 * r * r }
    }

    /// A dark grid: lines of `width` pixels every `spacing` pixels, rotated by `angle` radians.
    mutating func grid(spacing: Double, angle: Double, lineWidth: Double = 1.5, darkness: Double = 0.6) {
        let c = cos(angle), s = sin(angle)
        paint(factor: (darkness, darkness, darkness), bounds: (0, 0, width - 1, height - 1)) { px, py in
            let u = px * c + py * s, v = -px * s + py * c
            func near(_ t: Double) -> Bool {
                let m = t - (t / spacing).rounded(.down) * spacing
                return min(m, spacing - m) <= lineWidth / 2
            }
            return near(u) || near(v)
        }
    }

    /// Multiplies the colour between `inner` and `outer` pixels from (x, y) by `factor`
    /// (`inner` 0: a filled disc; `inner` excluded, `outer` included).
    mutating func annulus(x: Double, y: Double, inner: Double = 0, outer: Double, factor: (Double, Double, Double)) {
        paint(factor: factor, bounds: box(x, y, outer)) { px, py in
            let d2 = (px - x) * (px - x) + (py - y) * (py - y)
            return d2 <= outer * outer && (inner == 0 || d2 > inner * inner)
        }
    }

    /// Multiplies the colour inside the ellipse of semi-axes `a` (along x) and `b` (along y)
    /// about (x, y) by `factor`.
    mutating func ellipse(x: Double, y: Double, a: Double, b: Double, factor: (Double, Double, Double)) {
        paint(factor: factor, bounds: box(x, y, max(a, b))) { px, py in
            (px - x) * (px - x) / (a * a) + (py - y) * (py - y) / (b * b) <= 1
        }
    }

    private func box(_ x: Double, _ y: Double, _ r: Double) -> (Int, Int, Int, Int) {
        (Int((x - r - 1).rounded(.down)), Int((y - r - 1).rounded(.down)), Int((x + r + 1).rounded(.up)), Int((y + r + 1).rounded(.up)))
    }

    /// Gaussian blur of every channel (`gaussianBlur`, `sigma` pixels), as defocus.
    mutating func blur(sigma: Double) {
        for channel in 0..<3 {
            var plane = Plane(width: width, height: height)
            for i in 0..<(width * height) { plane.data[i] = Float(rgb[i * 3 + channel]) }
            let blurred = gaussianBlur(plane, sigma: sigma)
            for i in 0..<(width * height) { rgb[i * 3 + channel] = Double(blurred.data[i]) }
        }
    }

    /// The 8-bit image, optionally with deterministic noise of the given amplitude (0 ... 1).
    func image(noise: Double = 0) -> Image {
        var sequence = TestSequence(state: 0x9E37_79B9_7F4A_7C15)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<pixels.count {
            let n = (sequence.next() - 0.5) * 2 * noise
            pixels[i] = UInt8(max(0, min(255, ((rgb[i] + n) * 255).rounded())))
        }
        return Image(width: width, height: height, pixels: pixels)
    }
}

import Foundation

/// Greedy one-to-one matching of detections to truth within `tolerance` pixels, nearest pairs
/// first (the labels-v1 optimal matching gives the same pairs on these well-separated scenes).
func matchCount(_ detections: [Detection], _ truth: [(x: Double, y: Double)], tolerance: Double) -> Int {
    var pairs: [(Double, Int, Int)] = []
    for (i, d) in detections.enumerated() {
        for (j, t) in truth.enumerated() {
            let dist = ((d.x - t.x) * (d.x - t.x) + (d.y - t.y) * (d.y - t.y)).squareRoot()
            if dist <= tolerance { pairs.append((dist, i, j)) }
        }
    }
    pairs.sort { $0.0 < $1.0 }
    var usedD = Set<Int>(), usedT = Set<Int>()
    for (_, i, j) in pairs where !usedD.contains(i) && !usedT.contains(j) {
        usedD.insert(i)
        usedT.insert(j)
    }
    return usedD.count
}

/// The repository root (Goldens, TestLabels, Tests/Images), found from this file's location
/// (Tests/VisionTests/...).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

/// Whether a detection's centre lies within `distance` pixels of (x, y).
func hasDetection(_ detections: [Detection], near x: Double, _ y: Double, within distance: Double) -> Bool {
    detections.contains { isNear($0, x, y, within: distance) }
}

/// Whether the detection's centre lies within `distance` pixels of (x, y).
/// The distance from (x, y) to the nearest of `detections` (infinity when there is none).
func nearestDistance(_ detections: [Detection], to x: Double, _ y: Double) -> Double {
    detections.map { (($0.x - x) * ($0.x - x) + ($0.y - y) * ($0.y - y)).squareRoot() }.min() ?? .infinity
}

func isNear(_ d: Detection, _ x: Double, _ y: Double, within distance: Double) -> Bool {
    (d.x - x) * (d.x - x) + (d.y - y) * (d.y - y) <= distance * distance
}

/// The detections of the image at `path` (relative to the repository root) with the `base`
/// configuration (the default unless given) and with `change` applied to it: what one rule
/// does to one image.
func detectionsWithAndWithout(_ path: String, base: PipelineConfig = PipelineConfig(),
                              change: (inout PipelineConfig) -> Void) throws -> (with: [Detection], without: [Detection]) {
    let image = try Image.decode(file: repositoryRoot + "/" + path)
    var changed = base
    change(&changed)
    return (try Pipeline(config: base).run(image).detections, try Pipeline(config: changed).run(image).detections)
}

/// What switching one rule off (`off`) adds to the image at `path`: exactly one detection near
/// each of `positions` (within `tolerance` px, image pixels), and nothing else changes.
func expectDropsOnly(_ path: String, _ positions: [(Double, Double)], within tolerance: Double,
                     base: PipelineConfig = PipelineConfig(), off: (inout PipelineConfig) -> Void,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
    let (with, without) = try detectionsWithAndWithout(path, base: base, change: off)
    func dropped(_ d: Detection) -> Bool { positions.contains { isNear(d, $0.0, $0.1, within: tolerance) } }
    #expect(without.filter(dropped).count == positions.count,
            "not detected without the rule: the case no longer arises", sourceLocation: sourceLocation)
    #expect(with == without.filter { !dropped($0) }, sourceLocation: sourceLocation)
}

/// One Golden run with the default configuration and again with one setting changed (`off`):
/// the detections of each, and how many of each match a labelled cell within `tolerance` px.
struct SwitchedGoldenRun {
    let label: Label
    let with: [Detection]
    let without: [Detection]
    let matchedWith: Int
    let matchedWithout: Int
    var falseWith: Int { with.count - matchedWith }
    var falseWithout: Int { without.count - matchedWithout }

    /// - Parameters:
    ///   - name: the fixture's stem; its image is found in Goldens/ and its label in TestLabels/.
    ///   - base: the configuration `off` changes (the default unless given).
    init(golden name: String, extension ext: String, tolerance: Double, base: PipelineConfig = PipelineConfig(),
         off: (inout PipelineConfig) -> Void) throws {
        let image = try Image.decode(file: repositoryRoot + "/Goldens/\(name).\(ext)")
        label = try Label.load(path: repositoryRoot + "/TestLabels/\(name).json")
        var changed = base
        off(&changed)
        with = try Pipeline(config: base).run(image).detections
        without = try Pipeline(config: changed).run(image).detections
        let truth = label.cells.map { (x: $0.x, y: $0.y) }
        matchedWith = matchCount(with, truth, tolerance: tolerance)
        matchedWithout = matchCount(without, truth, tolerance: tolerance)
    }
}

/// The stain evidence of a drawn image at working scale 2, as the candidates stage forms it:
/// stain level 0.1, boundary threshold 4.5 gradient-noise units, the log luminance over its
/// median, smoothed.
func stainEvidence(_ image: Image) throws -> StainEvidence {
    let luminance = linearLuminance(image, factor: 2, glareLevel: 255, chromaLimit: 5).plane
    var sample = luminance.data
    let background = try #require(selectKth(&sample, sample.count / 2))
    let logLuminance = gaussianBlur(logPlane(luminance.map { $0 / background }), sigma: 0.7)
    return try #require(StainEvidence(image: image, scale: 2, level: 0.1, thresholdNoise: 4.5, logLuminance: logLuminance))
}
