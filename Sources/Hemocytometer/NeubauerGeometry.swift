/// The ruling of a Neubauer-improved counting chamber, in micrometres.
///
/// Chamber coordinates: origin at the top-left corner of the 3 x 3 mm ruled area, x to the
/// right, y down, the same orientation as image pixels. A boundary drawn as a triple line is
/// located at its middle line (the manufacturers' "Maßlinie"); the two outer lines sit
/// `tripleLineOffsetUm` either side.
public enum NeubauerGeometry {
    /// Side of the ruled area, µm (3 mm).
    public static let ruledAreaUm: Double = 3000
    /// Side of one of the nine large squares, µm (1 mm).
    public static let largeSquareUm: Double = 1000
    /// Large squares per side of the ruled area.
    public static let largeSquaresPerSide = 3
    /// Side of a group square of the central large square (5 x 5 of them), µm.
    public static let groupSquareUm: Double = 200
    /// Side of the smallest squares inside each group square (4 x 4 per group), µm.
    public static let smallSquareUm: Double = 50
    /// Side of the sixteen squares of each corner large square (4 x 4), µm.
    public static let cornerSubsquareUm: Double = 250
    /// Depth between the ruled floor and the cover glass, µm (0.1 mm).
    public static let chamberDepthUm: Double = 100
    /// Distance from the middle line of a triple line to each outer line, µm. Manufacturers
    /// draw them a few µm apart; detectors should allow some slack around this value.
    public static let tripleLineOffsetUm: Double = 5
    /// Volume over one large square, µL: 1 mm x 1 mm x 0.1 mm = 0.1 µL.
    public static let largeSquareVolumeMicrolitres: Double = 0.1
    /// Converts a count per large square to cells per mL: 1 / 0.1 µL = 10^4 per mL.
    public static let cellsPerMLPerCellPerSquare: Double = 1e4

    /// How a ruling line is drawn.
    public enum LineStyle: String, Sendable, Equatable {
        case single
        /// Three parallel lines; the middle one is the boundary.
        case triple
    }

    /// A line of the ruling. For a vertical line `positionUm` is its x and the extent runs
    /// along y; for a horizontal line the other way round. All values in µm.
    public struct RulingLine: Sendable, Equatable {
        public var positionUm: Double
        public var style: LineStyle
        /// Start and end of the drawn segment along the other axis, µm.
        public var extentStartUm: Double
        public var extentEndUm: Double
        public init(positionUm: Double, style: LineStyle, extentStartUm: Double, extentEndUm: Double) {
            self.positionUm = positionUm
            self.style = style
            self.extentStartUm = extentStartUm
            self.extentEndUm = extentEndUm
        }

        /// Positions of every stroke drawn for this line, µm: one for a single line, three
        /// (middle +/- `tripleLineOffsetUm`) for a triple line.
        public var strokePositionsUm: [Double] {
            switch style {
            case .single: return [positionUm]
            case .triple: return [positionUm - tripleLineOffsetUm, positionUm, positionUm + tripleLineOffsetUm]
            }
        }
    }

    /// Every ruling line of one direction, sorted by position. The ruling is symmetric, so the
    /// vertical lines (positions are x) and the horizontal lines (positions are y) are the
    /// same list.
    ///
    /// - Triple lines at 0, 1000, 2000, 3000 (large-square borders) and at 1200 ... 1800 every
    ///   200 (group squares of the central column/row), spanning the whole ruled area.
    /// - Single lines at 250, 500, 750 and 2250, 2500, 2750 (corner subdivisions), spanning
    ///   the whole ruled area.
    /// - Single lines every 50 inside each group square of the central large square,
    ///   spanning only the central large square (1000 ... 2000 along the other axis).
    public static func rulingLines() -> [RulingLine] {
        var lines: [RulingLine] = []
        let full = (0.0, ruledAreaUm)
        let central = (largeSquareUm, 2 * largeSquareUm)
        for k in 0...3 {
            lines.append(RulingLine(positionUm: Double(k) * largeSquareUm, style: .triple,
                                    extentStartUm: full.0, extentEndUm: full.1))
        }
        for k in 1...4 {
            lines.append(RulingLine(positionUm: largeSquareUm + Double(k) * groupSquareUm, style: .triple,
                                    extentStartUm: full.0, extentEndUm: full.1))
        }
        for k in 1...3 {
            let offset = Double(k) * cornerSubsquareUm
            lines.append(RulingLine(positionUm: offset, style: .single, extentStartUm: full.0, extentEndUm: full.1))
            lines.append(RulingLine(positionUm: 2 * largeSquareUm + offset, style: .single,
                                    extentStartUm: full.0, extentEndUm: full.1))
        }
        for group in 0..<5 {
            let start = largeSquareUm + Double(group) * groupSquareUm
            for k in 1...3 {
                lines.append(RulingLine(positionUm: start + Double(k) * smallSquareUm, style: .single,
                                        extentStartUm: central.0, extentEndUm: central.1))
            }
        }
        return lines.sorted { $0.positionUm < $1.positionUm }
    }

    /// Spacing between neighbouring ruling lines (middle lines), µm, for a position along an
    /// axis: 250 in the outer large-square columns/rows, 200 in the central one, and 50 inside
    /// the central large square when `insideCentralSquare` is true.
    public static func lineSpacingUm(atUm position: Double, insideCentralSquare: Bool) -> Double {
        let central = position >= largeSquareUm && position < 2 * largeSquareUm
        if !central { return cornerSubsquareUm }
        return insideCentralSquare ? smallSquareUm : groupSquareUm
    }

    /// The four corners of a large square in chamber µm, clockwise from top-left.
    public static func corners(of square: LargeSquare) -> [Point] {
        let x0 = Double(square.column) * largeSquareUm
        let y0 = Double(square.row) * largeSquareUm
        return [Point(x: x0, y: y0), Point(x: x0 + largeSquareUm, y: y0),
                Point(x: x0 + largeSquareUm, y: y0 + largeSquareUm), Point(x: x0, y: y0 + largeSquareUm)]
    }

    /// The four corners of the ruled area in chamber µm, clockwise from top-left.
    public static let ruledAreaCorners: [Point] = [
        Point(x: 0, y: 0), Point(x: ruledAreaUm, y: 0), Point(x: ruledAreaUm, y: ruledAreaUm), Point(x: 0, y: ruledAreaUm),
    ]

    /// All nine large squares in row-major order.
    public static let allLargeSquares: [LargeSquare] = (0..<3).flatMap { row in
        (0..<3).map { LargeSquare(row: row, column: $0) }
    }

    /// The large squares lying entirely inside an image of `imageWidth` x `imageHeight`
    /// pixels, given the mapping from chamber µm to image pixels. Pixel centres are at
    /// integer coordinates, so the image spans -0.5 ... width - 0.5. Squares whose corners do
    /// not map to finite points are left out. Result in row-major order.
    public static func visibleSquares(chamberToImage: Homography, imageWidth: Int, imageHeight: Int) -> [LargeSquare] {
        let maxX = Double(imageWidth) - 0.5
        let maxY = Double(imageHeight) - 0.5
        return allLargeSquares.filter { square in
            corners(of: square).allSatisfy { corner in
                guard let p = chamberToImage.apply(corner) else { return false }
                return p.x >= -0.5 && p.x <= maxX && p.y >= -0.5 && p.y <= maxY
            }
        }
    }
}
