import JSON

/// A fixture label in the labels-v1 format (`../shared/labels-v1.md`): what a human marked in
/// one counting-chamber image. Coordinates are pixels, x right, y down, origin at the centre of
/// the top-left pixel.
public struct Label: Sendable, Equatable {
    /// The only format version this code reads and writes.
    public static let formatVersion = 1

    public var version: Int
    /// File name of the image when the stem rule is not enough (relative to the label's
    /// directory in the image tree).
    public var image: String?
    /// Image size in pixels, when the label states it.
    public var width: Int?
    public var height: Int?
    /// Calibration in micrometres per pixel.
    public var umPerPixel: Double?
    /// Dilution factor of the sample; 1 when the file does not say.
    public var dilution: Double
    public var grid: LabelGrid?
    /// Every labelled cell centre, in file order.
    public var cells: [LabelledCell]
    public var expect: CountExpectations?
    public var tags: [String]
    /// Unknown top-level fields, kept in file order for forward compatibility.
    public var extra: JSONObject

    public init(
        image: String? = nil, width: Int? = nil, height: Int? = nil, umPerPixel: Double? = nil,
        dilution: Double = 1, grid: LabelGrid? = nil, cells: [LabelledCell] = [],
        expect: CountExpectations? = nil, tags: [String] = [], extra: JSONObject = JSONObject()
    ) {
        self.version = Label.formatVersion
        self.image = image
        self.width = width
        self.height = height
        self.umPerPixel = umPerPixel
        self.dilution = dilution
        self.grid = grid
        self.cells = cells
        self.expect = expect
        self.tags = tags
        self.extra = extra
    }

    public var liveCount: Int { cells.count { $0.label == .live } }
    public var deadCount: Int { cells.count { $0.label == .dead } }
}

/// The viability class a human gave a cell (trypan blue: live cells clear, dead cells blue).
public enum CellLabel: String, Sendable, Equatable, CaseIterable {
    case live
    case dead
}

/// A point in image pixel coordinates.
public struct PixelPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// One labelled cell: its centre, optional radius in pixels and optional class
/// (nil = unknown).
public struct LabelledCell: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var r: Double?
    public var label: CellLabel?

    public init(x: Double, y: Double, r: Double? = nil, label: CellLabel? = nil) {
        self.x = x
        self.y = y
        self.r = r
        self.label = label
    }
}

/// The counting area: its four corners in pixels, clockwise from top-left (they may lie
/// outside the image at high magnification), and its real size in micrometres.
public struct LabelGrid: Sendable, Equatable {
    /// Size of the whole Neubauer-improved ruled area (nine 1 mm squares), used when a label
    /// gives corners without `widthUm`/`heightUm`.
    public static let neubauerImprovedSideUm = 3000.0

    /// Exactly four corners: top-left, top-right, bottom-right, bottom-left.
    public var corners: [PixelPoint]
    public var widthUm: Double
    public var heightUm: Double

    public init(corners: [PixelPoint], widthUm: Double = neubauerImprovedSideUm,
                heightUm: Double = neubauerImprovedSideUm) {
        self.corners = corners
        self.widthUm = widthUm
        self.heightUm = heightUm
    }
}

/// An acceptance range on a predicted count; either bound may be absent.
public struct CountRange: Sendable, Equatable {
    public var min: Int?
    public var max: Int?

    public init(min: Int? = nil, max: Int? = nil) {
        self.min = min
        self.max = max
    }

    public func contains(_ count: Int) -> Bool {
        if let min, count < min { return false }
        if let max, count > max { return false }
        return true
    }
}

/// Per-fixture acceptance ranges on the predicted total, live and dead counts.
public struct CountExpectations: Sendable, Equatable {
    public var total: CountRange?
    public var live: CountRange?
    public var dead: CountRange?

    public init(total: CountRange? = nil, live: CountRange? = nil, dead: CountRange? = nil) {
        self.total = total
        self.live = live
        self.dead = dead
    }
}
