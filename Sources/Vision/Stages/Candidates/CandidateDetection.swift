import Foundation

extension CandidateMaps {
    /// The configured detector's candidates on the line-free contrast map, working pixels.
    func detect(trace: inout CandidateTrace?) -> [Candidate] {
        switch config.detector {
        case .dog:
            let found = detectBlobs(cleaned, settings: BlobDetectorSettings(
                minRadius: minR, maxRadius: maxR, levels: config.scaleLevels, minScore: config.minScore,
                minContrast: config.minContrast, maxEdgeRatio: config.maxEdgeRatio,
                splitElongated: config.splitElongated, holes: config.detectHoles, holeSpots: config.holeSpots,
                brightSpotLevel: config.brightSpotLevel), holeSupport: separated.lines, brightness: edges?.smoothLog)
            trace?.record("detector (dog)", working: found, scale: scale) { c in
                "score \(fmt(c.score)), contrast \(fmt(c.contrast))" + (c.brightSpot ? ", bright spot" : "")
            }
            return found
        case .threshold:
            let found = detectThresholdObjects(cleaned, settings: ThresholdDetectorSettings(
                minRadius: minR, maxRadius: maxR, minScore: config.minScore, minContrast: config.minContrast,
                minCircularity: config.minCircularity, minSolidity: config.minSolidity))
            trace?.record("detector (threshold)", working: found, scale: scale) { c in "score \(fmt(c.score))" }
            return found
        }
    }

    /// Candidates made ready for the boundary tests: a blob shrunk by a neighbouring line or a
    /// faint rim is tested (and votes) at no less than `candidateRadiusFloor` small radii, or
    /// its own rim lies outside every annulus; centres refined when `refineCentres`.
    func prepared(_ candidates: [Candidate]) -> [Candidate] {
        let floorR = config.candidateRadiusFloor * minR
        return candidates.map { c in
            var c = c
            c.r = max(c.r, floorR)
            if config.refineCentres {
                let refined = refineCentre(cleaned, x: c.x, y: c.y, r: c.r)
                c.x = refined.x
                c.y = refined.y
            }
            return c
        }
    }

    /// Centre seeds (`seedCandidates`) for the cells the detector merges, prepared: vote peaks
    /// that none of `standing` already stands for. Nil unless the `dog` detector runs with
    /// `seedMinVotes` and the boundary test is on.
    func seeds(besides standing: [Candidate]) -> [Candidate]? {
        guard config.detector == .dog, config.seedMinVotes > 0, let edges else { return nil }
        let voteMap = centreVoteMap(edges.smoothLog, minRadius: minR, maxRadius: maxR, threshold: edges.threshold,
                                    gridNormals: gridNormals)
        return prepared(seedCandidates(voteMap, besides: standing, minR: minR, maxR: maxR, minVotes: config.seedMinVotes))
    }

    /// Core seeds (`coreSeeds`) beside the `standing` candidates, prepared. Nil unless the
    /// `dog` detector runs with `coreSeedContrast` and the boundary test is on.
    func cores(besides standing: [Candidate]) -> [Candidate]? {
        guard config.detector == .dog, config.coreSeedContrast > 0, let edges else { return nil }
        let settings = CoreSeedSettings(minContrast: Float(config.coreSeedContrast),
                                        rimDepth: Float(config.coreSeedRimDepth), minRays: config.coreSeedRays)
        return prepared(coreSeeds(edges.smoothLog, besides: standing, minR: minR, maxR: maxR, settings: settings))
    }
}
