import Imaging
import Testing

/// A JPEG's EXIF orientation is read, never applied: the pixels stay as stored, and the value
/// only explains a label drawn on the image as a viewer showed it.
struct ExifOrientationTests {
    /// An APP1 "Exif" segment whose first image directory holds `entries` (tag, type, count,
    /// value) in the given byte order, the orientation's value in the field's first two bytes.
    static func exifSegment(entries: [(tag: UInt16, type: UInt16, count: UInt32, value: UInt16)],
                            littleEndian: Bool = true) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            littleEndian ? u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) : u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF))
        }
        var tiff: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        tiff += u16(42) + u32(8) + u16(UInt16(entries.count))
        for entry in entries { tiff += u16(entry.tag) + u16(entry.type) + u32(entry.count) + u16(entry.value) + [0, 0] }
        tiff += u32(0)
        let payload: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// A small JPEG from cellqa's own encoder with `segment` inserted after its SOI marker.
    static func jpeg(with segment: [UInt8]) throws -> [UInt8] {
        let plain = try Image(width: 24, height: 16, fill: (r: 120, g: 90, b: 60)).jpegData(quality: 90)
        return Array(plain[0..<2]) + segment + Array(plain[2...])
    }

    static func orientation(_ bytes: [UInt8]) -> Int? { bytes.withUnsafeBytes { exifOrientation(jpeg: $0) } }

    @Test func readsEveryOrientationInEitherByteOrder() throws {
        for little in [true, false] {
            for value in 1...8 {
                let segment = Self.exifSegment(entries: [(0x010F, 2, 4, 0x4142), (0x0112, 3, 1, UInt16(value))], littleEndian: little)
                #expect(Self.orientation(try Self.jpeg(with: segment)) == value, "value \(value), little endian \(little)")
            }
        }
    }

    @Test func carriesTheOrientationIntoTheHeaderAndTheDecodedImageWithPixelsAsStored() throws {
        let plain = try Image(width: 24, height: 16, fill: (r: 120, g: 90, b: 60)).jpegData(quality: 90)
        let turned = try Self.jpeg(with: Self.exifSegment(entries: [(0x0112, 3, 1, 6)]))
        #expect(try ImageInfo.read(turned).exifOrientation == 6)
        #expect(try ImageInfo.read(plain).exifOrientation == nil)
        let image = try Image.decode(turned)
        #expect(image.exifOrientation == 6)
        #expect(image.width == 24 && image.height == 16)
        #expect(image.pixels == (try Image.decode(plain)).pixels)
        // Orientation 1 means "as stored": not reported.
        #expect(try ImageInfo.read(try Self.jpeg(with: Self.exifSegment(entries: [(0x0112, 3, 1, 1)]))).exifOrientation == nil)
        #expect(viewerTurn(ofExifOrientation: 6) == "the JPEG's EXIF orientation 6 has viewers show it turned 90° clockwise")
        #expect(viewerTurn(ofExifOrientation: 1) == nil && viewerTurn(ofExifOrientation: nil) == nil)
        // Only a quarter turn swaps width and height.
        #expect((1...8).map { swappingViewerTurn(ofExifOrientation: $0) != nil } == [false, false, false, false, true, true, true, true])
        #expect(viewerTurn(ofExifOrientation: 3) == "the JPEG's EXIF orientation 3 has viewers show it turned 180°")
    }

    @Test func ignoresWhatIsNotAWellFormedOrientation() throws {
        // Wrong type, count or value; another tag only; a segment that is not Exif.
        for entries: [(tag: UInt16, type: UInt16, count: UInt32, value: UInt16)] in [
            [(0x0112, 4, 1, 6)], [(0x0112, 3, 2, 6)], [(0x0112, 3, 1, 0)], [(0x0112, 3, 1, 9)], [(0x010F, 2, 4, 6)],
        ] {
            #expect(Self.orientation(try Self.jpeg(with: Self.exifSegment(entries: entries))) == nil)
        }
        var notExif = Self.exifSegment(entries: [(0x0112, 3, 1, 6)])
        notExif[4] = 0x58
        #expect(Self.orientation(try Self.jpeg(with: notExif)) == nil)
        #expect(Self.orientation([0x89, 0x50, 0x4E, 0x47]) == nil)
        #expect(Self.orientation([]) == nil)
    }

    @Test func survivesEveryTruncationAndCorruptedOffset() throws {
        let whole = try Self.jpeg(with: Self.exifSegment(entries: [(0x0112, 3, 1, 6)]))
        let segmentEnd = 2 + Self.exifSegment(entries: [(0x0112, 3, 1, 6)]).count
        for length in 0..<segmentEnd {
            #expect(Self.orientation(Array(whole[0..<length])) == nil, "cut at \(length)")
        }
        // Every byte of the segment set to each of a few values: never a crash, never a value
        // outside 1 ... 8.
        for index in 2..<segmentEnd {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0xFF] {
                var bytes = whole
                bytes[index] = value
                if let found = Self.orientation(bytes) { #expect((1...8).contains(found)) }
            }
        }
    }
}
