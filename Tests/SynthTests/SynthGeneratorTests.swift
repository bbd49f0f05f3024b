import Fixtures
import Foundation
import Imaging
import Testing
@testable import Synth

@Suite("Synthetic fixtures")
struct SynthGeneratorTests {
    /// Small pictures keep the debug-build tests fast; cells keep their real pixel size.
    static let width = 320
    static let height = 240

    private func generator(_ preset: SynthPreset, seed: UInt64 = 11) throws -> SynthGenerator {
        try SynthGenerator(preset: preset, seed: seed, width: SynthGeneratorTests.width, height: SynthGeneratorTests.height)
    }

    @Test("same seed and index give identical pixels, label and PNG bytes")
    func deterministic() throws {
        let a = try generator(.hard).make(index: 3)
        let b = try generator(.hard).make(index: 3)
        #expect(a == b)
        #expect(try a.image.pngData() == b.image.pngData())
        #expect(a.label.jsonValue.serialized() == b.label.jsonValue.serialized())
    }

    /// The same scene without the ruling: the same cells, a label that claims no calibration
    /// (the picture cannot give one), and a picture whose only change is where lines were.
    @Test("without the ruling: the same cells and a label without a calibration", arguments: [SynthPreset.standard, .tilted])
    func unruled(preset: SynthPreset) throws {
        let ruled = try generator(preset).make(index: 2)
        let plain = try SynthGenerator(preset: preset, seed: 11, width: SynthGeneratorTests.width,
                                       height: SynthGeneratorTests.height, ruled: false).make(index: 2)
        #expect(plain.label.cells == ruled.label.cells)
        #expect(ruled.label.umPerPixel != nil && ruled.label.grid != nil)
        #expect(plain.label.umPerPixel == nil && plain.label.grid == nil)
        #expect(plain.name == "\(preset.rawValue)-unruled-s11-002")
        #expect(plain.label.tags.first == preset.rawValue && plain.label.tags.last == "no-ruling")
        #expect(!plain.label.tags.contains { ["heavy-grid", "bright-grid"].contains($0) })
        #expect(plain.label.check(imageWidth: plain.image.width, imageHeight: plain.image.height).isEmpty)
        // The sensor noise is drawn alike, so the two pictures differ only where lines were
        // drawn: some pixels, not most.
        let differing = zip(plain.image.pixels, ruled.image.pixels).count { $0 != $1 }
        let share = Double(differing) / Double(plain.image.pixels.count)
        #expect(share > 0.005 && share < 0.6, "\(share) of the samples differ")
    }

    @Test("different seeds, indices and presets give different fixtures")
    func varies() throws {
        let base = try generator(.standard).make(index: 0)
        #expect(try generator(.standard).make(index: 1).image != base.image)
        #expect(try generator(.standard, seed: 12).make(index: 0).image != base.image)
        #expect(try generator(.dense).make(index: 0).image != base.image)
    }

    @Test("labels round-trip through the labels-v1 parser and pass its image checks",
          arguments: SynthPreset.allCases)
    func labelsValid(preset: SynthPreset) throws {
        let fixture = try generator(preset).make(index: 0)
        let text = fixture.label.jsonValue.serialized()
        let parsed = try Label.parse(Array(text.utf8), file: "\(fixture.name).json")
        #expect(parsed == fixture.label)
        #expect(parsed.check(imageWidth: fixture.image.width, imageHeight: fixture.image.height).isEmpty)
        #expect(parsed.width == SynthGeneratorTests.width && parsed.height == SynthGeneratorTests.height)
        #expect(parsed.tags.first == preset.rawValue)
        #expect(Set(parsed.tags).count == parsed.tags.count)
        #expect(fixture.name == "\(preset.rawValue)-s11-000")
    }

    @Test("every cell centre lies inside the image, with a plausible radius and a class",
          arguments: [SynthPreset.standard, .dense, .hard])
    func cellsInside(preset: SynthPreset) throws {
        for index in 0..<3 {
            let label = try generator(preset).make(index: index).label
            for cell in label.cells {
                #expect(cell.x >= 0 && cell.x <= Double(SynthGeneratorTests.width - 1))
                #expect(cell.y >= 0 && cell.y <= Double(SynthGeneratorTests.height - 1))
                let r = try #require(cell.r)
                #expect(r >= 3.5 && r <= 13.5)
                #expect(cell.label != nil)
            }
        }
    }

    @Test("blank controls have no cells, the blank-control tag and a zero expectation")
    func blank() throws {
        for index in 0..<4 {
            let label = try generator(.blank).make(index: index).label
            #expect(label.cells.isEmpty)
            #expect(label.tags.contains("blank-control"))
            #expect(label.expect?.total == CountRange(min: 0, max: 0))
        }
    }

    @Test("preset character: density, dead share, tilt, blur")
    func presetProperties() throws {
        let megapixels = Double(SynthGeneratorTests.width * SynthGeneratorTests.height) / 1e6
        var dense = 0, sparse = 0, deadHeavyDead = 0, deadHeavyAll = 0
        for index in 0..<4 {
            dense += try generator(.dense).make(index: index).label.cells.count
            sparse += try generator(.sparse).make(index: index).label.cells.count
            let label = try generator(.deadHeavy).make(index: index).label
            deadHeavyDead += label.deadCount
            deadHeavyAll += label.cells.count
            let tilted = try generator(.tilted).make(index: index).label
            #expect(tilted.tags.contains("tilted"))
            var rng = SeededRandom(seed: UInt64(index))
            let scene = SceneSampler(preset: .tilted, width: 320, height: 240).sample(&rng)
            #expect(scene.rotationDegrees.magnitude >= 4 && scene.rotationDegrees.magnitude <= 8)
            #expect(try generator(.blurred).make(index: index).label.tags.contains("blurred"))
        }
        // dense draws 420-650 cells per megapixel, sparse 5-25.
        #expect(Double(dense) / 4 >= 350 * megapixels)
        #expect(Double(sparse) / 4 <= 30 * megapixels)
        #expect(Double(deadHeavyDead) >= 0.45 * Double(deadHeavyAll))
    }

    @Test("grid corners agree with the calibration")
    func gridMatchesCalibration() throws {
        for preset in [SynthPreset.standard, .tilted] {
            let label = try generator(preset).make(index: 2).label
            let grid = try #require(label.grid)
            let um = try #require(label.umPerPixel)
            let top = hypot(grid.corners[1].x - grid.corners[0].x, grid.corners[1].y - grid.corners[0].y)
            let left = hypot(grid.corners[3].x - grid.corners[0].x, grid.corners[3].y - grid.corners[0].y)
            // Perspective stretches edges far from the image centre by up to ~ +/-15 %.
            #expect(abs(top * um / 3000 - 1) < 0.2)
            #expect(abs(left * um / 3000 - 1) < 0.2)
        }
    }

    @Test("drawn cells match their labels: dead cells are blue, live cells have a dark rim")
    func renderingMatchesLabels() throws {
        // dead-heavy never uses a monochrome camera, so the stain shows as colour.
        let fixture = try SynthGenerator(preset: .deadHeavy, seed: 5, width: 400, height: 300).make(index: 0)
        let image = fixture.image
        var deadBlueness: [Double] = []
        var liveRimContrast: [Double] = []
        for cell in fixture.label.cells {
            let r = try #require(cell.r)
            guard cell.x > r + 3, cell.y > r + 3, cell.x < Double(image.width) - r - 4,
                  cell.y < Double(image.height) - r - 4 else { continue }
            let centre = mean(image, x: cell.x, y: cell.y, radius: 1)
            if cell.label == .dead {
                deadBlueness.append(centre.b - centre.r)
            } else {
                let ring = ringMean(image, cell.x, cell.y, radius: r * 0.93)
                liveRimContrast.append(centre.grey - ring)
            }
        }
        let background = backgroundBlueness(image, fixture.label)
        #expect(!liveRimContrast.isEmpty)
        #expect(!deadBlueness.isEmpty)
        #expect(deadBlueness.reduce(0, +) / Double(max(deadBlueness.count, 1)) > background + 10)
        let brighterCentre = liveRimContrast.filter { $0 > 0 }.count
        #expect(Double(brighterCentre) >= 0.8 * Double(liveRimContrast.count))
    }

    @Test("monochrome fixtures are grey and tagged")
    func greyscale() throws {
        let generator = try SynthGenerator(preset: .hard, seed: 3, width: 96, height: 64)
        let fixture = try #require((0..<60).lazy.map { generator.make(index: $0) }.first {
            $0.label.tags.contains("greyscale")
        })
        let pixels = fixture.image.pixels
        var coloured = 0
        for i in stride(from: 0, to: pixels.count, by: 3) where pixels[i] != pixels[i + 1] || pixels[i] != pixels[i + 2] {
            coloured += 1
        }
        #expect(coloured == 0)
    }

    @Test("invalid sizes and preset names are typed errors")
    func errors() {
        #expect(throws: SynthError.invalidSize(width: 8, height: 100)) {
            try SynthGenerator(preset: .standard, seed: 1, width: 8, height: 100)
        }
        #expect(throws: SynthError.unknownPreset("busy")) { try SynthPreset(name: "busy") }
        #expect(throws: Never.self) { try SynthPreset(name: "dead-heavy") }
    }

    // MARK: helpers

    private func pixel(_ image: Image, _ x: Int, _ y: Int) -> (r: Double, g: Double, b: Double) {
        let p = image[x, y]
        return (Double(p.r), Double(p.g), Double(p.b))
    }

    private func mean(_ image: Image, x: Double, y: Double, radius: Int) -> (r: Double, b: Double, grey: Double) {
        var r = 0.0, g = 0.0, b = 0.0, n = 0.0
        let cx = Int(x.rounded()), cy = Int(y.rounded())
        for yy in (cy - radius)...(cy + radius) {
            for xx in (cx - radius)...(cx + radius) {
                let p = pixel(image, xx, yy)
                r += p.r; g += p.g; b += p.b; n += 1
            }
        }
        return (r / n, b / n, (r + g + b) / (3 * n))
    }

    private func ringMean(_ image: Image, _ x: Double, _ y: Double, radius: Double) -> Double {
        var sum = 0.0
        for k in 0..<24 {
            let a = Double(k) * 2 * .pi / 24
            let p = pixel(image, Int((x + radius * cos(a)).rounded()), Int((y + radius * sin(a)).rounded()))
            sum += (p.r + p.g + p.b) / 3
        }
        return sum / 24
    }

    /// Mean b - r over pixels at least 20 px from any cell.
    private func backgroundBlueness(_ image: Image, _ label: Label) -> Double {
        var sum = 0.0, n = 0.0
        for y in stride(from: 2, to: image.height - 2, by: 7) {
            for x in stride(from: 2, to: image.width - 2, by: 7) {
                let far = label.cells.allSatisfy { hypot($0.x - Double(x), $0.y - Double(y)) > 20 }
                if far {
                    let p = pixel(image, x, y)
                    sum += p.b - p.r
                    n += 1
                }
            }
        }
        return n > 0 ? sum / n : 0
    }
}
