import Foundation
import Testing
import Imaging
@testable import Vision

@Suite("A grey disc in a clump shows its halo only on the clump's outside")
struct HaloClumpTests {
    static let r = 7.0
    /// A clump of three grey discs of radius 7, the middle one (54, 40) touching the others
    /// (two radii away, one to its left and one below it, each in the middle of one of 16
    /// sectors: 191.25 and 101.25 degrees), a bright halo 1 ... 1.4 r round the
    /// clump's outline only (nowhere inside another disc), as a clump of cells a little out of
    /// focus shows; and, further off, a dark disc of debris (no halo) touching a lone halo cell
    /// on its left.
    static func clumpAndDebris() -> Image {
        var canvas = Canvas(width: 200, height: 80)
        let discs: [(x: Double, y: Double)] = [(40.27, 37.27), (54, 40), (51.27, 53.73), (130, 40)]
        func inside(_ x: Double, _ y: Double, _ reach: Double) -> Bool {
            discs.contains { ($0.x - x) * ($0.x - x) + ($0.y - y) * ($0.y - y) <= reach * reach }
        }
        // The halo fades where it nears a second disc: each point's halo is its nearest disc's,
        // drawn only 1.8 r or more from every other disc.
        canvas.paint(factor: (1.12, 1.12, 1.12), bounds: (20, 20, 150, 70)) { x, y in
            let d = discs.map { (($0.x - x) * ($0.x - x) + ($0.y - y) * ($0.y - y)).squareRoot() }.sorted()
            return d[0] >= r && d[0] <= 1.4 * r && d[1] >= 1.8 * r
        }
        for d in discs { canvas.annulus(x: d.x, y: d.y, outer: r, factor: (0.86, 0.86, 0.86)) }
        canvas.annulus(x: 144, y: 40, outer: r, factor: (0.8, 0.79, 0.78))
        canvas.blur(sigma: 0.8)
        return canvas.image(noise: 0.01)
    }

    /// The middle disc's two neighbours fill six sectors; counted over the other ten, its halo
    /// shows in enough, where over all sixteen (or with the neighbours' sectors blocked but
    /// too few left open for the scaled count) it falls short.
    @Test func theFreeSectorsShowTheMiddleDiscsHalo() {
        let image = Self.clumpAndDebris()
        let neighbours: [(x: Double, y: Double, r: Double)] = [(40.27, 37.27, Self.r), (51.27, 53.73, Self.r)]
        let facing = TouchingNeighbours.sectors(x: 54, y: 40, r: Self.r, among: neighbours,
                                                position: { $0 }, accepts: { _ in true })
        #expect(facing.count(where: { $0 }) == 6, "\(facing)")
        let plain = haloSectors(image, x: 54, y: 40, r: Self.r, contrast: 0.03, blockedDarkness: 0.12, minOpenSectors: 12)
        let excused = haloSectors(image, x: 54, y: 40, r: Self.r, contrast: 0.03, blockedDarkness: 0.12,
                                  minOpenSectors: 12, excused: facing, minExcusedOpen: 8)
        #expect(plain < 10, "the case no longer arises: \(plain) sectors without the excuse")
        #expect(excused >= 10, "\(excused)")
        // Asked for more free sectors than the neighbours leave, the count is the plain one.
        #expect(haloSectors(image, x: 54, y: 40, r: Self.r, contrast: 0.03, blockedDarkness: 0.12,
                            minOpenSectors: 12, excused: facing, minExcusedOpen: 11) == plain)
        // Debris beside a cell shows no halo in the sectors the cell leaves free.
        let beside = TouchingNeighbours.sectors(x: 144, y: 40, r: Self.r, among: [(130, 40, Self.r)],
                                                position: { $0 }, accepts: { _ in true })
        #expect(haloSectors(image, x: 144, y: 40, r: Self.r, contrast: 0.03, blockedDarkness: 0.12,
                            minOpenSectors: 12, excused: beside, minExcusedOpen: 8) < 10)
    }

    /// Through the whole pipeline: all three discs of the clump and the lone cell are counted,
    /// the middle one with `--explain` saying why; the debris beside the cell is not. Off, the
    /// middle disc is dropped as debris.
    @Test func thePipelineCountsTheClumpAndSaysWhy() throws {
        let image = Self.clumpAndDebris()
        func found(_ result: PipelineResult, _ x: Double, _ y: Double = 40) -> Bool {
            result.detections.contains { abs($0.x - x) < 2 && abs($0.y - y) < 2 && $0.cellClass == .live }
        }
        let (result, trace) = try Pipeline(config: PipelineConfig()).explain(image, probes: [.init(x: 54, y: 40)], reach: 3)
        #expect(found(result, 40.27, 37.27) && found(result, 54) && found(result, 51.27, 53.73) && found(result, 130),
                "\(result.detections)")
        #expect(!result.detections.contains { abs($0.x - 144) < 4 && abs($0.y - 40) < 4 })
        let note = try #require(trace.entries[0].first { $0.step == "classify (verdicts)" }?.nearest?.note)
        #expect(note.hasPrefix("live: ") && note.contains(", halo beside touching cells "), "\(note)")
        var off = PipelineConfig()
        off.haloClumpOpenSectors = 0
        let without = try Pipeline(config: off).run(image)
        #expect(found(without, 40.27, 37.27) && !found(without, 54) && found(without, 51.27, 53.73), "\(without.detections)")
    }

    @Test func theSettingIsAConfigurationKey() throws {
        try expectConfigurationKey("haloClumpOpenSectors", off: "0", reads: 0, through: \.haloClumpOpenSectors,
                                   defaultText: "8", invalid: "17")
    }
}
