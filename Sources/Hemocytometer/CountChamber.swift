/// One detected cell as the counting rules see it.
public struct ChamberCell: Sendable, Equatable {
    /// Centre in chamber µm (origin top-left of the ruled area); nil when the image could not
    /// be calibrated to the grid. Such cells count towards the totals and viability only.
    public var position: Point?
    public var isDead: Bool
    public init(position: Point?, isDead: Bool) {
        self.position = position
        self.isDead = isDead
    }
}

/// Parameters of the Neubauer counting rules.
public struct CountSettings: Sendable, Equatable {
    /// Large squares to count, by preference. Default: the four corner squares.
    public var squares: [LargeSquare]
    /// Robust z cut for rejecting outlier squares (see `MADOutlierRule`).
    public var madCut: Double
    /// Dilution factor of the sample (>= 1 for a diluted sample); multiplies the concentration.
    public var dilution: Double
    /// Mean cells per large square above which the sample is flagged "overcrowded".
    public var overcrowdedPerSquare: Double
    /// Mean cells per large square below which the sample is flagged "too-sparse".
    public var sparsePerSquare: Double

    public init(squares: [LargeSquare] = LargeSquare.corners, madCut: Double = 2.5, dilution: Double = 1,
                overcrowdedPerSquare: Double = 300, sparsePerSquare: Double = 10) {
        self.squares = squares
        self.madCut = madCut
        self.dilution = dilution
        self.overcrowdedPerSquare = overcrowdedPerSquare
        self.sparsePerSquare = sparsePerSquare
    }
}

/// Quality flag names raised by `countChamber`.
public enum CountFlag {
    public static let overcrowded = "overcrowded"
    public static let tooSparse = "too-sparse"
}

/// Counts a chamber by the Neubauer rules.
///
/// - Parameters:
///   - cells: every detected cell, with its centre in chamber µm when calibrated.
///   - visibleSquares: the large squares lying entirely inside the image; only these can be
///     counted (a partly visible square would undercount).
///   - settings: squares to use, MAD cut, dilution and quality limits.
/// - Returns: totals and viability over all cells; per-square tallies, rejected squares,
///   mean per accepted square and concentration (cells/mL = mean x 10^4 x dilution) over the
///   counted squares.
///
/// Counted squares are the preferred `settings.squares` that are visible. When none of them
/// is visible (at high magnification an image often shows only part of the ruled area) every
/// visible square is counted instead, so an image showing e.g. only the central square
/// still yields a concentration. Cells are assigned with the inclusion rule of
/// `NeubauerGeometry.largeSquare(containing:)`. Without any counted square (no grid, or no
/// square fully visible) the square-based values are nil and no density flag is raised.
public func countChamber(cells: [ChamberCell], visibleSquares: [LargeSquare], settings: CountSettings) -> ChamberCount {
    let visible = Set(visibleSquares)
    var counted = Set(settings.squares.filter { visible.contains($0) })
    if counted.isEmpty { counted = visible }
    let order = counted.sorted()

    var live = [LargeSquare: Int]()
    var dead = [LargeSquare: Int]()
    var deadTotal = 0
    for cell in cells {
        if cell.isDead { deadTotal += 1 }
        guard let p = cell.position, let square = NeubauerGeometry.largeSquare(containing: p),
              counted.contains(square) else { continue }
        if cell.isDead { dead[square, default: 0] += 1 } else { live[square, default: 0] += 1 }
    }

    let totals = order.map { Double(live[$0, default: 0] + dead[$0, default: 0]) }
    let verdicts = MADOutlierRule(cut: settings.madCut).evaluate(totals)
    var tallies: [SquareTally] = []
    var acceptedSum = 0.0
    var acceptedCount = 0
    for (i, square) in order.enumerated() {
        let l = live[square, default: 0]
        let d = dead[square, default: 0]
        tallies.append(SquareTally(square: square, total: l + d, live: l, dead: d,
                                   robustZ: verdicts[i].z, rejected: verdicts[i].rejected))
        if !verdicts[i].rejected {
            acceptedSum += Double(l + d)
            acceptedCount += 1
        }
    }

    let mean: Double? = acceptedCount > 0 ? acceptedSum / Double(acceptedCount) : nil
    var flags: [String] = []
    if let mean {
        if mean > settings.overcrowdedPerSquare { flags.append(CountFlag.overcrowded) }
        if mean < settings.sparsePerSquare { flags.append(CountFlag.tooSparse) }
    }
    let total = cells.count
    return ChamberCount(
        total: total, live: total - deadTotal, dead: deadTotal, squares: tallies, meanPerSquare: mean,
        concentrationPerML: mean.map { $0 * NeubauerGeometry.cellsPerMLPerCellPerSquare * settings.dilution },
        viabilityPercent: total > 0 ? Double(total - deadTotal) / Double(total) * 100 : nil,
        flags: flags)
}

/// The density over a field of chamber floor, the count's fallback when no large square is
/// fully in view: cells per mm² (the mean per 1 mm large square) and cells per mL (x 10^4, the
/// 0.1 µL over each mm², x `dilution`). nil for a field that is empty or not finite.
/// - Parameters:
///   - cells: cells counted over the field.
///   - areaMM2: the field's area of chamber floor, mm².
public func fieldDensity(cells: Int, areaMM2: Double, dilution: Double) -> (perSquare: Double, perML: Double)? {
    guard areaMM2.isFinite, areaMM2 > 0 else { return nil }
    let perSquare = Double(cells) / areaMM2
    return (perSquare, perSquare * NeubauerGeometry.cellsPerMLPerCellPerSquare * dilution)
}
