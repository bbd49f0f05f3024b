import Foundation
import Hemocytometer

/// Parameters of the threshold + components + watershed detector.
public struct ThresholdDetectorSettings: Sendable, Equatable {
    /// Radius range of cells, pixels of the input plane.
    public var minRadius: Double
    public var maxRadius: Double
    /// Minimum score: mean contrast of the object over the robust noise of the plane.
    public var minScore: Double
    /// Threshold floor (plane units): Otsu never goes below it, so a blank image stays empty.
    public var minContrast: Double
    /// Smallest circularity 4 pi A / P^2 and solidity A / hull area kept (0 ... 1).
    public var minCircularity: Double
    public var minSolidity: Double
    public init(minRadius: Double, maxRadius: Double, minScore: Double = 6, minContrast: Double = 0.04,
                minCircularity: Double = 0.3, minSolidity: Double = 0.7) {
        self.minRadius = minRadius
        self.maxRadius = maxRadius
        self.minScore = minScore
        self.minContrast = minContrast
        self.minCircularity = minCircularity
        self.minSolidity = minSolidity
    }
}

/// Shape features of one connected object, pixels of its plane.
public struct ObjectFeatures: Sendable, Equatable {
    public var area: Double
    /// Boundary length: 4-neighbour crack count times pi/4 (unbiased for discs).
    public var perimeter: Double
    public var circularity: Double
    public var centroid: Point
    /// minX, minY, maxX, maxY (inclusive).
    public var bbox: (Int, Int, Int, Int)
    public var solidity: Double
    public var meanValue: Double

    public static func == (a: ObjectFeatures, b: ObjectFeatures) -> Bool {
        a.area == b.area && a.perimeter == b.perimeter && a.centroid == b.centroid && a.bbox == b.bbox
            && a.solidity == b.solidity && a.meanValue == b.meanValue
    }
}

/// Features of every labelled object (index 0 = label 1).
public func objectFeatures(labels: [Int32], count: Int, width: Int, height: Int, values: Plane) -> [ObjectFeatures] {
    guard count > 0 else { return [] }
    var area = [Double](repeating: 0, count: count + 1), sx = area, sy = area, sv = area, crack = area
    var minX = [Int](repeating: Int.max, count: count + 1), minY = minX
    var maxX = [Int](repeating: Int.min, count: count + 1), maxY = maxX
    var points = [[Point]](repeating: [], count: count + 1)
    for y in 0..<height {
        for x in 0..<width {
            let l = Int(labels[y * width + x])
            guard l > 0 else { continue }
            area[l] += 1
            sx[l] += Double(x)
            sy[l] += Double(y)
            sv[l] += Double(values.data[y * width + x])
            minX[l] = min(minX[l], x); maxX[l] = max(maxX[l], x)
            minY[l] = min(minY[l], y); maxY[l] = max(maxY[l], y)
            var boundary = false
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let nx = x + dx, ny = y + dy
                if nx < 0 || ny < 0 || nx >= width || ny >= height || Int(labels[ny * width + nx]) != l {
                    crack[l] += 1
                    boundary = true
                }
            }
            // Hull of pixel corners of the boundary pixels = hull of the object.
            if boundary {
                let fx = Double(x), fy = Double(y)
                points[l] += [Point(x: fx - 0.5, y: fy - 0.5), Point(x: fx + 0.5, y: fy - 0.5),
                              Point(x: fx + 0.5, y: fy + 0.5), Point(x: fx - 0.5, y: fy + 0.5)]
            }
        }
    }
    return (1...count).map { l in
        let a = area[l]
        let perimeter = crack[l] * .pi / 4
        let hullArea = polygonArea(convexHull(points[l]))
        return ObjectFeatures(area: a, perimeter: perimeter,
                              circularity: perimeter > 0 ? min(1, 4 * .pi * a / (perimeter * perimeter)) : 0,
                              centroid: Point(x: sx[l] / max(a, 1), y: sy[l] / max(a, 1)),
                              bbox: (minX[l], minY[l], maxX[l], maxY[l]),
                              solidity: hullArea > 0 ? min(1, a / hullArea) : 0, meanValue: sv[l] / max(a, 1))
    }
}

/// The `threshold` detector: Otsu (floored at `minContrast`) on a contrast map, connected
/// components, touching cells split by distance transform + watershed, then area, circularity
/// and solidity filters.
///
/// - Returns: candidates in the plane's pixel coordinates; radius from the area.
public func detectThresholdObjects(_ plane: Plane, settings s: ThresholdDetectorSettings) -> [Candidate] {
    let w = plane.width, h = plane.height
    guard w >= 3, h >= 3 else { return [] }
    let threshold = max(otsuThreshold(plane), Float(s.minContrast))
    let mask = plane.data.map { $0 > threshold }
    let dist = distanceTransform(mask: mask, width: w, height: h)
    // Markers: distance maxima at least 0.6 of the smallest radius deep, one per cell-sized window.
    let window = max(1, Int((s.minRadius * 0.8).rounded()))
    var markerMask = [Bool](repeating: false, count: w * h)
    let minDepth = Float(max(1, 0.6 * s.minRadius))
    for y in 0..<h {
        for x in 0..<w {
            let v = dist.data[y * w + x]
            guard v >= minDepth else { continue }
            var isMax = true
            outer: for dy in -window...window {
                for dx in -window...window where dx != 0 || dy != 0 {
                    let nx = x + dx, ny = y + dy
                    if nx >= 0, ny >= 0, nx < w, ny < h, dist.data[ny * w + nx] > v { isMax = false; break outer }
                }
            }
            markerMask[y * w + x] = isMax
        }
    }
    let markers = connectedComponents(mask: markerMask, width: w, height: h)
    let elevation = dist.map { -$0 }
    let split = markers.count > 0 ? watershed(elevation: elevation, markers: markers.labels, mask: mask) : []
    guard !split.isEmpty else { return [] }
    let features = objectFeatures(labels: split, count: markers.count, width: w, height: h, values: plane)
    var scratch: [Float] = []
    let noise = max(1e-6, 1.4826 * medianAbsolute(plane, stride: 7, scratch: &scratch))
    let minArea = 0.5 * .pi * s.minRadius * s.minRadius, maxArea = 2.0 * .pi * s.maxRadius * s.maxRadius
    var found: [Candidate] = []
    for f in features where f.area >= minArea && f.area <= maxArea
        && f.circularity >= s.minCircularity && f.solidity >= s.minSolidity {
        let score = f.meanValue / Double(noise)
        guard score >= s.minScore else { continue }
        found.append(Candidate(x: f.centroid.x, y: f.centroid.y, r: (f.area / .pi).squareRoot(),
                               score: score, contrast: f.meanValue))
    }
    return found
}
