import Imaging

/// A small grey JPEG from cellqa's encoder whose APP1 "Exif" segment (little-endian TIFF, one
/// entry: orientation 0x0112, SHORT, count 1) holds `orientation`: a phone photo stored as
/// landscape pixels that viewers turn.
func jpegWithExifOrientation(_ orientation: UInt8, width: Int = 30, height: Int = 20) throws -> [UInt8] {
    let jpeg = try Image(width: width, height: height, fill: (120, 120, 120)).jpegData()
    let tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0, 0, 0, 0, 0]
    let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
    let segment: [UInt8] = [0xFF, 0xE1, 0, UInt8(payload.count + 2)] + payload
    return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
}
