import JSON

extension Label {
    /// Top-level fields labels-v1 defines; every other top-level field goes to `extra`.
    public static let knownFields: Set<String> = [
        "version", "image", "width", "height", "umPerPixel", "dilution", "grid", "cells", "expect", "tags",
    ]

    /// Parses and validates a label file's bytes. Throws every violation found (JSON syntax
    /// errors stop at the first; schema errors are all collected).
    public static func parse(_ bytes: [UInt8], file: String?) throws(LabelErrors) -> Label {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, file: file)
        } catch {
            throw LabelErrors(file: file, errors: [LabelError(error)])
        }
        return try decode(value, file: file)
    }

    /// Reads, parses and validates the label file at `path`.
    public static func load(path: String) throws(LabelErrors) -> Label {
        let value: JSONValue
        do {
            value = try JSONValue.load(path: path, maxBytes: maxLabelFileBytes)
        } catch {
            throw LabelErrors(file: path, errors: [LabelError(error)])
        }
        return try decode(value, file: path)
    }

    /// Largest radius accepted when the label does not state the image size: the largest side
    /// of a JPEG. With the size known, the limit is the image diagonal.
    public static let maxRadiusPx = 65500.0

    /// A label file is text listing cells; 64 MiB is millions of cells.
    public static let maxLabelFileBytes = 64 * 1024 * 1024

    /// Validates an already parsed JSON value against labels-v1.
    ///
    /// Rules: the top level is an object; `version` is the integer 1 (any other integer stops
    /// decoding, since the rest would be read by the wrong rules); `image` a non-empty string;
    /// `width`, `height` positive integers; `umPerPixel`, `dilution` positive numbers; `grid`
    /// has exactly 4 corners of 2 numbers forming a convex quadrilateral listed clockwise from
    /// top-left, and positive `widthUm`/`heightUm` (default 3000, the Neubauer-improved ruled
    /// area); `cells` is required, each with numeric `x`, `y`, an optional positive `r` and an
    /// optional `label` of "live" or "dead", and — when `width` and `height` are given — no
    /// farther outside the image than its radius; `expect` holds only `total`/`live`/`dead`,
    /// each only `min`/`max` as non-negative integers with min <= max; `tags` is an array of
    /// strings. A radius is at most the image diagonal (or `maxRadiusPx` without a stated
    /// size). A known field set to null has the wrong type. Unknown fields inside `grid` and
    /// cells are ignored (not kept); unknown keys inside `expect` are errors, because silently
    /// skipping an acceptance range would pass a fixture that should be gated.
    public static func decode(_ value: JSONValue, file: String?) throws(LabelErrors) -> Label {
        var decoder = LabelDecoder(file: file)
        let label = decoder.decodeLabel(JSONCursor(value, file: file))
        guard decoder.errors.isEmpty, let label else {
            throw LabelErrors(file: file, errors: decoder.errors)
        }
        return label
    }
}

/// Collects every violation in one pass over a label.
private struct LabelDecoder {
    let file: String?
    var errors: [LabelError] = []

    init(file: String?) { self.file = file }

    mutating func record(_ error: JSONError) { errors.append(LabelError(error)) }

    /// Runs `body`, recording its error; nil when it failed.
    mutating func attempt<T>(_ body: () throws(JSONError) -> T) -> T? {
        do {
            return try body()
        } catch {
            record(error)
            return nil
        }
    }

    mutating func decodeLabel(_ root: JSONCursor) -> Label? {
        guard let members = attempt({ () throws(JSONError) in try root.members() }) else { return nil }
        var fields: [String: JSONCursor] = [:]
        var label = Label()
        for (key, cursor) in members {
            if Label.knownFields.contains(key) { fields[key] = cursor } else { label.extra[key] = cursor.value }
        }
        if let version = fields["version"] {
            switch version.value {
            case .int(Int64(Label.formatVersion)):
                break
            case .int:
                // Another version's fields mean other things; reporting them by v1 rules would mislead.
                record(version.error(expected: "the integer \(Label.formatVersion) (this reader knows labels-v1 only)"))
                return nil
            default:
                record(version.error(expected: "the integer \(Label.formatVersion)"))
            }
        } else {
            record(root.error(message: "required field \"version\" is missing (labels-v1 files start with \"version\": 1)"))
        }
        if let image = fields["image"] {
            label.image = attempt { () throws(JSONError) in
                guard case .string(let name) = image.value, !name.isEmpty, !name.utf8.contains(0) else {
                    throw image.error(expected: "a non-empty file name")
                }
                return name
            }
        }
        label.width = fields["width"].flatMap { cursor in attempt { () throws(JSONError) in try positiveInteger(cursor, "pixels") } }
        label.height = fields["height"].flatMap { cursor in attempt { () throws(JSONError) in try positiveInteger(cursor, "pixels") } }
        label.umPerPixel = fields["umPerPixel"].flatMap { cursor in
            attempt { () throws(JSONError) in try positiveNumber(cursor, "micrometres per pixel") }
        }
        if let dilution = fields["dilution"] {
            label.dilution = attempt { () throws(JSONError) in try positiveNumber(dilution, "dilution factor") } ?? 1
        }
        if let grid = fields["grid"] { label.grid = decodeGrid(grid) }
        if let cells = fields["cells"] {
            let imageSize = label.width.flatMap { width in label.height.map { (width, $0) } }
            label.cells = decodeCells(cells, imageSize: imageSize)
        } else {
            record(root.error(message: "required field \"cells\" is missing (use [] for an image without cells)"))
        }
        if let expect = fields["expect"] { label.expect = decodeExpectations(expect) }
        if let tags = fields["tags"] { label.tags = decodeTags(tags) }
        return label
    }

    mutating func decodeCells(_ cursor: JSONCursor, imageSize: (width: Int, height: Int)?) -> [LabelledCell] {
        guard let items = attempt({ () throws(JSONError) in try cursor.array() }) else { return [] }
        var cells: [LabelledCell] = []
        cells.reserveCapacity(items.count)
        for item in items {
            guard let fields = attempt({ () throws(JSONError) in try item.members() }) else { continue }
            var x: Double?
            var y: Double?
            var cell = LabelledCell(x: 0, y: 0)
            var valid = true
            for (key, field) in fields {
                switch key {
                case "x": x = attempt { () throws(JSONError) in try finiteNumber(field) }
                case "y": y = attempt { () throws(JSONError) in try finiteNumber(field) }
                case "r":
                    cell.r = attempt { () throws(JSONError) in
                        try plausibleRadius(field, imageWidth: imageSize?.width, imageHeight: imageSize?.height)
                    }
                    if cell.r == nil { valid = false }
                case "label":
                    cell.label = attempt { () throws(JSONError) in
                        guard case .string(let name) = field.value, let label = CellLabel(rawValue: name) else {
                            throw field.error(expected: "\"live\" or \"dead\" (omit the field when unknown)")
                        }
                        return label
                    }
                default: break
                }
            }
            if x == nil, !fields.contains(where: { $0.key == "x" }) {
                record(item.error(message: "required field \"x\" is missing"))
            }
            if y == nil, !fields.contains(where: { $0.key == "y" }) {
                record(item.error(message: "required field \"y\" is missing"))
            }
            guard let x, let y, valid else { continue }
            cell.x = x
            cell.y = y
            if let imageSize, let error = outsideImageError(cell, at: item, width: imageSize.width, height: imageSize.height) {
                record(error)
            }
            cells.append(cell)
        }
        return cells
    }

    mutating func decodeGrid(_ cursor: JSONCursor) -> LabelGrid? {
        guard attempt({ () throws(JSONError) in try cursor.members() }) != nil else { return nil }
        let widthUm = attempt { () throws(JSONError) in
            try cursor.field("widthUm").map { field throws(JSONError) in try positiveNumber(field, "micrometres") }
                ?? LabelGrid.neubauerImprovedSideUm
        }
        let heightUm = attempt { () throws(JSONError) in
            try cursor.field("heightUm").map { field throws(JSONError) in try positiveNumber(field, "micrometres") }
                ?? LabelGrid.neubauerImprovedSideUm
        }
        guard let cornersCursor = attempt({ () throws(JSONError) in try cursor.required("corners") }),
              let items = attempt({ () throws(JSONError) in
                  guard case .array(let values) = cornersCursor.value, values.count == 4 else {
                      throw cornersCursor.error(expected: "exactly 4 corners [x, y], clockwise from top-left",
                                                actual: arrayDescription(cornersCursor.value))
                  }
                  return try cornersCursor.array()
              })
        else { return nil }
        var corners: [PixelPoint] = []
        for item in items {
            let corner = attempt { () throws(JSONError) in
                guard case .array(let pair) = item.value, pair.count == 2, let x = pair[0].number, let y = pair[1].number
                else { throw item.error(expected: "a corner [x, y] of 2 numbers", actual: arrayDescription(item.value)) }
                return PixelPoint(x: x, y: y)
            }
            if let corner { corners.append(corner) }
        }
        guard corners.count == 4, let widthUm, let heightUm else { return nil }
        if !isConvexClockwise(corners) {
            record(cornersCursor.error(
                expected: "corners of a convex quadrilateral listed clockwise from top-left (x right, y down)",
                actual: "corners that are counter-clockwise, self-crossing or degenerate"))
            return nil
        }
        return LabelGrid(corners: corners, widthUm: widthUm, heightUm: heightUm)
    }

    mutating func decodeExpectations(_ cursor: JSONCursor) -> CountExpectations? {
        guard let members = attempt({ () throws(JSONError) in try cursor.members() }) else { return nil }
        var expectations = CountExpectations()
        for (key, member) in members {
            let range = decodeRange(member)
            switch key {
            case "total": expectations.total = range
            case "live": expectations.live = range
            case "dead": expectations.dead = range
            default:
                record(member.error(message: "unknown count \"\(key)\": expected one of total, live, dead"))
            }
        }
        return expectations
    }

    mutating func decodeRange(_ cursor: JSONCursor) -> CountRange? {
        guard let members = attempt({ () throws(JSONError) in try cursor.members() }) else { return nil }
        var range = CountRange()
        for (key, member) in members {
            let bound = attempt { () throws(JSONError) in
                guard case .int(let count) = member.value, count >= 0 else {
                    throw member.error(expected: "a non-negative integer count")
                }
                return Int(count)
            }
            switch key {
            case "min": range.min = bound
            case "max": range.max = bound
            default: record(member.error(message: "unknown bound \"\(key)\": expected min and/or max"))
            }
        }
        if let min = range.min, let max = range.max, min > max {
            record(cursor.error(expected: "min <= max", actual: "min \(min) > max \(max)"))
            return nil
        }
        return range
    }

    mutating func decodeTags(_ cursor: JSONCursor) -> [String] {
        guard let items = attempt({ () throws(JSONError) in try cursor.array() }) else { return [] }
        return items.compactMap { item in attempt { () throws(JSONError) in try item.string() } }
    }
}

private func finiteNumber(_ cursor: JSONCursor) throws(JSONError) -> Double {
    guard let number = cursor.value.number, number.isFinite else { throw cursor.error(expected: "a number") }
    return number
}

private func positiveNumber(_ cursor: JSONCursor, _ meaning: String) throws(JSONError) -> Double {
    guard let number = cursor.value.number, number.isFinite, number > 0 else {
        throw cursor.error(expected: "a positive number (\(meaning))")
    }
    return number
}

/// A positive radius no larger than the image diagonal (when the size is known) or than
/// `Label.maxRadiusPx`: a larger radius is a typo, and since the match distance scales with it,
/// it would let any prediction match the cell.
private func plausibleRadius(_ cursor: JSONCursor, imageWidth: Int?, imageHeight: Int?) throws(JSONError) -> Double {
    let radius = try positiveNumber(cursor, "radius in pixels")
    if let error = implausibleRadiusError(radius, at: cursor, imageWidth: imageWidth, imageHeight: imageHeight) {
        throw error
    }
    return radius
}

/// The error for a radius beyond the image diagonal (or `Label.maxRadiusPx` when the image
/// size is unknown), nil when plausible.
func implausibleRadiusError(_ radius: Double, at cursor: JSONCursor, imageWidth: Int?, imageHeight: Int?) -> JSONError? {
    if let imageWidth, let imageHeight {
        let diagonal = (Double(imageWidth) * Double(imageWidth) + Double(imageHeight) * Double(imageHeight)).squareRoot()
        guard radius > diagonal else { return nil }
        let shown = (diagonal * 100).rounded() / 100
        return cursor.error(expected: "a radius in pixels of at most the image diagonal (\(JSONValue.double(shown).briefDescription))")
    }
    guard radius > Label.maxRadiusPx else { return nil }
    return cursor.error(expected: "a radius in pixels of at most \(Int(Label.maxRadiusPx))")
}

private func positiveInteger(_ cursor: JSONCursor, _ meaning: String) throws(JSONError) -> Int {
    guard case .int(let number) = cursor.value, number > 0 else {
        throw cursor.error(expected: "a positive integer (\(meaning))")
    }
    return Int(number)
}

private func arrayDescription(_ value: JSONValue) -> String? {
    if case .array(let items) = value { return "an array of \(items.count) element\(items.count == 1 ? "" : "s")" }
    return nil
}

/// True when every turn along the corner loop bends the same, clockwise way on screen
/// (y down), which also rules out self-crossing and collinear (zero-area) outlines.
func isConvexClockwise(_ corners: [PixelPoint]) -> Bool {
    let count = corners.count
    guard count >= 3 else { return false }
    for index in 0..<count {
        let a = corners[index]
        let b = corners[(index + 1) % count]
        let c = corners[(index + 2) % count]
        let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
        if !(cross > 0) { return false }
    }
    return true
}

/// The error for a cell whose centre lies farther outside the image than its radius (0 when
/// unknown). The image spans -0.5...size-0.5 because pixel centres sit on integers.
func outsideImageError(_ cell: LabelledCell, at cursor: JSONCursor, width: Int, height: Int) -> JSONError? {
    let right = Double(width) - 0.5
    let bottom = Double(height) - 0.5
    let dx = max(-0.5 - cell.x, 0, cell.x - right)
    let dy = max(-0.5 - cell.y, 0, cell.y - bottom)
    let distance = (dx * dx + dy * dy).squareRoot()
    let allowed = cell.r ?? 0
    guard distance > allowed else { return nil }
    let radiusText = cell.r.map { "its radius (\(JSONValue.double($0).briefDescription) px)" } ?? "0 px (no radius given)"
    return cursor.error(
        expected: "a centre inside the \(width) x \(height) image or within \(radiusText) of its edge",
        actual: "(\(JSONValue.double(cell.x).briefDescription), \(JSONValue.double(cell.y).briefDescription)), "
            + "\(JSONValue.double((distance * 100).rounded() / 100).briefDescription) px outside")
}
