import Testing
import JSON
import Imaging
import Hemocytometer
@testable import Vision

@Suite("Pipeline")
struct PipelineTests {
    /// A small config for small test images (cells of radius 6-10 px).
    static let config: PipelineConfig = {
        var c = PipelineConfig()
        c.minRadiusPx = 6
        c.maxRadiusPx = 10
        c.gridMinSpacingPx = 30
        c.gridMaxSpacingPx = 200
        return c
    }()

    @Test func stagesAreTimedInOrder() throws {
        let result = try Pipeline(config: Self.config).run(Canvas(width: 64, height: 48).image(noise: 0.01))
        #expect(result.timings.map(\.name) == ["normalize", "illumination", "grid", "candidates", "classify", "nms", "count"])
        #expect(result.timings.allSatisfy { $0.wallSeconds >= 0 && $0.cpuSeconds >= 0 })
    }

    /// The grid and candidates stages time their steps: in the order they ran, named as the
    /// candidate trace names them, laid end to end inside their stage (so they never add up to
    /// more than it); the grid's fallbacks appear only on a view where they ran.
    @Test func theLongStagesTimeTheirStepsInOrderWithinTheirStage() throws {
        var canvas = Canvas(width: 320, height: 240)
        canvas.grid(spacing: 80, angle: 0.04, lineWidth: 2, darkness: 0.55)
        for (x, y) in [(45.0, 50.0), (130, 60), (200, 150)] { canvas.liveCell(x: x, y: y, r: 8) }
        let ruled = try Pipeline(config: Self.config).run(canvas.image(noise: 0.01))
        #expect(ruled.grid != nil)
        let candidateOrder = ["maps", "detector", "pre-vote rim filter", "centre seeds", "core seeds", "centre vote",
                              "boundary test", "boundary size", "line crossings", "triple-line crossings",
                              "ruling windows", "stroke gaps", "rim circle", "ruling copies"]
        let candidateSteps = ruled.steps.filter { $0.stage == "candidates" }.map(\.step)
        #expect(Array(candidateSteps.prefix(3)) == ["maps", "detector", "pre-vote rim filter"])
        #expect(candidateSteps.contains("centre vote") && candidateSteps.contains("boundary test"))
        let positions = candidateSteps.compactMap { candidateOrder.firstIndex(of: $0) }
        #expect(positions.count == candidateSteps.count && positions == positions.sorted(), "\(candidateSteps)")
        let gridSteps = ruled.steps.filter { $0.stage == "grid" }.map(\.step)
        #expect(gridSteps.first == "line search" && gridSteps.contains("registration"), "\(gridSteps)")
        #expect(!gridSteps.contains("keystone fallback") && !gridSteps.contains("residue fallback"))
        #expect(ruled.steps.allSatisfy { $0.wallSeconds >= 0 && $0.cpuSeconds >= 0 })
        for stage in ruled.timings where stage.name == "grid" || stage.name == "candidates" {
            let steps = ruled.steps.filter { $0.stage == stage.name }
            #expect(steps.reduce(0) { $0 + $1.wallSeconds } <= stage.wallSeconds, "\(stage.name)")
        }
        // `cellqa count --json` gives them as "steps", in the same order.
        guard case .array(let json)? = ruled.jsonValue["steps"] else {
            Issue.record("no steps in the result's JSON")
            return
        }
        #expect(json.count == ruled.steps.count)
        #expect(json.first?["stage"] == .string("grid") && json.first?["step"] == .string("line search"))
        #expect(json.allSatisfy { $0["wallMs"] != nil && $0["cpuMs"] != nil })
        // A view without a ruling: the search's fallbacks ran, and nothing was registered.
        let blank = try Pipeline(config: Self.config).run(Canvas(width: 160, height: 120).image(noise: 0.01))
        let fallbacks = blank.steps.filter { $0.stage == "grid" }.map(\.step)
        #expect(fallbacks == ["line search", "keystone fallback", "residue fallback"]
                    || fallbacks == ["line search", "residue fallback"], "\(fallbacks)")
        #expect(blank.flags.contains("no-grid"))
    }

    @Test func findsAndClassifiesDrawnCells() throws {
        var canvas = Canvas(width: 200, height: 160)
        let live: [(Double, Double)] = [(40, 40), (120, 50), (70, 115)]
        let dead: [(Double, Double)] = [(160, 120), (150, 30)]
        for (x, y) in live { canvas.liveCell(x: x, y: y, r: 8) }
        for (x, y) in dead { canvas.deadCell(x: x, y: y, r: 8) }
        let result = try Pipeline(config: Self.config).run(canvas.image(noise: 0.02))
        let truth = (live + dead).map { (x: $0.0, y: $0.1) }
        #expect(result.detections.count == truth.count, "\(result.detections)")
        #expect(matchCount(result.detections, truth, tolerance: 4) == truth.count)
        for d in result.detections {
            let isDead = dead.contains { abs($0.0 - d.x) < 4 && abs($0.1 - d.y) < 4 }
            #expect(d.cellClass == (isDead ? .dead : .live), "\(d)")
        }
        #expect(result.count.total == 5 && result.count.dead == 2)
    }

    @Test func blankChamberWithGridAndNoiseHasNoDetections() throws {
        var canvas = Canvas(width: 240, height: 180)
        canvas.grid(spacing: 60, angle: 0.05, lineWidth: 2, darkness: 0.5)
        let result = try Pipeline(config: Self.config).run(canvas.image(noise: 0.03))
        #expect(result.detections.isEmpty, "\(result.detections)")
    }

    @Test func cellsOnAGridAreFoundAndTheGridIsReported() throws {
        var canvas = Canvas(width: 320, height: 240)
        canvas.grid(spacing: 80, angle: 0.04, lineWidth: 2, darkness: 0.55)
        let cells: [(Double, Double)] = [(45, 50), (130, 60), (200, 150), (270, 200), (100, 190)]
        for (x, y) in cells { canvas.liveCell(x: x, y: y, r: 8) }
        let result = try Pipeline(config: Self.config).run(canvas.image(noise: 0.01))
        #expect(result.grid != nil, "flags \(result.flags)")
        #expect(matchCount(result.detections, cells.map { (x: $0.0, y: $0.1) }, tolerance: 4) == cells.count, "\(result.detections)")
        #expect(result.detections.count <= cells.count + 1, "\(result.detections)")
    }

    @Test(arguments: [(1, 1), (2, 3), (7, 1), (1, 9), (0, 0)])
    func tinyAndEmptyImagesGiveAValidResult(width: Int, height: Int) throws {
        let image = Image(width: width, height: height, fill: (r: 120, g: 120, b: 120))
        let result = try Pipeline().run(image)
        #expect(result.detections.isEmpty)
        #expect(result.timings.count == 7)
        #expect(result.width == width && result.height == height)
    }

    /// Very wide and very tall images within the pixel limit: line removal's per-row block
    /// buffer once overflowed (a trap) on working rows about 7,000 pixels long (too few lines
    /// across the short side for a grid: the fibre directions run along the long one).
    @Test(arguments: [(14_000, 300), (300, 14_000)])
    func veryWideAndTallRuledImagesGiveAValidResult(width: Int, height: Int) throws {
        var pixels = [UInt8](repeating: 180, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width where x % 250 < 3 || y % 250 < 3 {
                let i = (y * width + x) * 3
                pixels[i] = 90; pixels[i + 1] = 90; pixels[i + 2] = 90
            }
        }
        let result = try Pipeline().run(Image(width: width, height: height, pixels: pixels))
        #expect(result.width == width && result.height == height)
        #expect(result.timings.count == 7)
    }

    @Test(arguments: [UInt8(0), 128, 255])
    func uniformImagesHaveNoCells(level: UInt8) throws {
        let result = try Pipeline(config: Self.config).run(Image(width: 120, height: 90, fill: (r: level, g: level, b: level)))
        #expect(result.detections.isEmpty)
        #expect(result.flags.contains("no-grid"))
        #expect(result.focusScore.isFinite && result.glareRatio.isFinite)
    }

    @Test func saturatedImageIsFlaggedAsGlare() throws {
        let result = try Pipeline(config: Self.config).run(Image(width: 50, height: 50, fill: (r: 255, g: 255, b: 255)))
        #expect(result.flags.contains("glare"))
        #expect(result.glareRatio == 1)
    }

    @Test func greyscaleImagesUseTheIntensityRule() throws {
        var canvas = Canvas(width: 160, height: 120, background: (0.6, 0.6, 0.6))
        canvas.liveCell(x: 50, y: 60, r: 8)
        // A dark cell without a bright centre.
        canvas.paint(factor: (0.5, 0.5, 0.5), bounds: (100, 50, 122, 72)) { px, py in (px - 111) * (px - 111) + (py - 61) * (py - 61) <= 64 }
        // A greyscale file: every pixel's three channels equal (noise and all).
        let noisy = canvas.image(noise: 0.01)
        let grey = Image(width: noisy.width, height: noisy.height,
                         pixels: noisy.pixels.indices.map { noisy.pixels[$0 / 3 * 3 + 1] })
        let result = try Pipeline(config: Self.config).run(grey)
        #expect(result.flags.contains("greyscale"))
        #expect(result.detections.count == 2, "\(result.detections)")
        let dead = result.detections.filter { $0.cellClass == .dead }
        #expect(dead.count == 1 && dead.first.map { abs($0.x - 111) < 3 } == true, "\(result.detections)")
    }

    /// A colour camera's picture of a grey scene carries a little colour in most pixels (a
    /// tint, the sensor's noise per channel, a JPEG's chroma): a colour image, whose hue the
    /// live/dead call and the debris rule use. Only a file of equal channels, give or take
    /// rounding, is greyscale.
    @Test func onlyEqualChannelsMakeAGreyscaleImage() throws {
        func flags(_ tint: (Int, Int, Int), noise: Int) throws -> [String] {
            var sequence = TestSequence(state: 11)
            var pixels = [UInt8](repeating: 0, count: 64 * 64 * 3)
            for p in 0..<(64 * 64) {
                let n = Int((sequence.next() * Double(2 * noise + 1)).rounded(.down)) - noise
                for (c, t) in [tint.0, tint.1, tint.2].enumerated() { pixels[p * 3 + c] = UInt8(150 + t + (c == 1 ? n : 0)) }
            }
            return try Pipeline(config: Self.config).run(Image(width: 64, height: 64, pixels: pixels)).flags
        }
        // Green off by up to 3 levels either way (rounding): greyscale.
        #expect(try flags((0, 0, 0), noise: 3).contains("greyscale"))
        // A warm tint of 4 levels across the whole picture: colour (the default of 0.02
        // before the twentieth session, 5 levels, called it greyscale).
        #expect(try !flags((4, 0, 0), noise: 0).contains("greyscale"))
        #expect(try !flags((0, 2, 6), noise: 1).contains("greyscale"))
    }

    @Test func resultIsDeterministic() throws {
        var canvas = Canvas(width: 160, height: 120)
        canvas.liveCell(x: 50, y: 60, r: 8)
        canvas.deadCell(x: 110, y: 50, r: 7)
        let image = canvas.image(noise: 0.03)
        let a = try Pipeline(config: Self.config).run(image), b = try Pipeline(config: Self.config).run(image)
        #expect(a.detections == b.detections && a.count == b.count && a.flags == b.flags)
    }

    @Test func thresholdDetectorAlsoFindsCells() throws {
        var config = Self.config
        config.detector = .threshold
        var canvas = Canvas(width: 160, height: 120)
        canvas.deadCell(x: 40, y: 40, r: 8)
        canvas.deadCell(x: 110, y: 80, r: 9)
        let result = try Pipeline(config: config).run(canvas.image(noise: 0.01))
        #expect(matchCount(result.detections, [(x: 40, y: 40), (x: 110, y: 80)], tolerance: 4) == 2, "\(result.detections)")
    }

    @Test func overlayDrawsDetections() throws {
        var canvas = Canvas(width: 100, height: 80)
        canvas.deadCell(x: 50, y: 40, r: 8)
        let image = canvas.image()
        let result = try Pipeline(config: Self.config).run(image)
        let overlay = drawOverlay(image, result: result)
        #expect(overlay.width == 100 && overlay != image)
    }

    /// `cellqa count --json` gives each detection's boundary coverage with its other fields.
    @Test func detectionJSONCarriesItsEvidence() {
        let count = ChamberCount(total: 1, live: 1, dead: 0, squares: [], meanPerSquare: nil, concentrationPerML: nil,
                                 viabilityPercent: nil, flags: [])
        let detection = Detection(x: 10.123, y: 20, r: 6, cellClass: .live, score: 12.34567, confidence: 0.9,
                                  coverage: 0.8125)
        let result = PipelineResult(width: 50, height: 50, detections: [detection], grid: nil, count: count,
                                    focusScore: 0, glareRatio: 0, flags: [], timings: [])
        guard case .object(let json) = result.jsonValue, case .array(let detections)? = json["detections"],
              case .object(let d)? = detections.first else {
            Issue.record("no detections array")
            return
        }
        #expect(d["x"] == .double(10.12) && d["r"] == .double(6) && d["label"] == .string("live"))
        #expect(d["score"] == .double(12.3457) && d["confidence"] == .double(0.9) && d["coverage"] == .double(0.8125))
    }

    @Test func overlayDrawsTheRegisteredRuling() {
        // 1 µm per pixel, image pixel (0, 0) at chamber (900, 900): the large-square border at
        // 1000 (a triple line) crosses the image at x = 100 and y = 100; the central square's
        // 50 µm line at 1050 runs only within that square (chamber 1000 ... 2000 across).
        let grid = GridResult(corners: [], umPerPixel: 1, angleDegrees: 0,
                              imageToChamber: [1, 0, 900, 0, 1, 900, 0, 0, 1])
        let count = ChamberCount(total: 0, live: 0, dead: 0, squares: [], meanPerSquare: nil, concentrationPerML: nil,
                                 viabilityPercent: nil, flags: [])
        let result = PipelineResult(width: 200, height: 200, detections: [], grid: grid, count: count,
                                    focusScore: 0, glareRatio: 0, flags: [], timings: [])
        let image = Image(width: 200, height: 200, fill: (r: 0, g: 0, b: 0))
        let overlay = drawOverlay(image, result: result)
        func isGrid(_ x: Int, _ y: Int) -> Bool {
            let p = overlay[x, y]
            return (p.r, p.g, p.b) == OverlayColor.grid
        }
        #expect(isGrid(100, 50) && isGrid(50, 100) && isGrid(100, 150))
        #expect(isGrid(150, 150) && isGrid(150, 130))
        // Outside the central square the 50 µm line is not drawn; between lines nothing is.
        #expect(!isGrid(150, 50) && !isGrid(50, 150) && !isGrid(30, 30) && !isGrid(125, 170))
        // Without a grid only detections are drawn.
        var bare = result
        bare.grid = nil
        #expect(drawOverlay(image, result: bare) == image)
    }
}
