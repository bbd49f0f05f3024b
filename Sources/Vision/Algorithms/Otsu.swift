/// Otsu's threshold: the value that maximises the between-class variance of a 256-bin
/// histogram spanning the plane's range.
///
/// - Returns: the threshold in plane units (samples above it are foreground); the plane's
///   minimum when it is uniform or empty.
public func otsuThreshold(_ plane: Plane) -> Float {
    let (lo, hi) = plane.range
    guard hi > lo else { return lo }
    var hist = [Double](repeating: 0, count: 256)
    let scale = 255 / (hi - lo)
    plane.data.withUnsafeBufferPointer { d in
        for v in d { hist[min(255, max(0, Int((v - lo) * scale)))] += 1 }
    }
    return otsuBin(histogram: hist).map { lo + (Float($0) + 1) / scale } ?? lo
}

/// Otsu on a histogram: index of the last bin of the background class, nil if degenerate.
public func otsuBin(histogram: [Double]) -> Int? {
    let total = histogram.reduce(0, +)
    guard total > 0, histogram.count > 1 else { return nil }
    var sumAll = 0.0
    for (i, c) in histogram.enumerated() { sumAll += Double(i) * c }
    var weightB = 0.0, sumB = 0.0, best = -1.0, bestBin: Int?
    for i in 0..<(histogram.count - 1) {
        weightB += histogram[i]
        sumB += Double(i) * histogram[i]
        let weightF = total - weightB
        if weightB == 0 || weightF == 0 { continue }
        let meanB = sumB / weightB, meanF = (sumAll - sumB) / weightF
        let between = weightB * weightF * (meanB - meanF) * (meanB - meanF)
        if between > best {
            best = between
            bestBin = i
        }
    }
    return bestBin
}
