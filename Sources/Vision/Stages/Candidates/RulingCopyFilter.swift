import Foundation
import Hemocytometer

extension CandidateMaps {
    /// The image-pixel candidates whose window `RulingCopies` does not find repeated a ruling
    /// period away (`rulingCopyResidual`, `rulingCopyMatches`; or once, very closely:
    /// `rulingCopySingleResidual`), with each candidate's verdict
    /// (nil where the test could not run: the window at the image's border, or flat). Nil when
    /// the filter does not run (off, or no ruling mapped to the chamber).
    func rulingCopiesFiltered(_ found: [Candidate]) -> (kept: [Candidate], verdicts: [RulingCopies.Verdict?])? {
        guard config.rulingCopyResidual > 0, let grid,
              let toChamber = Homography(matrix: grid.result.imageToChamber),
              var copies = RulingCopies(image, imageToChamber: toChamber,
                                        measuringNoise: config.rulingCopyNoiseMultiple > 0) else { return nil }
        let limit = Float(config.rulingCopyResidual), enough = config.rulingCopyMatches
        let close = Float(config.rulingCopySingleResidual)
        let noiseMultiple = Float(config.rulingCopyNoiseMultiple), noiseStructure = Float(config.rulingCopyNoiseStructure)
        let maxFlattening = Float(config.rulingCopyMaxFlattening)
        let verdicts = found.map { c in
            copies.matches(x: c.x, y: c.y, r: c.r, maxResidual: limit, enough: enough,
                           noiseMultiple: noiseMultiple, noiseStructure: noiseStructure, maxFlattening: maxFlattening)
        }
        // `best` is the closest copy of all: `matches` stops early only once enough matched.
        func repeated(_ v: RulingCopies.Verdict?) -> Bool {
            guard let v else { return false }
            return v.matches >= enough || (close > 0 && v.best <= close)
        }
        let kept = found.indices.filter { !repeated(verdicts[$0]) }.map { found[$0] }
        return (kept, verdicts)
    }
}
