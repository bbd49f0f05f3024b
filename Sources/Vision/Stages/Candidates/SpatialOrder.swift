/// `test` of every candidate, evaluated row band by row band rather than in the detector's
/// order (strongest first, all over the image), so that neighbouring candidates find the
/// samples they read still in cache; results in the candidates' order.
func inSpatialOrder<T>(_ candidates: [Candidate], _ test: (Candidate) -> T) -> [T] {
    var results = [T?](repeating: nil, count: candidates.count)
    for i in spatialOrder(candidates) { results[i] = test(candidates[i]) }
    return results.map { $0! }
}

/// The candidates' indices top to bottom, then left to right (ties by index).
func spatialOrder(_ candidates: [Candidate]) -> [Int] {
    candidates.indices.sorted { (candidates[$0].y, candidates[$0].x, $0) < (candidates[$1].y, candidates[$1].x, $1) }
}
