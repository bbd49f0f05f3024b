import Fixtures
import Foundation
import Imaging
import Testing
@testable import Vision

/// `faintStainShare`: a dead cell that took up little dye is as blue as a stained one, only
/// paler; below the image's dead threshold it was called live, and a dark one then dropped by
/// the debris rule as an unstained blob. Grey debris, specks smaller than a cell, clear cells
/// with a bright centre and candidates on the ruling lines stay as they were.
@Suite("A dark disc with a faint blue stain is a dead cell, not debris")
struct FaintStainTests {
    /// A 120 x 120 canvas with a disc of `radius` px at (60, 60) multiplied by `factor`, blurred
    /// by `sigma`.
    static func disc(radius: Double, factor: (Double, Double, Double), sigma: Double = 1) -> Image {
        var canvas = Canvas(width: 120, height: 120, background: (0.75, 0.74, 0.72))
        canvas.annulus(x: 60, y: 60, outer: radius, factor: factor)
        canvas.blur(sigma: sigma)
        return canvas.image(noise: 0.005)
    }

    /// Pale blue: white-balanced saturation about 0.08, below the 0.12 dead threshold.
    static let paleBlue = (0.70, 0.71, 0.73)
    static let grey = (0.72, 0.72, 0.72)

    static func judge(_ image: Image, r: Double = 7, onLine: Bool = false, onLineMap: Bool = false)
        -> (CellAppearance, FaintStain?) {
        var c = Candidate(x: 60, y: 60, r: r, score: 1, contrast: 0.2)
        if onLine { c.lineStep = PixelStep(dx: 1, dy: 0) }
        c.onRulingLine = onLineMap
        let a = measureAppearance(image, x: 60, y: 60, r: r)
        return (a, faintStain(a, of: c, in: image, saturationThreshold: 0.12, config: PipelineConfig()))
    }

    static func calledLive(_ a: CellAppearance) -> Bool {
        classifyCell(a, greyscale: false, saturationThreshold: 0.12, config: PipelineConfig()).0 == .live
    }

    @Test func aPaleBlueDiscIsFaintlyStainedAndGreyOrSmallOrOnALineIsNot() {
        let (pale, faint) = Self.judge(Self.disc(radius: 7, factor: Self.paleBlue))
        #expect(Self.calledLive(pale), "the case needs a stain too faint for the dead threshold: \(pale)")
        #expect(isUnstainedDark(pale, config: PipelineConfig()), "the case needs a disc the debris rule judges: \(pale)")
        #expect(faint == .darkDisc, "\(pale)")
        let (grey, greyFaint) = Self.judge(Self.disc(radius: 7, factor: Self.grey))
        #expect(greyFaint == nil, "\(grey)")
        // A pale blue speck blurred to a cell's size, judged at the smallest cell's radius.
        let (_, speckFaint) = Self.judge(Self.disc(radius: 2.5, factor: (0.4, 0.45, 0.55), sigma: 2), r: 5)
        #expect(speckFaint == nil)
        #expect(Self.judge(Self.disc(radius: 7, factor: Self.paleBlue), onLine: true).1 == nil)
        #expect(Self.judge(Self.disc(radius: 7, factor: Self.paleBlue), onLineMap: true).1 == nil)
    }

    /// A pale blue cell inside a darker rim (a clear ring: the debris rule keeps it) is dead;
    /// the same with a bright refractile centre is a live cell in a bluish light.
    @Test func aPaleRingedCellIsDeadUnlessItsCentreIsBright() {
        func ringed(centre: Double) -> Image {
            var canvas = Canvas(width: 120, height: 120, background: (0.75, 0.74, 0.72))
            canvas.annulus(x: 60, y: 60, inner: 5, outer: 7, factor: (0.7, 0.7, 0.72))
            canvas.annulus(x: 60, y: 60, outer: 5, factor: (0.86, 0.87, 0.91))
            if centre > 1 { canvas.annulus(x: 60, y: 60, outer: 2, factor: (centre, centre, centre)) }
            canvas.blur(sigma: 0.8)
            return canvas.image(noise: 0.005)
        }
        let (pale, call) = Self.judge(ringed(centre: 1))
        #expect(Self.calledLive(pale) && !isUnstainedDark(pale, config: PipelineConfig()), "\(pale)")
        #expect(call == .paleCell, "\(pale)")
        let (bright, brightCall) = Self.judge(ringed(centre: 1.3))
        #expect(bright.centreContrast >= PipelineConfig().refractileContrast, "\(bright)")
        #expect(brightCall == nil, "\(bright)")
    }

    /// A `hard` view of the fourth generator (blurred, JPEG q60, a greenish cast) with 95
    /// labelled dead cells, many of them pale: without the rule 16 of them are dropped as
    /// debris and 10 found ones are called live (4 with it). With it each detection it adds lies on a
    /// labelled dead cell, every cell found without it is still found, and no labelled live
    /// cell is called dead.
    @Test func thePaleDeadCellsOfABlurredViewAreFoundAndCalledDead() throws {
        let (with, without) = try detectionsWithAndWithout("Tests/Images/faint-dead-cells.jpg") {
            $0.faintStainShare = 0
        }
        let label = try Label.load(path: repositoryRoot + "/Tests/Images/faint-dead-cells.json")
        func cell(of d: Detection) -> LabelledCell? {
            label.cells.first { c in
                let reach = 0.5 * (c.r ?? 10)
                return (d.x - c.x) * (d.x - c.x) + (d.y - c.y) * (d.y - c.y) <= reach * reach
            }
        }
        let added = with.filter { d in !without.contains { isNear($0, d.x, d.y, within: 2) } }
        #expect(added.count >= 14, "the pale cells are no longer dropped without the rule: the case no longer arises")
        for d in added {
            #expect(cell(of: d)?.label == .dead && d.cellClass == .dead, "added at (\(d.x), \(d.y))")
        }
        let foundWithout = Set(without.compactMap { cell(of: $0) }.map { "\($0.x),\($0.y)" })
        let foundWith = Set(with.compactMap { cell(of: $0) }.map { "\($0.x),\($0.y)" })
        #expect(foundWithout.isSubset(of: foundWith))
        func deadCalledLive(_ detections: [Detection]) -> Int {
            detections.count { cell(of: $0)?.label == .dead && $0.cellClass == .live }
        }
        #expect(deadCalledLive(without) - deadCalledLive(with) >= 5, "\(deadCalledLive(without)) -> \(deadCalledLive(with))")
        #expect(!with.contains { cell(of: $0)?.label == .live && $0.cellClass == .dead })
    }

    /// `--explain` names the call and the stain it was made on.
    @Test func theTraceSaysDeadOnAFaintStain() throws {
        let image = try Image.decode(file: repositoryRoot + "/Tests/Images/faint-dead-cells.jpg")
        let (_, trace) = try Pipeline(config: PipelineConfig()).explain(image, probes: [.init(x: 229.0, y: 39.1)], reach: 3)
        let note = try #require(trace.entries[0].first { $0.step == "classify (verdicts)" }?.nearest?.note)
        #expect(note.hasPrefix("dead on a faint stain: hue ") && note.contains(", saturation "), "\(note)")
    }

    /// A blank control's grey debris takes a blue cast from noise: with no cell called dead
    /// on its stain, the rule is not asked.
    @Test func anImageWithoutStainedCellsIsNotAsked() throws {
        let (with, without) = try detectionsWithAndWithout("Tests/Images/faint-dead-cells.jpg") {
            $0.faintStainMinDeadCells = 10_000
        }
        let (_, off) = try detectionsWithAndWithout("Tests/Images/faint-dead-cells.jpg") { $0.faintStainShare = 0 }
        #expect(with.count > without.count)
        #expect(without == off)
    }

    @Test func theFaintStainSettingsAreConfigurationKeys() throws {
        try expectConfigurationKey("faintStainShare", off: "0", reads: 0.0, through: \.faintStainShare,
                                   defaultText: "0.5", invalid: "1.5")
        try expectConfigurationKey("faintStainMinDeadCells", off: "0", reads: 0, through: \.faintStainMinDeadCells,
                                   defaultText: "3", invalid: "-1")
    }
}
