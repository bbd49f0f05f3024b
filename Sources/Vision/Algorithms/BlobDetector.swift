import Foundation

/// Parameters of the multi-scale Difference-of-Gaussians blob detector.
public struct BlobDetectorSettings: Sendable, Equatable {
    /// Radius range of the blobs sought, pixels of the input plane.
    public var minRadius: Double
    public var maxRadius: Double
    /// Scale levels spanning the range (>= 2).
    public var levels: Int
    /// Minimum score: DoG peak over the robust noise (1.4826 MAD) of its level.
    public var minScore: Double
    /// Minimum value of the input plane at the peak.
    public var minContrast: Double
    /// Largest principal-curvature ratio of the DoG at the peak (rejects ridges).
    public var maxEdgeRatio: Double
    public init(minRadius: Double, maxRadius: Double, levels: Int = 8, minScore: Double = 6,
                minContrast: Double = 0, maxEdgeRatio: Double = 6) {
        self.minRadius = minRadius
        self.maxRadius = maxRadius
        self.levels = levels
        self.minScore = minScore
        self.minContrast = minContrast
        self.maxEdgeRatio = maxEdgeRatio
    }
}

/// Finds bright blobs (filled discs) in `plane` with a scale-normalised DoG stack.
///
/// One extra level below `minRadius` and one above `maxRadius` take part in the scale-space
/// maximum test only, so objects smaller (debris specks) or larger (clumps, glare) than the
/// range peak outside it and are dropped. Radius = sqrt(2) sigma for a filled disc.
/// - Returns: candidates in the plane's pixel coordinates, sub-pixel refined, unsorted.
public func detectBlobs(_ plane: Plane, settings: BlobDetectorSettings) -> [Candidate] {
    guard plane.width >= 3, plane.height >= 3,
          settings.minRadius > 0, settings.maxRadius >= settings.minRadius else { return [] }
    let w = plane.width, h = plane.height
    let levels = max(2, settings.levels)
    let ratio = settings.maxRadius > settings.minRadius
        ? pow(settings.maxRadius / settings.minRadius, 1 / Double(levels - 1)) : 1.2
    // DoG level j (0 ... levels + 1) sits at radius r0 * ratio^(j - 1); its two blurs at
    // sigma_eff / sqrt(ratio) and sigma_eff * sqrt(ratio).
    let dogCount = levels + 2
    func radius(_ j: Double) -> Double { settings.minRadius * pow(ratio, j - 1) }
    var blurs: [Plane] = []
    blurs.reserveCapacity(dogCount + 1)
    var previousSigma = 0.0
    for i in 0...dogCount {
        let sigma = radius(Double(i) - 0.5) / 2.0.squareRoot()
        // Blur incrementally: Gaussians compose with variances adding.
        if let last = blurs.last {
            blurs.append(gaussianBlur(last, sigma: (sigma * sigma - previousSigma * previousSigma).squareRoot()))
        } else {
            blurs.append(gaussianBlur(plane, sigma: sigma))
        }
        previousSigma = sigma
    }
    let norm = Float(1 / (ratio - 1))
    var dogs: [Plane] = []
    dogs.reserveCapacity(dogCount)
    for j in 0..<dogCount {
        var d = blurs[j]
        blurs[j + 1].data.withUnsafeBufferPointer { b in
            d.data.withUnsafeMutableBufferPointer { o in
                for i in 0..<o.count { o[i] = (o[i] - b[i]) * norm }
            }
        }
        dogs.append(d)
    }
    var scratch: [Float] = []
    scratch.reserveCapacity(w * h / 7 + 1)
    let noise = dogs.map { max(1e-6, 1.4826 * medianAbsolute($0, stride: 7, scratch: &scratch)) }
    let edgeLimit = Float((settings.maxEdgeRatio + 1) * (settings.maxEdgeRatio + 1) / settings.maxEdgeRatio)
    var found: [Candidate] = []
    plane.data.withUnsafeBufferPointer { src in
        for j in 1...levels {
            let threshold = Float(settings.minScore) * noise[j]
            dogs[j].data.withUnsafeBufferPointer { d in
                dogs[j - 1].data.withUnsafeBufferPointer { below in
                    dogs[j + 1].data.withUnsafeBufferPointer { above in
                        for y in 1..<(h - 1) {
                            let row = y * w
                            for x in 1..<(w - 1) {
                                let i = row + x
                                let v = d[i]
                                if v < threshold { continue }
                                if v < below[i] || v < above[i] { continue }
                                // Strict on the previous neighbours, non-strict on the next: one
                                // peak per plateau.
                                if v <= d[i - 1] || v < d[i + 1] || v <= d[i - w - 1] || v <= d[i - w]
                                    || v <= d[i - w + 1] || v < d[i + w - 1] || v < d[i + w] || v < d[i + w + 1] { continue }
                                if Double(src[i]) < settings.minContrast { continue }
                                let dxx = d[i + 1] + d[i - 1] - 2 * v
                                let dyy = d[i + w] + d[i - w] - 2 * v
                                let dxy = (d[i + w + 1] - d[i + w - 1] - d[i - w + 1] + d[i - w - 1]) * 0.25
                                let det = dxx * dyy - dxy * dxy
                                let tr = dxx + dyy
                                if det <= 0 || tr * tr / det >= edgeLimit { continue }
                                let ox = dxx < 0 ? max(-0.5, min(0.5, -(d[i + 1] - d[i - 1]) / (2 * dxx))) : 0
                                let oy = dyy < 0 ? max(-0.5, min(0.5, -(d[i + w] - d[i - w]) / (2 * dyy))) : 0
                                let a = below[i], c = above[i]
                                let den = a - 2 * v + c
                                let os = den < 0 ? max(-0.5, min(0.5, 0.5 * (a - c) / den)) : 0
                                found.append(Candidate(x: Double(x) + Double(ox), y: Double(y) + Double(oy),
                                                       r: radius(Double(j) + Double(os)),
                                                       score: Double(v / noise[j]), contrast: Double(src[i])))
                            }
                        }
                    }
                }
            }
        }
    }
    return found
}
