import Foundation

/// Stage 4: candidate cells from the flattened luminance, in image pixels.
///
/// In order, each step in its own file of this folder: the maps every step reads
/// (`CandidateMaps`: lines removed, boundary evidence, stain); the detector and the centre
/// seeds (`CandidateDetection`); the pre-vote rim filter and the centre vote on the
/// full-resolution image (`CentreVoting`); the boundary test and the line-residue drop
/// (`BoundaryTest`; a candidate that fails is tested again at the centre its rim draws);
/// then, in image pixels, size and the crossings of ruling lines
/// (`ImageScaleFilters`), then the circle each candidate's rim draws (`RimCircle`): moved to
/// its centre, or dropped where the rim borrowed at the test's margin is not round; last,
/// the candidates whose window repeats a ruling period away (`RulingCopyFilter`).
/// Each step records what it kept in `Frame.trace` when one is asked for, and its time in
/// `Frame.steps` under the same name (the maps as "maps").
struct CandidatesStage: Stage {
    let name = "candidates"

    func run(_ frame: inout Frame) throws {
        guard frame.flat.width >= 3, frame.flat.height >= 3 else { return }
        var clock = StepClock(stage: name)
        defer { frame.steps += clock.steps }
        let maps = CandidateMaps(frame)
        clock.lap("maps")
        let config = frame.config, scale = frame.scale
        var found = maps.prepared(maps.detect(trace: &frame.trace))
        clock.lap("detector")
        let preVote = PreVoteFilter(maps)
        var verdicts = preVote.map { inSpatialOrder(found, $0.verdict) } ?? []
        if preVote != nil { clock.lap("pre-vote rim filter") }
        // A bright spot may yet fail its rim test, and a candidate the pre-vote filter drops is
        // gone, so neither stands in for a seed (a detector centre half a radius off its cell
        // is dropped there, where a seed may sit on the cell).
        func standing() -> [Candidate] {
            found.indices.filter { !found[$0].brightSpot && (verdicts.isEmpty || verdicts[$0].kept) }.map { found[$0] }
        }
        if let seeds = maps.seeds(besides: standing()) {
            found += seeds
            if let preVote { verdicts += inSpatialOrder(seeds, preVote.verdict) }
            frame.trace?.record("centre seeds", working: found, scale: scale) { c in c.seeded ? "seed" : "" }
            clock.lap("centre seeds")
        }
        // Beside the candidates that stand now (seeds included), the cores of a merged clump.
        if let cores = maps.cores(besides: standing()) {
            found += cores
            if let preVote { verdicts += inSpatialOrder(cores, preVote.verdict) }
            frame.trace?.record("core seeds", working: found, scale: scale) { c in c.seeded ? "seed" : "" }
            clock.lap("core seeds")
        }
        // Where the detector put each candidate, kept for the boundary test when voting ran.
        var detected: [Candidate] = []
        if config.voteCentres {
            if preVote != nil {
                frame.trace?.record("pre-vote rim filter (verdicts)", Array(zip(found, verdicts)),
                                    position: { c, _ in maps.imagePosition(c) }, note: { _, v in
                    (v.kept ? "kept" : "dropped") + ": coverage \(fmt(v.coverage)), grid-aligned \(fmt(v.aligned))"
                })
                found = found.indices.filter { verdicts[$0].kept }.map { found[$0] }
                frame.trace?.record("pre-vote rim filter", working: found, scale: scale)
            }
            if config.keepUnvotedCoverage > 0 { detected = found }
            maps.voteCentres(&found)
            frame.trace?.record("centre vote", working: found, scale: scale) { $0.votedAlongLine ? "line subtracted" : "" }
            clock.lap("centre vote")
        }
        if let test = BoundaryTest(maps, tracing: frame.trace != nil) {
            var kept = [(Candidate?, BoundaryVerdict)](repeating: (nil, .lineStretch), count: found.count)
            for i in spatialOrder(found) { kept[i] = test.test(found[i], detected: detected.isEmpty ? nil : detected[i]) }
            // A dead cell meets the dead cells it touches without a stain boundary between
            // them: the stained candidates a few sectors short are tested again beside those
            // that passed on their own (`stainClumpCoverage`), so that two halves of one cell,
            // neither passing, do not vouch for each other.
            if config.stainClumpCoverage > 0, let stain = maps.stain {
                let passed = kept.compactMap { $0.0 }
                for i in spatialOrder(found) where kept[i].0 == nil {
                    guard case let .noRim(_, _, short?) = kept[i].1, short >= config.stainClumpCoverage else { continue }
                    // (The whole test again only where its neighbours make up the shortfall.)
                    let c = stain.centred(found[i])
                    guard stain.clumpCoverage(of: c, beside: passed) / maps.visibleShare(c) >= config.minEdgeCoverage else { continue }
                    kept[i] = test.test(found[i], detected: detected.isEmpty ? nil : detected[i], clumpedWith: passed)
                }
            }
            for i in test.lineResidues(kept) { kept[i] = (nil, .lineResidue) }
            frame.trace?.record("boundary test (verdicts)", Array(zip(found, kept)),
                                position: { c, _ in maps.imagePosition(c) }, note: { "\($0.1.1)" })
            found = kept.compactMap { $0.0 }
            frame.trace?.record("boundary test", working: found, scale: scale) { c in "coverage \(fmt(c.coverage))" }
            clock.lap("boundary test")
        }
        found = found.map(maps.toImage)
        // The filters on the image scale, in order: each gives the candidates it keeps, or nil
        // where it does not apply to this view (nothing recorded then).
        let imageFilters: [(step: String, filter: ([Candidate]) -> [Candidate]?)] = [
            ("boundary size", maps.sizeFiltered),
            ("line crossings", maps.crossingsFiltered),
            ("triple-line crossings", maps.tripleCrossingsFiltered),
            ("ruling windows", maps.unregisteredWindowsFiltered),
            ("stroke gaps", maps.strokeGapsFiltered),
            ("rim circle", maps.rimCentred),
        ]
        for (step, filter) in imageFilters {
            guard let kept = filter(found) else { continue }
            found = kept
            frame.trace?.record(step, found, position: { ($0.x, $0.y, $0.r) })
            clock.lap(step)
        }
        if let copies = maps.rulingCopiesFiltered(found) {
            frame.trace?.record("ruling copies (verdicts)", Array(zip(found, copies.verdicts)),
                                position: { c, _ in (c.x, c.y, c.r) }, note: { _, v in
                guard let v else { return "not tested" }
                return "\(v.matches) matching" + (v.best.isFinite ? ", best residual \(fmt(Double(v.best)))" : "")
            })
            found = copies.kept
            frame.trace?.record("ruling copies", found, position: { ($0.x, $0.y, $0.r) })
            clock.lap("ruling copies")
        }
        for i in found.indices { found[i].onRulingLine = maps.isOnLine(maps.toWorking(found[i])) }
        frame.candidates = found
    }
}
