import Foundation

extension CandidateMaps {
    /// The image-pixel candidates that are not windows of a ruling whose scale was not
    /// registered (`unregisteredWindowRadii`, `isInRulingWindow`), asked on the working
    /// contrast map. Nil when the filter does not run: off, no ruling found, or its scale
    /// registered (the geometric rules place the triple lines there).
    func unregisteredWindowsFiltered(_ found: [Candidate]) -> [Candidate]? {
        guard config.unregisteredWindowRadii > 0, let grid, !grid.scaleKnown, rulingAngles.count >= 2 else { return nil }
        let level = faintCrossingLevel, farthest = config.unregisteredWindowRadii
        return found.filter { c in
            let w = toWorking(c)
            guard isInRulingWindow(contrast, x: w.x, y: w.y, angles: rulingAngles, halfLength: length / 2,
                                   level: level, nearest: 0.6 * w.r, farthest: farthest * w.r) else { return true }
            return showsStainedDisc(w)
        }
    }
}
