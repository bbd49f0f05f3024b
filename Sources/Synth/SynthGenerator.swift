import Fixtures
import Imaging

/// One synthetic fixture: the picture and its exact labels-v1 truth.
public struct SynthFixture: Sendable, Equatable {
    /// A file stem naming preset, seed and index, e.g. `standard-s7-003`.
    public var name: String
    public var image: Image
    public var label: Label
}

/// Makes realistic bright-field pictures of a Neubauer-improved chamber with trypan-blue
/// stained cells, and their labels. Deterministic: the same preset, seed, size and index
/// always give the same pixels and label, on any machine.
public struct SynthGenerator: Sendable {
    public let preset: SynthPreset
    public let seed: UInt64
    public let width: Int
    public let height: Int
    /// Whether the chamber's ruling is drawn.
    public let ruled: Bool

    /// - Parameters:
    ///   - preset: the family of conditions to draw from.
    ///   - seed: any value; batches with different seeds are unrelated.
    ///   - width, height: image size in pixels (at least 16 x 16). Cell sizes stay those of a
    ///     1920 x 1080 picture, so a smaller image shows a smaller field of view.
    ///   - ruled: false draws the same pictures without the ruling: views in which no line
    ///     shows, labelled without a calibration, named `<preset>-unruled-s<seed>-<index>`
    ///     and tagged "no-ruling".
    public init(preset: SynthPreset, seed: UInt64, width: Int = 1920, height: Int = 1080,
                ruled: Bool = true) throws(SynthError) {
        guard width >= 16, height >= 16, width <= 16_384, height <= 16_384 else {
            throw SynthError.invalidSize(width: width, height: height)
        }
        self.preset = preset
        self.seed = seed
        self.width = width
        self.height = height
        self.ruled = ruled
    }

    /// The `index`-th fixture of this batch.
    public func make(index: Int) -> SynthFixture {
        var rng = stream(index: index)
        let scene = SceneSampler(preset: preset, width: width, height: height, ruled: ruled).sample(&rng)
        var layer = CellLayer(width: width, height: height)
        layer.draw(scene)
        let image = ImageComposer(scene: scene).compose(layer, &rng)
        return SynthFixture(name: fixtureName(index: index), image: image, label: label(for: scene))
    }

    /// The label `make(index:)` would give, without drawing the picture (the scene is drawn
    /// from the stream before any pixel noise), e.g. to check committed fixtures cheaply.
    public func label(index: Int) -> Label {
        var rng = stream(index: index)
        return label(for: SceneSampler(preset: preset, width: width, height: height, ruled: ruled).sample(&rng))
    }

    private func stream(index: Int) -> SeededRandom {
        let presetNumber = UInt64(SynthPreset.allCases.firstIndex(of: preset) ?? 0)
        return SeededRandom(seed: seed, stream: UInt64(truncatingIfNeeded: index) &* 16 &+ presetNumber)
    }

    public func fixtureName(index: Int) -> String {
        let number = String(index)
        let padded = String(repeating: "0", count: max(0, 3 - number.count)) + number
        return "\(preset.rawValue)\(ruled ? "" : "-unruled")-s\(seed)-\(padded)"
    }

    private func label(for scene: SynthScene) -> Label {
        let cells = scene.cells.map {
            LabelledCell(x: rounded($0.x), y: rounded($0.y), r: rounded($0.radius), label: $0.isDead ? .dead : .live)
        }
        let corners = [(0.0, 0.0), (ChamberRuling.ruledAreaUm, 0), (ChamberRuling.ruledAreaUm, ChamberRuling.ruledAreaUm),
                       (0, ChamberRuling.ruledAreaUm)].map { corner in
            let p = scene.chamberToImage.apply(corner.0, corner.1)
            return PixelPoint(x: rounded(p.x), y: rounded(p.y))
        }
        let total = cells.count
        let dead = cells.count { $0.label == .dead }
        let expect: CountExpectations
        if total == 0 {
            expect = CountExpectations(total: CountRange(min: 0, max: 0))
        } else {
            expect = CountExpectations(total: tolerance(total, relative: 0.1, absolute: 3),
                                       dead: tolerance(dead, relative: 0.2, absolute: 3))
        }
        // A view without the ruling cannot be calibrated from the picture; the label says
        // only what the picture shows.
        return Label(width: scene.width, height: scene.height,
                     umPerPixel: scene.ruled ? rounded(scene.umPerPixel, places: 1e6) : nil,
                     dilution: scene.dilution, grid: scene.ruled ? LabelGrid(corners: corners) : nil, cells: cells,
                     expect: expect, tags: scene.tags)
    }

    /// A range around a true count: +/- max(absolute, relative x count).
    private func tolerance(_ count: Int, relative: Double, absolute: Int) -> CountRange {
        let slack = max(absolute, Int((Double(count) * relative).rounded(.up)))
        return CountRange(min: max(0, count - slack), max: count + slack)
    }

    /// Labels carry 1/1000 px, far below any detector's precision, to keep files small.
    private func rounded(_ v: Double, places: Double = 1000) -> Double {
        (v * places).rounded() / places
    }
}

public enum SynthError: Error, Equatable, CustomStringConvertible {
    case invalidSize(width: Int, height: Int)
    case unknownPreset(String)

    public var description: String {
        switch self {
        case let .invalidSize(width, height):
            return "synth: image size \(width)x\(height) is outside 16...16384 pixels per side"
        case let .unknownPreset(name):
            let names = SynthPreset.allCases.map(\.rawValue).joined(separator: ", ")
            return "synth: unknown preset \"\(name)\" (expected one of: \(names))"
        }
    }
}

extension SynthPreset {
    /// Parses a preset name as written on the command line.
    public init(name: String) throws(SynthError) {
        guard let preset = SynthPreset(rawValue: name) else { throw SynthError.unknownPreset(name) }
        self = preset
    }
}
