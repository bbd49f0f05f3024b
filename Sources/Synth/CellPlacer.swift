import Foundation

/// Places non-overlapping cells, some in touching clumps, keeping a bucket index so dense
/// scenes stay linear in the number of cells.
struct CellPlacer {
    let width: Int
    let height: Int
    private let bucketSize = 32.0
    private let columns: Int
    private let rows: Int
    private var buckets: [[Int]]
    private(set) var cells: [CellSpec] = []

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        columns = max(1, Int((Double(width) / bucketSize).rounded(.up)))
        rows = max(1, Int((Double(height) / bucketSize).rounded(.up)))
        buckets = [[Int]](repeating: [], count: columns * rows)
    }

    /// Places up to `count` cells (fewer when the picture is too full to fit them without
    /// overlap).
    ///
    /// - Parameters:
    ///   - clumpFraction: share of cells placed in groups of 2-6 touching cells.
    ///   - deadFraction: probability that a cell is dead.
    ///   - meanRadius: typical radius, px; individual radii vary about 12 % (log-normal).
    mutating func place(count: Int, clumpFraction: Double, deadFraction: Double, meanRadius: Double,
                        style: CellStyle, _ rng: inout SeededRandom) -> [CellSpec] {
        guard count > 0, width > 4, height > 4 else { return [] }
        let clumped = Int((Double(count) * clumpFraction).rounded())
        let w = Double(width - 1)
        let h = Double(height - 1)
        let anywhere = { (rng: inout SeededRandom) in (rng.uniform(0, w), rng.uniform(0, h)) }
        var placedInClumps = 0
        var attempts = 0
        while placedInClumps < clumped && attempts < clumped * 4 {
            attempts += 1
            let size = min(rng.int(2...6), clumped - placedInClumps)
            guard let first = tryPlace(radius: radius(meanRadius, &rng), tries: 30, separation: 1.05, &rng,
                                       position: anywhere) else { continue }
            var members = [(x: cells[first].x, y: cells[first].y, r: cells[first].radius)]
            placedInClumps += 1
            for _ in 1..<max(size, 1) {
                let r = radius(meanRadius, &rng)
                let anchors = members
                let added = tryPlace(radius: r, tries: 15, separation: 0.8, &rng) { rng in
                    let anchor = anchors[rng.int(0...(anchors.count - 1))]
                    let distance = (anchor.r + r) * rng.uniform(0.82, 1.0)
                    let a = rng.uniform(0, 2 * Double.pi)
                    return (anchor.x + distance * cos(a), anchor.y + distance * sin(a))
                }
                if let added {
                    members.append((cells[added].x, cells[added].y, cells[added].radius))
                    placedInClumps += 1
                }
            }
        }
        var singles = count - placedInClumps
        var misses = 0
        while singles > 0 && misses < 50 {
            let r = radius(meanRadius, &rng)
            if tryPlace(radius: r, tries: 40, separation: 1.05, &rng, position: anywhere) != nil
                || tryPlace(radius: r, tries: 20, separation: 0.85, &rng, position: anywhere) != nil {
                singles -= 1
            } else {
                misses += 1
            }
        }
        // Life/death and looks are drawn after placement so the layout stream does not
        // depend on them.
        for i in cells.indices {
            dress(&cells[i], dead: rng.chance(deadFraction), style: style, &rng)
        }
        return cells
    }

    private func radius(_ mean: Double, _ rng: inout SeededRandom) -> Double {
        let r = mean * exp(0.12 * max(-2.5, min(2.5, rng.normal())))
        return min(max(r, 4.5), 13)
    }

    /// Tries `tries` candidate centres from `position`; keeps the first that lies inside the
    /// picture (centre at least half a radius from the border) and is at least
    /// `separation x (r1 + r2)` from every placed cell. Returns its index.
    private mutating func tryPlace(radius r: Double, tries: Int, separation: Double, _ rng: inout SeededRandom,
                                   position: (inout SeededRandom) -> (Double, Double)) -> Int? {
        for _ in 0..<tries {
            let (x, y) = position(&rng)
            let margin = 0.5 * r
            guard x >= margin, y >= margin, x <= Double(width - 1) - margin, y <= Double(height - 1) - margin else {
                continue
            }
            if isFree(x: x, y: y, radius: r, separation: separation) {
                let ratio = rng.uniform(0.82, 1.0)
                let cell = CellSpec(x: x, y: y, semiMajor: r / ratio.squareRoot(), semiMinor: r * ratio.squareRoot(),
                                    angle: rng.uniform(0, Double.pi), lobeAmplitude: rng.uniform(0, 0.06),
                                    lobePhase: rng.uniform(0, 2 * Double.pi), isDead: false, centreGain: 0,
                                    rimStrength: 0, haloStrength: 0, bodyStrength: 0)
                let index = cells.count
                cells.append(cell)
                buckets[bucket(x: x, y: y)].append(index)
                return index
            }
        }
        return nil
    }

    private func bucket(x: Double, y: Double) -> Int {
        let c = min(max(Int(x / bucketSize), 0), columns - 1)
        let r = min(max(Int(y / bucketSize), 0), rows - 1)
        return r * columns + c
    }

    private func isFree(x: Double, y: Double, radius: Double, separation: Double) -> Bool {
        // Radii are at most 13 px, so neighbours closer than 2 x 13 x 1.05 lie within one bucket.
        let c0 = min(max(Int(x / bucketSize), 0), columns - 1)
        let r0 = min(max(Int(y / bucketSize), 0), rows - 1)
        for r in max(0, r0 - 1)...min(rows - 1, r0 + 1) {
            for c in max(0, c0 - 1)...min(columns - 1, c0 + 1) {
                for i in buckets[r * columns + c] {
                    let other = cells[i]
                    let dx = other.x - x
                    let dy = other.y - y
                    let limit = separation * (other.radius + radius)
                    if dx * dx + dy * dy < limit * limit { return false }
                }
            }
        }
        return true
    }

    /// Gives a placed cell its class and appearance, varied about the picture's style.
    private func dress(_ cell: inout CellSpec, dead: Bool, style: CellStyle, _ rng: inout SeededRandom) {
        let vary = { (rng: inout SeededRandom) in rng.uniform(0.8, 1.2) }
        cell.isDead = dead
        if dead {
            // Dead cells shrink a little and lose their refractile centre.
            let shrink = rng.uniform(0.88, 1.0)
            cell.semiMajor *= shrink
            cell.semiMinor *= shrink
            cell.centreGain = 0
            cell.rimStrength = style.rimStrength * 0.35 * vary(&rng)
            cell.haloStrength = style.haloStrength * 0.5 * vary(&rng)
            cell.bodyStrength = style.stain * vary(&rng)
        } else {
            cell.centreGain = style.centreGain * vary(&rng)
            cell.rimStrength = style.rimStrength * vary(&rng)
            cell.haloStrength = style.haloStrength * vary(&rng)
            cell.bodyStrength = style.bodyDarkness * vary(&rng)
        }
    }
}
