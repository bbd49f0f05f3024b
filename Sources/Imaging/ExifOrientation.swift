/// The EXIF orientation of a JPEG: how a viewer turns or mirrors the stored pixels to show them.
///
/// cellqa measures the pixels as stored (labels-v1 coordinates are those of the decoded
/// image), as libjpeg decodes them. Phone cameras often store a portrait photo as landscape
/// pixels with orientation 6 or 8, and a viewer that honours the tag shows it turned, so a
/// label drawn there has its width and height (and every coordinate) swapped. The value lets
/// `cellqa inspect` and the label checks say so.
///
/// - Parameter bytes: a whole JPEG file, or at least everything before its first scan.
/// - Returns: the orientation, 1 (as stored) to 8, from the first APP1 "Exif" segment's first
///   image directory; nil when the file is not a JPEG, has no such tag, or the segment is
///   malformed (never an error: the tag only ever explains).
public func exifOrientation(jpeg bytes: UnsafeRawBufferPointer) -> Int? {
    let n = bytes.count
    guard n >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    func u16be(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
    var i = 2
    while i + 4 <= n {
        guard bytes[i] == 0xFF else { return nil }
        let marker = bytes[i + 1]
        if marker == 0xFF { i += 1; continue }  // fill byte
        if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }  // no length
        if marker == 0xDA || marker == 0xD9 { return nil }  // scan or end: no metadata after
        let length = u16be(i + 2)
        guard length >= 2, i + 2 + length <= n else { return nil }
        if marker == 0xE1, let value = orientation(inExif: bytes, from: i + 4, to: i + 2 + length) {
            return value
        }
        i += 2 + length
    }
    return nil
}

/// The orientation tag of an APP1 payload at `start ..< end` that begins "Exif\0\0".
private func orientation(inExif bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
    let exif: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
    guard end - start >= exif.count + 8, exif.indices.allSatisfy({ bytes[start + $0] == exif[$0] }) else { return nil }
    let tiff = start + exif.count
    let little: Bool
    switch (bytes[tiff], bytes[tiff + 1]) {
    case (0x49, 0x49): little = true
    case (0x4D, 0x4D): little = false
    default: return nil
    }
    // Offsets count from the TIFF header; every read stays inside the segment.
    func u16(_ offset: Int) -> Int? {
        let p = tiff + offset
        guard offset >= 0, p + 2 <= end else { return nil }
        return little ? Int(bytes[p]) | Int(bytes[p + 1]) << 8 : Int(bytes[p]) << 8 | Int(bytes[p + 1])
    }
    func u32(_ offset: Int) -> Int? {
        guard let a = u16(offset), let b = u16(offset + 2) else { return nil }
        return little ? a | b << 16 : a << 16 | b
    }
    guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return nil }
    for e in 0..<entries {
        let entry = ifd + 2 + 12 * e
        guard let tag = u16(entry) else { return nil }
        guard tag == 0x0112 else { continue }
        // SHORT, one value, held in the first two bytes of the value field.
        guard u16(entry + 2) == 3, u32(entry + 4) == 1, let value = u16(entry + 8), (1...8).contains(value) else { return nil }
        return value
    }
    return nil
}

/// How viewers show an image of EXIF orientation `value`, for messages: "the JPEG's EXIF
/// orientation 6 has viewers show it turned 90° clockwise"; nil for 1 (as stored) or nil.
public func viewerTurn(ofExifOrientation value: Int?) -> String? {
    guard let value, value != 1 else { return nil }
    return "the JPEG's EXIF orientation \(value) has viewers show it \(exifOrientationDescription(value))"
}

/// `viewerTurn(ofExifOrientation:)` for the orientations that swap width and height (5 to 8):
/// the ones that explain a label whose size, or whose cells, are the stored image's turned.
public func swappingViewerTurn(ofExifOrientation value: Int?) -> String? {
    guard let value, (5...8).contains(value) else { return nil }
    return viewerTurn(ofExifOrientation: value)
}

/// What a viewer does to show pixels of EXIF orientation `value` (2 to 8).
public func exifOrientationDescription(_ value: Int) -> String {
    switch value {
    case 2: return "mirrored left to right"
    case 3: return "turned 180°"
    case 4: return "mirrored top to bottom"
    case 5: return "mirrored left to right and turned 90° anticlockwise"
    case 6: return "turned 90° clockwise"
    case 7: return "mirrored left to right and turned 90° clockwise"
    case 8: return "turned 90° anticlockwise"
    default: return "as stored"
    }
}
