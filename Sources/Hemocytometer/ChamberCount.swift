/// A point in a 2-D plane; image pixels or chamber micrometres depending on context.
public struct Point: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// One of the nine 1 mm large squares of a Neubauer-improved chamber; row and column 0...2,
/// counted from the top-left of the ruled area.
public struct LargeSquare: Sendable, Equatable, Hashable, Comparable {
    public var row: Int
    public var column: Int
    public init(row: Int, column: Int) {
        self.row = row
        self.column = column
    }
    public static func < (a: LargeSquare, b: LargeSquare) -> Bool {
        (a.row, a.column) < (b.row, b.column)
    }
    /// The four corner squares: the default counting squares for cells.
    public static let corners = [LargeSquare(row: 0, column: 0), LargeSquare(row: 0, column: 2),
                                 LargeSquare(row: 2, column: 0), LargeSquare(row: 2, column: 2)]
}

/// The tally of one large square and its verdict from the MAD outlier rule.
public struct SquareTally: Sendable, Equatable {
    public var square: LargeSquare
    public var total: Int
    public var live: Int
    public var dead: Int
    /// Robust z-score 0.6745 * (total - median) / MAD over the counted squares; 0 when MAD is 0.
    public var robustZ: Double
    public var rejected: Bool
    public init(square: LargeSquare, total: Int, live: Int, dead: Int, robustZ: Double, rejected: Bool) {
        self.square = square
        self.total = total
        self.live = live
        self.dead = dead
        self.robustZ = robustZ
        self.rejected = rejected
    }
}

/// The result of counting one chamber image by the Neubauer rules.
public struct ChamberCount: Sendable, Equatable {
    /// Every cell detected in the image, whether or not it fell in a counted square.
    public var total: Int
    public var live: Int
    public var dead: Int
    /// Per counted large square (only squares visible in the image), in row-major order.
    public var squares: [SquareTally]
    /// Mean cells per accepted large square; nil when no square could be counted (no grid).
    public var meanPerSquare: Double?
    /// Cells per millilitre: mean per large square x 10^4 x dilution; nil without a grid.
    public var concentrationPerML: Double?
    /// live / (live + dead) x 100 over all detected cells; nil when there are none.
    public var viabilityPercent: Double?
    /// Quality flags raised by the counting rules ("overcrowded", "too-sparse", ...).
    public var flags: [String]

    public init(total: Int, live: Int, dead: Int, squares: [SquareTally], meanPerSquare: Double?,
                concentrationPerML: Double?, viabilityPercent: Double?, flags: [String]) {
        self.total = total
        self.live = live
        self.dead = dead
        self.squares = squares
        self.meanPerSquare = meanPerSquare
        self.concentrationPerML = concentrationPerML
        self.viabilityPercent = viabilityPercent
        self.flags = flags
    }
}
