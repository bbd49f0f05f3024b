import CKernels
import Foundation
import Imaging

/// Trypan-blue stain at the working scale: log(B / mean(R, G)) of each `scale` x `scale` block,
/// minus its median over the image.
///
/// Ruling lines, glare and the lamp's brightness absorb or add all three channels alike, so
/// in this ratio they vanish; the lamp's colour cast is one offset, which the median removes.
/// A dead cell, dark and hard to tell from a line in luminance, stands out here as a blue disc
/// wherever it lies.
///
/// - Parameters:
///   - image: 8-bit RGB.
///   - scale: image pixels per plane pixel (>= 1); the plane is `width / scale` x
///     `height / scale` (partial blocks at the right and bottom edges dropped), as the working
///     planes are.
/// - Returns: the stain plane (0 = the image's typical colour; 0.1 = 10% bluer).
public func stainPlane(_ image: Image, scale: Int) -> Plane {
    stainPlane(image, scale: scale, wide: wideGrey)
}

/// `stainPlane`; `wide` sums the 2 x 2 blocks with `ck_stain_pairs_avx2` (only where the CPU
/// runs AVX2) instead of the Swift loop, for the tests that compare the two.
func stainPlane(_ image: Image, scale: Int, wide: Bool) -> Plane {
    let wide = wide && wideGrey
    let s = max(1, scale)
    let iw = image.width, ih = image.height
    guard iw > 0, ih > 0, image.pixels.count >= iw * ih * 3 else { return Plane(width: 0, height: 0) }
    let w = (iw + s - 1) / s, h = (ih + s - 1) / s
    var blue = [Int](repeating: 0, count: w), redGreen = [Int](repeating: 0, count: w)
    // Logs of every sum a block of up to 8 x 8 pixels can give, so a pixel costs two lookups.
    let logs: [Float] = s <= 8 ? (0...(512 * s * s)).map { log(Float($0)) } : []
    // Every sample is written below (each block row in full), so the plane is not zeroed first.
    var out = Plane(width: w, height: h) { o in
        image.pixels.withUnsafeBufferPointer { px in
            logs.withUnsafeBufferPointer { lg in
                blue.withUnsafeMutableBufferPointer { bp in
                    redGreen.withUnsafeMutableBufferPointer { rgp in
                        let base = px.baseAddress!, b = bp.baseAddress!, rg = rgp.baseAddress!
                        let table = lg.baseAddress, entries = lg.count
                        // Whole 2-pixel blocks (the usual working scale) go without the generic
                        // block loop, the same integer sums; a block row's first image row
                        // stores them, so only the other columns are zeroed per block row.
                        let pairs = s == 2 ? iw / 2 : 0
                        for y in 0..<h {
                            (b + pairs).update(repeating: 0, count: w &- pairs)
                            (rg + pairs).update(repeating: 0, count: w &- pairs)
                            let y0 = y &* s, y1 = min(y0 &+ s, ih)
                            for yy in y0..<y1 {
                                var p = base + yy &* iw &* 3
                                var x = 0
                                var first = 0
                                if s == 2 {
                                    let store = yy == y0
                                    if wide {
                                        ck_stain_pairs_avx2(p, pairs, rg, b, store ? 1 : 0)
                                    } else if store {
                                        for k in 0..<pairs {
                                            let q = p + k &* 6
                                            rg[k] = Int(q[0]) &+ Int(q[1]) &+ Int(q[3]) &+ Int(q[4])
                                            b[k] = Int(q[2]) &+ Int(q[5])
                                        }
                                    } else {
                                        for k in 0..<pairs {
                                            let q = p + k &* 6
                                            rg[k] &+= Int(q[0]) &+ Int(q[1]) &+ Int(q[3]) &+ Int(q[4])
                                            b[k] &+= Int(q[2]) &+ Int(q[5])
                                        }
                                    }
                                    first = pairs
                                    x = pairs &* 2
                                    p += pairs &* 6
                                }
                                for k in first..<w {
                                    let end = min(x &+ s, iw)
                                    var sb = 0, srg = 0
                                    while x < end {
                                        srg &+= Int(p[0]) &+ Int(p[1])
                                        sb &+= Int(p[2])
                                        p += 3
                                        x &+= 1
                                    }
                                    b[k] &+= sb
                                    rg[k] &+= srg
                                }
                            }
                            // One count per pixel keeps black blocks finite.
                            let rows = y1 &- y0
                            let row = o + y &* w
                            for k in 0..<w {
                                let n = rows &* (min(k &* s &+ s, iw) &- k &* s)
                                let top = 2 &* b[k] &+ 2 &* n, bottom = rg[k] &+ 2 &* n
                                row[k] = top < entries && bottom < entries
                                    ? table![top] - table![bottom] : log(Float(top)) - log(Float(bottom))
                            }
                        }
                    }
                }
            }
        }
    }
    var sample = stride(from: 0, to: out.count, by: max(1, out.count / 4096)).map { out.data[$0] }
    let median = selectKth(&sample, sample.count / 2) ?? 0
    for i in 0..<out.count { out.data[i] -= median }
    return out
}

/// Centre of the stain around a point: the centroid of `plane - floor` over the samples within
/// `radius` that exceed `floor`, iterated `iterations` times from (x, y). Returns (x, y) when
/// nothing within reach exceeds the floor.
///
/// - Parameters:
///   - plane: stain plane (`stainPlane`), smoothed.
///   - x, y, radius: start and search radius, pixels of the plane.
///   - floor: stain level below which a sample does not count.
public func stainCentroid(_ plane: Plane, x: Double, y: Double, radius: Double, floor: Float,
                          iterations: Int = 2) -> (x: Double, y: Double) {
    weightedCentroid(plane, x: x, y: y, radius: radius, floor: floor, iterations: max(1, iterations))
}

/// The stain map of a colour image and the boundary evidence it gives stained candidates.
///
/// A dead cell lying on a ruling line shares its edges with the line in luminance, so its
/// boundary there is broken or runs along the grid; on the stain map the line is gone and
/// the cell is a disc with a boundary all round.
struct StainEvidence {
    /// Stain plane at the working scale (smoothed at scale 1).
    let plane: Plane
    /// Boundary gradient threshold on the plane.
    let threshold: Float
    /// Smallest stain at a candidate's centre for it to count as stained.
    let level: Float
    /// Log luminance (background 0) at the same scale: the dye absorbs, so a stained cell is
    /// darker than the background; a bright ruling line on a yellowish lamp is merely white.
    let logLuminance: Plane

    /// - Parameters:
    ///   - level: stain level (`PipelineConfig.stainLevel`); 0 or less gives nil.
    ///   - thresholdNoise: boundary threshold in gradient-noise units of the plane.
    ///   - logLuminance: smoothed log of the flattened luminance, working scale.
    init?(image: Image, scale: Int, level: Double, thresholdNoise: Double, logLuminance: Plane) {
        guard level > 0 else { return nil }
        self.logLuminance = logLuminance
        // A block of 2 x 2 pixels or more already averages the sensor's and JPEG's chroma
        // noise (a blur on top moves the synthetic sets' F1 by 0.1 points either way and
        // costs as much as the plane); single pixels are smoothed.
        let raw = stainPlane(image, scale: scale)
        plane = scale > 1 ? raw : gaussianBlur(raw, sigma: 1)
        guard plane.count > 0 else { return nil }
        threshold = Float(thresholdNoise) * gradientNoise(plane)
        self.level = Float(level)
    }

    func isStained(x: Double, y: Double) -> Bool { plane.bilinear(x, y) >= level && logLuminance.bilinear(x, y) < 0 }

    /// Edge coverage of the candidate's boundary on the stain map; 0 when it is not stained.
    func coverage(of c: Candidate) -> Double {
        guard isStained(x: c.x, y: c.y) else { return 0 }
        return radialEdgeCoverage(plane, x: c.x, y: c.y, r: c.r, threshold: threshold).coverage
    }

    /// Edge coverage of a stained candidate in a clump of stained cells: the sectors where its
    /// boundary shows on the stain map and those that face a stained neighbour into which its
    /// own stain runs on (`TouchingNeighbours`; stained 1.2 radii out towards it); 0 when it is
    /// not stained.
    ///
    /// Why: touching dead cells are one stained blob; where each meets the next the stain does
    /// not fall, so a dead cell with two or three dead neighbours shows its stain boundary in
    /// 9-11 of 16 sectors, some in fewer (a quarter of the independent synthetic draws' dead cells lost in
    /// clumps of dead cells were lost so).
    ///
    /// - Parameter neighbours: candidates that passed the boundary test on their own.
    func clumpCoverage(of c: Candidate, beside neighbours: [Candidate]) -> Double {
        guard isStained(x: c.x, y: c.y) else { return 0 }
        let rim = radialEdgeCoverage(plane, x: c.x, y: c.y, r: c.r, threshold: threshold).sectorHits
        guard rim.count == 16 else { return 0 }
        let facing = TouchingNeighbours.sectors(of: c, among: neighbours) { n in
            let dx = n.x - c.x, dy = n.y - c.y
            let reach = 1.2 * c.r / (dx * dx + dy * dy).squareRoot()
            return isStained(x: n.x, y: n.y) && isStained(x: c.x + reach * dx, y: c.y + reach * dy)
        }
        return Double((0..<16).filter { rim[$0] || facing[$0] }.count) / 16
    }

    /// The candidate moved to the centre of its stain (a voted centre can be pulled towards a
    /// line whose edges it shares); unchanged when it is not stained.
    func centred(_ c: Candidate) -> Candidate {
        guard isStained(x: c.x, y: c.y) else { return c }
        let m = stainCentroid(plane, x: c.x, y: c.y, radius: 1.2 * c.r, floor: 0.5 * level)
        var c = c
        c.x = m.x
        c.y = m.y
        return c
    }
}
