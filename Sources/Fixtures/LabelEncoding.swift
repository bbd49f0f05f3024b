import JSON

extension Label {
    /// The label as labels-v1 JSON: known fields in the order of the format description,
    /// optional fields only when set (`dilution` only when not 1, `tags` only when non-empty),
    /// then the `extra` fields in their original order. `Label.decode(label.jsonValue, ...)`
    /// gives back an equal label.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object.set("version", .int(Int64(version)))
        object.set("image", ifPresent: image.map { .string($0) })
        object.set("width", ifPresent: width.map { .int(Int64($0)) })
        object.set("height", ifPresent: height.map { .int(Int64($0)) })
        object.set("umPerPixel", ifPresent: umPerPixel.map { .double($0) })
        if dilution != 1 { object.set("dilution", .double(dilution)) }
        if let grid {
            object.set("grid", [
                "corners": .array(grid.corners.map { .array([.double($0.x), .double($0.y)]) }),
                "widthUm": .double(grid.widthUm),
                "heightUm": .double(grid.heightUm),
            ])
        }
        object.set("cells", .array(cells.map(\.jsonValue)))
        if let expect {
            var ranges = JSONObject()
            ranges.set("total", ifPresent: expect.total.map(\.jsonValue))
            ranges.set("live", ifPresent: expect.live.map(\.jsonValue))
            ranges.set("dead", ifPresent: expect.dead.map(\.jsonValue))
            object.set("expect", .object(ranges))
        }
        if !tags.isEmpty { object.set("tags", .array(tags.map { .string($0) })) }
        for (key, value) in extra where object[key] == nil { object.set(key, value) }
        return .object(object)
    }
}

extension LabelledCell {
    public var jsonValue: JSONValue {
        var object: JSONObject = ["x": .double(x), "y": .double(y)]
        object.set("r", ifPresent: r.map { .double($0) })
        object.set("label", ifPresent: label.map { .string($0.rawValue) })
        return .object(object)
    }
}

extension CountRange {
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object.set("min", ifPresent: min.map { .int(Int64($0)) })
        object.set("max", ifPresent: max.map { .int(Int64($0)) })
        return .object(object)
    }
}
