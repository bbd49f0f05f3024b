import Fixtures
import Hemocytometer
import Vision

/// What a fixture's label says, in the form scoring needs. Built from a labels-v1 label by
/// the runner; kept separate so that metrics are plain functions of plain values.
public struct GroundTruth: Sendable, Equatable {
    public struct Cell: Sendable, Equatable {
        /// Centre, pixels.
        public var x: Double
        public var y: Double
        /// Radius, pixels; nil when the label has none.
        public var r: Double?
        /// nil when the label does not say live or dead.
        public var cellClass: CellClass?
        public init(x: Double, y: Double, r: Double? = nil, cellClass: CellClass? = nil) {
            self.x = x
            self.y = y
            self.r = r
            self.cellClass = cellClass
        }
    }

    /// The counting area: four corners (pixels, clockwise from top-left) spanning widthUm x
    /// heightUm micrometres of the chamber.
    public struct Grid: Sendable, Equatable {
        public var corners: [Point]
        public var widthUm: Double
        public var heightUm: Double
        public init(corners: [Point], widthUm: Double, heightUm: Double) {
            self.corners = corners
            self.widthUm = widthUm
            self.heightUm = heightUm
        }

        /// Image pixels -> chamber micrometres, from the four corners; nil for a degenerate grid.
        public var toChamber: Homography? {
            guard corners.count == 4, widthUm > 0, heightUm > 0 else { return nil }
            return Homography(from: corners, to: [Point(x: 0, y: 0), Point(x: widthUm, y: 0),
                                                  Point(x: widthUm, y: heightUm), Point(x: 0, y: heightUm)])
        }
    }

    /// An inclusive acceptance range on a predicted count; either bound optional.
    public struct CountRange: Sendable, Equatable {
        public var min: Double?
        public var max: Double?
        public init(min: Double? = nil, max: Double? = nil) {
            self.min = min
            self.max = max
        }
        public func contains(_ value: Double) -> Bool {
            (min.map { value >= $0 } ?? true) && (max.map { value <= $0 } ?? true)
        }
    }

    /// labels-v1 `expect`: ranges on the predicted total, live and dead counts.
    public struct Expectations: Sendable, Equatable {
        public var total: CountRange?
        public var live: CountRange?
        public var dead: CountRange?
        public init(total: CountRange? = nil, live: CountRange? = nil, dead: CountRange? = nil) {
            self.total = total
            self.live = live
            self.dead = dead
        }
    }

    public var cells: [Cell]
    /// Micrometres per pixel, when the label is calibrated.
    public var umPerPixel: Double?
    /// Dilution factor of the sample (labels-v1 default 1).
    public var dilution: Double
    public var grid: Grid?
    public var expect: Expectations
    public var tags: [String]

    public init(cells: [Cell], umPerPixel: Double? = nil, dilution: Double = 1, grid: Grid? = nil,
                expect: Expectations = Expectations(), tags: [String] = []) {
        self.cells = cells
        self.umPerPixel = umPerPixel
        self.dilution = dilution
        self.grid = grid
        self.expect = expect
        self.tags = tags
    }

    /// The tag that marks an empty chamber: every detection on it is a false detection.
    public static let blankControlTag = "blank-control"
    public var isBlankControl: Bool { tags.contains(GroundTruth.blankControlTag) }

    /// The labelled cells as matching targets.
    public var matchTargets: [MatchTarget] { cells.map { MatchTarget(x: $0.x, y: $0.y, r: $0.r) } }

    /// The count the labels imply by the Neubauer rules: each labelled centre mapped through
    /// the homography from the label's grid corners to chamber micrometres, then the same
    /// counting rule as the pipeline (`countChamber`: inclusion rule, MAD rejection,
    /// concentration with the label's dilution). nil without a grid or when the corners are
    /// degenerate.
    /// - Parameters:
    ///   - imageWidth, imageHeight: pixels; decide which large squares are fully visible.
    ///   - settings: counting settings; its dilution is replaced by the label's.
    public func chamberCount(imageWidth: Int, imageHeight: Int, settings: CountSettings = CountSettings()) -> ChamberCount? {
        guard let toChamber = grid?.toChamber, let toImage = toChamber.inverse else { return nil }
        let chamberCells = cells.map { cell in
            ChamberCell(position: toChamber.apply(Point(x: cell.x, y: cell.y)), isDead: cell.cellClass == .dead)
        }
        var labelSettings = settings
        labelSettings.dilution = dilution
        let visible = NeubauerGeometry.visibleSquares(chamberToImage: toImage, imageWidth: imageWidth, imageHeight: imageHeight)
        return countChamber(cells: chamberCells, visibleSquares: visible, settings: labelSettings)
    }
}

extension GroundTruth {
    /// The concentration the labels imply from the density over the whole field, as the
    /// pipeline gives it when no large square is fully in view ("concentration-from-area"):
    /// labelled cells per mm² of chamber (0.1 µL over each) x 10^4 x the label's dilution. The
    /// field is the image's outline mapped through the label's grid (perspective included), or
    /// width x height x `umPerPixel`² without a grid. nil without either, or for a degenerate
    /// field.
    public func areaConcentration(imageWidth: Int, imageHeight: Int) -> Double? {
        guard imageWidth > 0, imageHeight > 0 else { return nil }
        var areaUm2: Double?
        if let toChamber = grid?.toChamber {
            let w = Double(imageWidth), h = Double(imageHeight)
            let outline = [Point(x: 0, y: 0), Point(x: w, y: 0), Point(x: w, y: h), Point(x: 0, y: h)].compactMap(toChamber.apply)
            if outline.count == 4 {
                // Shoelace: the mapped outline is a quadrilateral (a homography keeps lines straight).
                var twice = 0.0
                for k in 0..<4 {
                    let a = outline[k], b = outline[(k + 1) % 4]
                    twice += a.x * b.y - b.x * a.y
                }
                areaUm2 = abs(twice) / 2
            }
        } else if let umPerPixel, umPerPixel > 0 {
            areaUm2 = Double(imageWidth) * Double(imageHeight) * umPerPixel * umPerPixel
        }
        guard let areaUm2 else { return nil }
        return fieldDensity(cells: cells.count, areaMM2: areaUm2 / 1e6, dilution: dilution)?.perML
    }

    /// The ground truth a labels-v1 label states.
    public init(label: Label) {
        self.init(
            cells: label.cells.map { cell in
                Cell(x: cell.x, y: cell.y, r: cell.r, cellClass: cell.label.map { $0 == .dead ? .dead : .live })
            },
            umPerPixel: label.umPerPixel,
            dilution: label.dilution,
            grid: label.grid.map { grid in
                Grid(corners: grid.corners.map { Point(x: $0.x, y: $0.y) }, widthUm: grid.widthUm, heightUm: grid.heightUm)
            },
            expect: Expectations(total: label.expect?.total.map(CountRange.init(label:)),
                                 live: label.expect?.live.map(CountRange.init(label:)),
                                 dead: label.expect?.dead.map(CountRange.init(label:))),
            tags: label.tags)
    }
}

extension GroundTruth.CountRange {
    init(label range: Fixtures.CountRange) {
        self.init(min: range.min.map(Double.init), max: range.max.map(Double.init))
    }
}
