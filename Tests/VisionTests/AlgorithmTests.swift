import Foundation
import Testing
import Hemocytometer
@testable import Vision

@Suite("Filters and resampling")
struct FilterTests {
    @Test func gaussianKernelIsNormalisedAndSymmetric() {
        let k = gaussianKernel(sigma: 2)
        #expect(k.count == 13)
        #expect(abs(k.reduce(0, +) - 1) < 1e-5)
        for i in 0..<k.count { #expect(abs(k[i] - k[k.count - 1 - i]) < 1e-7) }
    }

    @Test func gaussianBlurOfAnImpulseHasTheRightVariance() throws {
        var p = Plane(width: 121, height: 121)
        p[60, 60] = 1
        for sigma in [1.5, 3.0, 8.0, 13.0] {
            let b = gaussianBlur(p, sigma: sigma)
            var sum = 0.0, varX = 0.0
            for y in 0..<121 {
                for x in 0..<121 {
                    let v = Double(b[x, y])
                    sum += v
                    varX += v * Double((x - 60) * (x - 60))
                }
            }
            #expect(abs(sum - 1) < 1e-3)
            // Direct kernel below 6, three box passes above: both within 5% of sigma^2.
            #expect(abs(varX / sum - sigma * sigma) < 0.05 * sigma * sigma, "sigma \(sigma): variance \(varX / sum)")
        }
    }

    @Test func blurKeepsAConstantPlaneConstant() {
        let p = Plane(width: 30, height: 20, repeating: 0.4)
        for plane in [gaussianBlur(p, sigma: 2), gaussianBlur(p, sigma: 9), boxBlur(p, radius: 4)] {
            let (lo, hi) = plane.range
            #expect(abs(lo - 0.4) < 1e-5 && abs(hi - 0.4) < 1e-5)
        }
    }

    @Test func downsampleAveragesBlocksAndResizeAlignsCentres() throws {
        let p = try #require(Plane(width: 4, height: 2, data: [0, 2, 4, 6, 2, 4, 6, 8]))
        let d = downsample(p, factor: 2)
        #expect(d.width == 2 && d.height == 1)
        #expect(d.data == [2, 6])
        // A linear ramp resized up and down stays a ramp at the same positions.
        var ramp = Plane(width: 8, height: 1)
        for x in 0..<8 { ramp[x, 0] = Float(x) }
        let small = downsample(ramp, factor: 2)
        let back = resizeBilinear(small, width: 8, height: 1)
        for x in 1..<7 { #expect(abs(back[x, 0] - Float(x)) < 0.51) }
    }

    @Test func transposeSwapsAxes() throws {
        let p = try #require(Plane(width: 3, height: 2, data: [1, 2, 3, 4, 5, 6]))
        let t = transposed(p)
        #expect(t.width == 2 && t.height == 3)
        #expect(t.data == [1, 4, 2, 5, 3, 6])
    }
}

@Suite("Segmentation primitives")
struct SegmentationTests {
    @Test func otsuSplitsABimodalHistogram() {
        var p = Plane(width: 100, height: 1)
        for x in 0..<100 { p[x, 0] = x < 60 ? 0.2 + Float(x % 5) * 0.01 : 0.8 + Float(x % 5) * 0.01 }
        let t = otsuThreshold(p)
        // Any threshold in the gap separates the two modes.
        for x in 0..<100 { #expect((p[x, 0] > t) == (x >= 60), "threshold \(t) at \(p[x, 0])") }
    }

    @Test func connectedComponentsCountsEightConnectedRegions() {
        // Two blobs, one of them only diagonally connected internally.
        let rows = ["##...",
                    "..#..",
                    ".....",
                    "...##"]
        let mask = rows.flatMap { $0.map { $0 == "#" } }
        let cc = connectedComponents(mask: mask, width: 5, height: 4)
        #expect(cc.count == 2)
        #expect(cc.labels[0] == 1 && cc.labels[7] == 1)
        #expect(cc.labels[18] == 2 && cc.labels[19] == 2)
    }

    @Test func distanceTransformIsEuclidean() {
        var mask = [Bool](repeating: true, count: 11 * 11)
        mask[5 * 11 + 5] = false
        // Border pixels count as next to background, so look near the centre only.
        let d = distanceTransform(mask: mask, width: 11, height: 11)
        #expect(d[5, 5] == 0)
        #expect(abs(d[8, 5] - 3) < 1e-5)
        #expect(abs(d[7, 7] - Float(8).squareRoot()) < 1e-5)
    }

    @Test func watershedSplitsTwoTouchingDiscs() {
        let w = 40, h = 24
        var mask = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let a = (x - 12) * (x - 12) + (y - 12) * (y - 12), b = (x - 27) * (x - 27) + (y - 12) * (y - 12)
                mask[y * w + x] = a <= 64 || b <= 64
            }
        }
        #expect(connectedComponents(mask: mask, width: w, height: h).count == 1)
        var plane = Plane(width: w, height: h)
        for i in 0..<(w * h) where mask[i] { plane.data[i] = 1 }
        let found = detectThresholdObjects(plane, settings: ThresholdDetectorSettings(
            minRadius: 5, maxRadius: 10, minScore: 0, minContrast: 0.5, minCircularity: 0.3, minSolidity: 0.7))
        #expect(found.count == 2)
        let xs = found.map(\.x).sorted()
        if xs.count == 2 {
            #expect(abs(xs[0] - 12) < 1.5 && abs(xs[1] - 27) < 1.5, "centres \(xs)")
        }
    }

    @Test func convexHullAndArea() {
        let square = [Point(x: 0, y: 0), Point(x: 2, y: 0), Point(x: 2, y: 2), Point(x: 0, y: 2), Point(x: 1, y: 1)]
        let hull = convexHull(square)
        #expect(hull.count == 4)
        #expect(polygonArea(hull) == 4)
    }

    @Test func quickselectFindsOrderStatistics() {
        var v: [Float] = [5, 1, 4, 2, 3, 9, 0]
        #expect(selectKth(&v, 3) == 3)
        var empty: [Float] = []
        #expect(selectKth(&empty, 0) == nil)
    }
}

@Suite("Detectors")
struct DetectorTests {
    @Test func dogFindsDiscsOfKnownRadiusAtKnownCentres() {
        // Filled discs of contrast 0.3 on a flat contrast map.
        let truth: [(x: Double, y: Double, r: Double)] = [(20.3, 22.6, 4), (60.5, 25.2, 6), (40.0, 60.7, 8)]
        var p = Plane(width: 90, height: 90)
        for y in 0..<90 {
            for x in 0..<90 {
                for t in truth {
                    var covered = 0
                    for sy in 0..<4 {
                        for sx in 0..<4 {
                            let px = Double(x) + (Double(sx) + 0.5) / 4 - 0.5, py = Double(y) + (Double(sy) + 0.5) / 4 - 0.5
                            if (px - t.x) * (px - t.x) + (py - t.y) * (py - t.y) <= t.r * t.r { covered += 1 }
                        }
                    }
                    p[x, y] += 0.3 * Float(covered) / 16
                }
            }
        }
        let found = detectBlobs(p, settings: BlobDetectorSettings(minRadius: 3, maxRadius: 10, levels: 8, minScore: 0,
                                                                  minContrast: 0.02, maxEdgeRatio: 3))
        #expect(found.count == truth.count, "found \(found)")
        for t in truth {
            let nearest = found.min { hypot($0.x - t.x, $0.y - t.y) < hypot($1.x - t.x, $1.y - t.y) }
            #expect(nearest.map { hypot($0.x - t.x, $0.y - t.y) < 1 } == true, "centre of \(t): \(String(describing: nearest))")
            if let n = nearest { #expect(abs(n.r - t.r) < 0.35 * t.r, "radius of \(t): \(n.r)") }
        }
    }

    @Test func lineRemovalLeavesCellsAndDropsLines() {
        var p = Plane(width: 120, height: 80)
        for x in 0..<120 { p[x, 40] = 0.5; p[x, 41] = 0.5 }          // a horizontal line
        for y in 0..<80 { p[30, y] += 0.5 }                           // a vertical line
        for y in 10...16 { for x in 80...86 { p[x, y] += 0.4 } }      // a cell-sized blob
        let cleaned = removeLines(p, angles: [0, .pi / 2], length: 41)
        #expect(abs(cleaned[60, 40]) < 0.05, "line left: \(cleaned[60, 40])")
        #expect(abs(cleaned[30, 60]) < 0.05, "line left: \(cleaned[30, 60])")
        #expect(abs(cleaned[30, 40]) < 0.1, "crossing left: \(cleaned[30, 40])")
        #expect(cleaned[83, 13] > 0.3, "cell lost: \(cleaned[83, 13])")
    }

    /// In noise, the crossing of two lines is removed through the floor the added bisector
    /// sees (`floorEstimate`, at half resolution), and the lines' removal leaves no offset:
    /// the open background keeps its level.
    @Test func lineRemovalFloorHoldsInNoise() {
        // Uniform noise, standard deviation 0.029.
        var p = KernelReferenceTests.noisePlane(width: 200, height: 160, seed: 11)
        for i in 0..<p.count { p.data[i] = (p.data[i] - 0.5) * 0.1 }
        for x in 0..<200 { p[x, 80] += 0.5; p[x, 81] += 0.5 }
        for y in 0..<160 { p[100, y] += 0.5; p[101, y] += 0.5 }
        let cleaned = removeLines(p, angles: [0, .pi / 2], length: 41)
        func mean(_ xs: ClosedRange<Int>, _ ys: ClosedRange<Int>) -> Float {
            var sum: Float = 0
            for y in ys { for x in xs { sum += cleaned[x, y] } }
            return sum / Float(xs.count * ys.count)
        }
        #expect(abs(mean(99...102, 79...82)) < 0.06, "crossing left: \(mean(99...102, 79...82))")
        #expect(abs(mean(20...60, 80...81)) < 0.03, "line left: \(mean(20...60, 80...81))")
        #expect(abs(mean(20...60, 20...60)) < 0.03, "background moved: \(mean(20...60, 20...60))")
    }

    @Test func gridDetectorRecoversAngleAndSpacing() throws {
        var canvas = Canvas(width: 320, height: 240)
        canvas.grid(spacing: 50, angle: 5 * .pi / 180)
        let image = canvas.image(noise: 0.01)
        var lum = Plane(width: image.width, height: image.height)
        for y in 0..<image.height { for x in 0..<image.width { lum[x, y] = Float(image[x, y].g) / 255 } }
        let flat = flatten(lum, background: estimateBackground(lum, sigma: 30))
        let lines = try #require(detectGridLines(flat: flat, minSpacing: 20, maxSpacing: 120, minPeriodicity: 0.25))
        #expect(abs(lines.spacings[0] - 50) < 1.5 && abs(lines.spacings[1] - 50) < 1.5, "spacings \(lines.spacings)")
        let deg = lines.angles[0] * 180 / .pi
        let folded = deg - (deg / 180).rounded() * 180
        #expect(abs(folded - 5) < 0.5, "angle \(deg)")
    }

    @Test func radialEdgeCoverageSeparatesRingsFromLines() {
        var ring = Plane(width: 40, height: 40), line = Plane(width: 40, height: 40)
        for y in 0..<40 {
            for x in 0..<40 {
                let d = hypot(Double(x) - 20, Double(y) - 20)
                ring[x, y] = d < 8 ? -0.3 : 0
                line[x, y] = abs(y - 20) <= 1 ? -0.3 : 0
            }
        }
        let blurredRing = gaussianBlur(ring, sigma: 1), blurredLine = gaussianBlur(line, sigma: 1)
        #expect(radialEdgeCoverage(blurredRing, x: 20, y: 20, r: 8, threshold: 0.01).coverage > 0.9)
        #expect(radialEdgeCoverage(blurredLine, x: 20, y: 20, r: 8, threshold: 0.01).coverage < 0.5)
    }
}

@Suite("Classification and NMS")
struct ClassifyNMSTests {
    @Test func blueDiscIsDeadAndClearDiscIsLive() {
        var canvas = Canvas(width: 80, height: 40)
        canvas.deadCell(x: 20, y: 20, r: 8)
        canvas.liveCell(x: 60, y: 20, r: 8)
        let image = canvas.image()
        let config = PipelineConfig()
        let dead = classifyCell(measureAppearance(image, x: 20, y: 20, r: 8), greyscale: false,
                                saturationThreshold: config.minDeadSaturation, config: config)
        let live = classifyCell(measureAppearance(image, x: 60, y: 20, r: 8), greyscale: false,
                                saturationThreshold: config.minDeadSaturation, config: config)
        #expect(dead.0 == .dead && dead.1 > 0.5)
        #expect(live.0 == .live)
    }

    @Test func greyscaleRuleUsesDarknessAndRefractileCentre() {
        let config = PipelineConfig()
        let dark = CellAppearance(hueDeg: 0, saturation: 0, interiorContrast: -0.4, centreContrast: -0.3)
        let bright = CellAppearance(hueDeg: 0, saturation: 0, interiorContrast: -0.4, centreContrast: 0.5)
        #expect(classifyCell(dark, greyscale: true, saturationThreshold: 0.1, config: config).0 == .dead)
        #expect(classifyCell(bright, greyscale: true, saturationThreshold: 0.1, config: config).0 == .live)
    }

    @Test func circleIoUValues() {
        #expect(circleIoU(x1: 0, y1: 0, r1: 5, x2: 0, y2: 0, r2: 5) == 1)
        #expect(circleIoU(x1: 0, y1: 0, r1: 5, x2: 10, y2: 0, r2: 5) == 0)
        let half = circleIoU(x1: 0, y1: 0, r1: 5, x2: 5, y2: 0, r2: 5)
        #expect(half > 0.2 && half < 0.3)
    }

    @Test func nmsKeepsTheStrongestOfOverlappingDetections() {
        let d = [Detection(x: 10, y: 10, r: 5, cellClass: .live, score: 3, confidence: 1),
                 Detection(x: 11, y: 10, r: 5, cellClass: .live, score: 9, confidence: 1),
                 Detection(x: 40, y: 10, r: 5, cellClass: .dead, score: 1, confidence: 1)]
        let kept = suppressOverlaps(d, maxIoU: 0.3)
        #expect(kept.count == 2)
        #expect(kept.contains { $0.score == 9 } && kept.contains { $0.score == 1 })
    }

    @Test func nmsPrefersMoreBoundaryEvidenceOverAStrongerResponse() {
        // A duplicate pushed 4 px off the cell's centre by a highlight responds more strongly
        // but sees the rim from fewer directions than the centred one.
        let centred = Detection(x: 100, y: 100, r: 8, cellClass: .live, score: 15, confidence: 1, coverage: 1)
        let offset = Detection(x: 104, y: 101, r: 5.5, cellClass: .live, score: 40, confidence: 1, coverage: 0.8125)
        #expect(suppressOverlaps([offset, centred], maxIoU: 0.2, minCentreDistance: 0.8) == [centred])
        // Equal evidence: the stronger response wins, as before.
        var twin = centred
        twin.x = 101
        twin.score = 20
        #expect(suppressOverlaps([centred, twin], maxIoU: 0.2, minCentreDistance: 0.8) == [twin])
    }
}
