// A test-only PNG writer built from the specification (zlib stored blocks, CRC-32, Adler-32),
// independent of libpng, so decoder tests compare against pixels we chose, not against
// libpng's own round trip.

/// PNG colour types as numbered in the specification.
enum PNGColorType: UInt8, Sendable {
    case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6

    var channels: Int {
        switch self {
        case .gray, .palette: return 1
        case .grayAlpha: return 2
        case .rgb: return 3
        case .rgba: return 4
        }
    }
}

/// Everything needed to write one PNG, plus the RGB we expect a decoder to produce.
struct PNGSpec: Sendable, CustomStringConvertible {
    var width: Int
    var height: Int
    var bitDepth: Int
    var colorType: PNGColorType
    var interlaced: Bool
    /// width * height * channels samples, each < 2^bitDepth, rows top to bottom.
    var samples: [UInt16]
    /// PLTE entries (palette images).
    var palette: [[UInt8]] = []
    /// Raw tRNS chunk payload, if any.
    var transparency: [UInt8]? = nil

    var description: String {
        "\(colorType)/\(bitDepth)-bit\(transparency == nil ? "" : "+tRNS")\(interlaced ? "/Adam7" : "") \(width)x\(height)"
    }

    /// What an 8-bit RGB decoder that strips alpha without compositing must return.
    var expectedRGB: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(width * height * 3)
        let channels = colorType.channels
        let maxValue = (1 << bitDepth) - 1
        func scale(_ v: UInt16) -> UInt8 { UInt8((Int(v) * 255 + maxValue / 2) / maxValue) }
        for p in 0..<(width * height) {
            let s = Array(samples[(p * channels)..<(p * channels + channels)])
            switch colorType {
            case .gray, .grayAlpha: out += [scale(s[0]), scale(s[0]), scale(s[0])]
            case .rgb, .rgba: out += [scale(s[0]), scale(s[1]), scale(s[2])]
            case .palette: out += palette[Int(s[0])]
            }
        }
        return out
    }

    func encode() -> [UInt8] {
        var ihdr: [UInt8] = []
        ihdr += bigEndian32(UInt32(width)) + bigEndian32(UInt32(height))
        ihdr += [UInt8(bitDepth), colorType.rawValue, 0, 0, interlaced ? 1 : 0]
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += pngChunk("IHDR", ihdr)
        if !palette.isEmpty { file += pngChunk("PLTE", palette.flatMap { $0 }) }
        if let transparency { file += pngChunk("tRNS", transparency) }
        file += pngChunk("IDAT", zlibStored(scanlines()))
        file += pngChunk("IEND", [])
        return file
    }

    /// Filter-type-0 scanlines, one sub-image per Adam7 pass when interlaced.
    private func scanlines() -> [UInt8] {
        let passes: [(x0: Int, y0: Int, dx: Int, dy: Int)] = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var out: [UInt8] = []
        for pass in passes {
            let xs = Array(stride(from: pass.x0, to: width, by: pass.dx))
            let ys = Array(stride(from: pass.y0, to: height, by: pass.dy))
            if xs.isEmpty || ys.isEmpty { continue }
            for y in ys {
                out.append(0)
                out += packRow(xs.flatMap { x in
                    let i = (y * width + x) * colorType.channels
                    return samples[i..<(i + colorType.channels)]
                })
            }
        }
        return out
    }

    private func packRow(_ row: [UInt16]) -> [UInt8] {
        switch bitDepth {
        case 16: return row.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case 8: return row.map { UInt8($0) }
        default:
            var out: [UInt8] = []
            var current = 0, filled = 0
            for v in row {
                current = (current << bitDepth) | Int(v)
                filled += bitDepth
                if filled == 8 { out.append(UInt8(current)); current = 0; filled = 0 }
            }
            if filled > 0 { out.append(UInt8(current << (8 - filled))) }
            return out
        }
    }
}

func bigEndian32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typed = Array(type.utf8) + data
    return bigEndian32(UInt32(data.count)) + typed + bigEndian32(crc32(typed))
}

func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// A zlib stream of stored (uncompressed) deflate blocks.
func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
        let n = min(65535, data.count - offset)
        let final: UInt8 = offset + n == data.count ? 1 : 0
        out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
        out += data[offset..<(offset + n)]
        offset += n
    } while offset < data.count
    var a: UInt32 = 1, b: UInt32 = 0
    for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
    return out + bigEndian32((b << 16) | a)
}

/// Deterministic test data (SplitMix64).
struct SeededGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
