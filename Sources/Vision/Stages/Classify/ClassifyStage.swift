import Foundation
import Imaging

/// Stage 5: live/dead call for every candidate; candidates become detections, except dark
/// unstained debris in colour images (`debrisVerdict`) and dark specks called dead in
/// greyscale ones (`greyDiscVerdict`). A dark candidate with a faint blue stain is called dead
/// rather than judged as debris, and a pale one darker than the background without a refractile
/// centre is called dead rather than live (`faintStain`).
struct ClassifyStage: Stage {
    let name = "classify"

    func run(_ frame: inout Frame) throws {
        let config = frame.config
        let image = frame.image
        // Row band by row band: each window reads about 4.4 r rows of the full-resolution
        // image, which the candidates' order (by score, all over the image) found cold.
        let appearances = inSpatialOrder(frame.candidates) { measureAppearance(image, x: $0.x, y: $0.y, r: $0.r) }
        // Adaptive saturation threshold: Otsu over the candidates' saturations, kept between
        // the configured floor and twice it (so an all-live or all-dead image is not split).
        var threshold = config.minDeadSaturation
        if appearances.count >= 8 {
            var hist = [Double](repeating: 0, count: 64)
            for a in appearances { hist[min(63, Int(a.saturation * 64))] += 1 }
            if let bin = otsuBin(histogram: hist) {
                threshold = min(max(config.minDeadSaturation, Double(bin + 1) / 64), 2 * config.minDeadSaturation)
            }
        }
        let firstCalls = appearances.map {
            classifyCell($0, greyscale: frame.isGreyscale, saturationThreshold: threshold, config: config)
        }
        // The smallest cell radius, image pixels, to which the candidates stage raises every
        // candidate's (`darkSpeckMaxRadius`).
        let smallestRadius = frame.minRadius * Double(frame.scale)
        let faintStainAsked = !frame.isGreyscale && config.faintStainShare > 0
            && firstCalls.count(where: { $0.0 == .dead }) >= config.faintStainMinDeadCells
        // Per candidate: its call, the appearance the debris rule judged and its verdict (nil:
        // not judged), and what a faint stain made of it (`faintStain`).
        var calls = zip(frame.candidates, zip(appearances, firstCalls)).map { c, measured in
            let (a, (firstClass, firstConfidence)) = measured
            let faint = faintStainAsked && firstClass == .live
                ? faintStain(a, of: c, in: image, saturationThreshold: threshold, config: config) : nil
            let (cls, conf) = faint != nil ? (CellClass.dead, 0.5) : (firstClass, firstConfidence)
            let judged = !frame.isGreyscale && cls == .live ? lineRelative(a, of: c, in: image) : nil
            let verdict = judged.map { a in
                isDarkSpeck(a, r: c.r, smallestRadius: smallestRadius, config: config)
                    ? DebrisVerdict(debris: true, speck: true)
                    : debrisVerdict(a, x: c.x, y: c.y, r: c.r, onLine: c.lineStep != nil, in: image, config: config)
            } ?? (frame.isGreyscale ? greyVerdict(cls, a, of: c, smallestRadius: smallestRadius, in: image, config: config) : nil)
            return (detection: Detection(x: c.x, y: c.y, r: c.r, cellClass: cls, score: c.score, confidence: conf,
                                         coverage: c.coverage, centred: c.centred), judged: judged, verdict: verdict,
                    debris: verdict?.debris ?? false, faint: faint, measured: a)
        }
        keepHaloedCellsInClumps(&calls, in: image, config: config)
        // A dark disc the faint stain kept from the debris rule would take a detection's place
        // where it overlaps one (a spot between two cells that reads bluish): it gives way
        // before duplicate suppression.
        if calls.contains(where: { $0.faint == .darkDisc }) {
            let rule = OverlapRule(maxIoU: config.nmsIoU, minCentreDistance: config.nmsMinCentreDistance)
            let others = calls.filter { !$0.debris && $0.faint != .darkDisc }.map(\.detection)
            var grid = NeighbourGrid(largestRadius: calls.map(\.detection.r).max() ?? 1)
            for (j, d) in others.enumerated() { grid.insert(j, d) }
            for i in calls.indices where calls[i].faint == .darkDisc
                && grid.contains(near: calls[i].detection, where: { rule.conflict(calls[i].detection, others[$0]) }) {
                calls[i].debris = true
            }
        }
        frame.trace?.record("classify (verdicts)", calls, position: { ($0.detection.x, $0.detection.y, $0.detection.r) }) { call in
            let verdict = call.debris ? "debris" : "\(call.detection.cellClass)"
            // (The line-relative appearance the debris rule judged keeps the measured colour.)
            let colour = "hue \(Int(call.measured.hueDeg.rounded())), saturation \(fmt(call.measured.saturation)) of \(fmt(threshold))"
            if call.faint != nil {
                return call.debris ? "debris: a faint stain (\(colour)) overlapping a detection" : "dead on a faint stain: \(colour)"
            }
            // Not judged by the debris rule (a greyscale call, or a dead one): what the call read,
            // with the greyscale rule's limits, since those are what a user tunes
            // (`deadDarkContrast`, `refractileContrast`). A greyscale dead call was judged by its
            // disc's edge alone.
            guard let a = call.judged else {
                let m = call.measured
                let read = frame.isGreyscale
                    ? "interior \(fmt(m.interiorContrast)) (dead below \(fmt(-config.deadDarkContrast))), "
                        + "centre \(fmt(m.centreContrast)) (refractile above \(fmt(config.refractileContrast)))"
                    : "\(colour), interior \(fmt(m.interiorContrast))"
                return verdict + ": " + read + (call.verdict?.disc.map { ", disc edge \(fmt($0.radius)) px" } ?? "")
                    + (call.verdict?.speck == true ? ", a dark speck at the smallest radius" : "")
            }
            return verdict + ": \(colour)"
                + ", interior \(fmt(a.interiorContrast)), centre \(fmt(a.centreContrast)), ring \(fmt(a.ringContrast))"
                + (call.verdict?.halo.map { ", halo \($0) of 16" } ?? "")
                + (call.verdict?.ringDepth.map { ", ring depth \(fmt($0))" } ?? "")
                + (call.verdict?.disc.map {
                    ", disc edge \(fmt($0.radius)) px, round \(fmt($0.roundShare)), lobes \(fmt($0.lobes)), rise \(fmt($0.edgeWidth))"
                } ?? "")
                + (call.verdict?.haloAtEdge.map { ", halo at the edge \($0) of 16" } ?? "")
                + (call.verdict?.rimInliers.map { ", rim circle \($0) of 32 rays" } ?? "")
                + (call.verdict?.haloInClump.map { ", halo beside touching cells \($0) of 16" } ?? "")
                + (call.verdict?.speck == true ? ", a dark speck at the smallest radius" : "")
        }
        frame.detections = calls.filter { !$0.debris }.map(\.detection)
        frame.trace?.record("classify (debris rule)", frame.detections, position: { ($0.x, $0.y, $0.r) }) { d in
            "\(d.cellClass), confidence \(fmt(d.confidence))"
        }
    }
}

/// The verdict on a candidate of a greyscale image, where no hue tells dye from dust: one
/// called dead is judged by its disc's edge (`greyDiscVerdict`); one called live is a dark
/// speck when it is one by `isDarkSpeck` (`greyDarkSpecks`). Nil: not judged.
private func greyVerdict(_ cls: CellClass, _ a: CellAppearance, of c: Candidate, smallestRadius: Double,
                         in image: Image, config: PipelineConfig) -> DebrisVerdict? {
    if cls == .dead { return greyDiscVerdict(x: c.x, y: c.y, r: c.r, in: image, config: config) }
    guard config.greyDarkSpecks,
          isDarkSpeck(lineRelative(a, of: c, in: image), r: c.r, smallestRadius: smallestRadius, config: config)
    else { return nil }
    return DebrisVerdict(debris: true, speck: true)
}

/// The debris rule's halo asked again of the dark discs it dropped that touch kept cells, over
/// the sectors those cells leave free (`haloClumpOpenSectors`): a grey disc in a clump shows
/// its halo only on the clump's outside. Passes repeat while they keep a disc (three at most),
/// so a clump is read inwards from its haloed cells; within a pass every disc sees the cells
/// kept when the pass began, so the result does not depend on the candidates' order.
private func keepHaloedCellsInClumps(
    _ calls: inout [(detection: Detection, judged: CellAppearance?, verdict: DebrisVerdict?, debris: Bool,
                     faint: FaintStain?, measured: CellAppearance)],
    in image: Image, config: PipelineConfig) {
    guard config.haloSectors > 0, config.haloClumpOpenSectors > 0 else { return }
    var pending = calls.indices.filter { calls[$0].debris && calls[$0].faint == nil && calls[$0].verdict?.halo != nil }
    guard !pending.isEmpty else { return }
    let minDiscRadius = config.defocusedDiscMinRadius * config.minRadiusPx
    for _ in 0..<3 {
        let kept = calls.filter { !$0.debris }.map(\.detection)
        var keptAny = false
        pending = pending.filter { i in
            let d = calls[i].detection
            // At the candidate's radius, and at its disc's edge where the debris rule measured
            // one elsewhere (as the plain halo is asked).
            let edge = calls[i].verdict?.disc.map(\.radius)
            let radii = [d.r] + (edge.map { $0 != d.r && $0 >= minDiscRadius ? [$0] : [] } ?? [])
            let counts = radii.compactMap { r -> Int? in
                let facing = TouchingNeighbours.sectors(x: d.x, y: d.y, r: r, among: kept,
                                                        position: { ($0.x, $0.y, $0.r) }, accepts: { _ in true })
                guard facing.contains(true) else { return nil }
                return haloSectors(image, x: d.x, y: d.y, r: r, contrast: config.haloContrast,
                                   excused: facing, minExcusedOpen: config.haloClumpOpenSectors)
            }
            guard let sectors = counts.max() else { return true }
            calls[i].verdict?.haloInClump = sectors
            guard sectors >= config.haloSectors else { return true }
            calls[i].debris = false
            calls[i].verdict?.debris = false
            keptAny = true
            return false
        }
        if !keptAny { break }
    }
}
