import Foundation
import Hemocytometer

extension CandidateMaps {
    /// The image-pixel candidates whose window `RulingCopies` does not find repeated a ruling
    /// period away (`rulingCopyResidual`, `rulingCopyMatches`), with each candidate's verdict
    /// (nil where the test could not run: the window at the image's border, or flat). Nil when
    /// the filter does not run (off, or no ruling mapped to the chamber).
    func rulingCopiesFiltered(_ found: [Candidate]) -> (kept: [Candidate], verdicts: [RulingCopies.Verdict?])? {
        guard config.rulingCopyResidual > 0, let grid,
              let toChamber = Homography(matrix: grid.result.imageToChamber),
              var copies = RulingCopies(image, imageToChamber: toChamber) else { return nil }
        let limit = Float(config.rulingCopyResidual), enough = config.rulingCopyMatches
        let verdicts = found.map { c in copies.matches(x: c.x, y: c.y, r: c.r, maxResidual: limit, enough: enough) }
        let kept = found.indices.filter { (verdicts[$0]?.matches ?? 0) < enough }.map { found[$0] }
        return (kept, verdicts)
    }
}
