#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CCodecs

/// A fresh directory under /tmp, removed (recursively) when the value is released.
final class ScratchDirectory {
    let path: String

    init() {
        var template = Array("/tmp/cellqa-hostile-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? "/tmp/cellqa-hostile-\(getpid())"
        if made == nil { mkdir(path, 0o700) }
    }

    deinit { removeTree(path) }

    /// Writes `bytes` to `name` inside the directory and returns the full path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let full = path + "/" + name
        let directory = String(full[..<full.lastIndex(of: "/")!])
        makeDirectories(directory)
        let descriptor = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return full }
        defer { close(descriptor) }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let wrote = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if wrote <= 0 { break }
                offset += wrote
            }
        }
        return full
    }

    @discardableResult
    func write(_ name: String, _ text: String) -> String { write(name, Array(text.utf8)) }

    /// Creates the subdirectory `name` (and its parents) and returns its full path.
    @discardableResult
    func directory(_ name: String) -> String {
        let full = path + "/" + name
        makeDirectories(full)
        return full
    }

    /// A symbolic link `name` -> `target` (target verbatim, so it may be relative or dangling).
    @discardableResult
    func symlink(_ name: String, to target: String) -> String {
        let full = path + "/" + name
        _ = Glibc.symlink(target, full)
        return full
    }

    /// A FIFO (named pipe) `name`; opening it read-only blocks until a writer appears.
    @discardableResult
    func fifo(_ name: String) -> String {
        let full = path + "/" + name
        _ = mkfifo(full, 0o644)
        return full
    }

    private func makeDirectories(_ full: String) {
        var prefix = ""
        for component in full.split(separator: "/") {
            prefix += "/" + component
            _ = mkdir(prefix, 0o755)
        }
    }
}

/// Removes a file tree without following symlinks.
func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR {
        chmod(path, 0o755)
        if let directory = opendir(path) {
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
            for name in names { removeTree(path + "/" + name) }
        }
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// Nanoseconds of the monotonic clock, for "this must be quick" checks.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
}

// MARK: - PNG built from the specification (independent of libpng)

enum PNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 2) -> [UInt8] {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [bitDepth, colorType, 0, 0, 0])
    }

    /// zlib stream of stored (uncompressed) blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian((b << 16) | a)
    }

    /// An 8-bit RGB PNG of the given pixels (filter 0 on every row).
    static func rgb8(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            raw += pixels[(y * width * 3)..<((y + 1) * width * 3)]
        }
        return signature + ihdr(width: UInt32(width), height: UInt32(height)) + chunk("IDAT", zlibStored(raw))
            + chunk("IEND", [])
    }

    /// 16-bit RGB, each sample given as 16-bit values.
    static func rgb16(width: Int, height: Int, samples: [UInt16]) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            for v in samples[(y * width * 3)..<((y + 1) * width * 3)] { raw += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        }
        return signature + ihdr(width: UInt32(width), height: UInt32(height), bitDepth: 16)
            + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// A small valid test image: 4x3 with distinct pixels.
    static let sample: [UInt8] = rgb8(width: 4, height: 3, pixels: (0..<36).map { UInt8($0 * 7) })
    static let samplePixels: [UInt8] = (0..<36).map { UInt8($0 * 7) }
}

// MARK: - JPEG through libjpeg (the CCodecs test encoder)

enum JPEG {
    /// Encodes interleaved samples; `components` 1 (grey), 3 (RGB) or 4 (CMYK, written with an
    /// Adobe marker: inverted samples as Photoshop stores them).
    static func encode(_ samples: [UInt8], width: Int, height: Int, components: Int, quality: Int = 100) -> [UInt8] {
        var options = cc_jpeg_encode_options(components: Int32(components), quality: Int32(quality), progressive: 0,
                                             colorspace: 0, adobe_marker: -1, full_chroma: 1)
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = samples.withUnsafeBufferPointer { pixels in
            cc_jpeg_encode(pixels.baseAddress, UInt32(width), UInt32(height), &options, &output, &size,
                           &message, message.count)
        }
        defer { cc_free(output) }
        guard status == CC_OK, let output else { return [] }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    static let sample: [UInt8] = encode([UInt8](repeating: 90, count: 16 * 8 * 3), width: 16, height: 8, components: 3)

    /// `sample` with its frame header (SOF0) patched to claim `width` x `height`: a real
    /// header followed by scan data far too short for that size.
    static func claiming(width: UInt16, height: UInt16) -> [UInt8] {
        var bytes = sample
        guard let sof = (2..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
            return bytes
        }
        bytes[sof + 5] = UInt8(height >> 8)
        bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8)
        bytes[sof + 8] = UInt8(width & 0xFF)
        return bytes
    }
}

// MARK: - Deflate bombs

enum DeflateBomb {
    /// A zlib stream (fixed-Huffman deflate) that inflates to `runs * 258 + 1` zero bytes: one
    /// literal 0, then `runs` copies of "length 258, distance 1". About 13 bits per 258 bytes,
    /// so a few megabytes inflate to gigabytes.
    static func zeros(runs: Int) -> (stream: [UInt8], inflatedSize: Int) {
        var writer = BitWriter()
        writer.bits(1, count: 1)  // BFINAL
        writer.bits(1, count: 2)  // BTYPE = 01, fixed Huffman
        writer.huffman(0b0011_0000, count: 8)  // literal 0
        for _ in 0..<runs {
            writer.huffman(0b1100_0101, count: 8)  // length symbol 285 = 258 bytes
            writer.huffman(0, count: 5)  // distance symbol 0 = distance 1
        }
        writer.huffman(0, count: 7)  // end of block
        let size = runs * 258 + 1
        let adler = UInt32(size % 65521) << 16 | 1  // a = 1 (zeros add nothing), b = size mod 65521
        return ([0x78, 0x01] + writer.finished + PNG.bigEndian(adler), size)
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var filled = 0

        /// Data bits, least significant first (deflate's order for everything but Huffman codes).
        mutating func bits(_ value: UInt32, count: Int) {
            for i in 0..<count { push((value >> UInt32(i)) & 1) }
        }

        /// A Huffman code, most significant bit first.
        mutating func huffman(_ code: UInt32, count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) { push((code >> UInt32(i)) & 1) }
        }

        private mutating func push(_ bit: UInt32) {
            current |= bit << UInt32(filled)
            filled += 1
            if filled == 8 {
                bytes.append(UInt8(current))
                current = 0
                filled = 0
            }
        }

        var finished: [UInt8] { filled == 0 ? bytes : bytes + [UInt8(current)] }
    }
}

extension JPEG {
    /// A uniform grey progressive JPEG whose shortest scan (header and entropy-coded data) is
    /// repeated `repeats` more times before EOI. Repeated scans are only a warning to libjpeg,
    /// which then runs every scan over the whole coefficient buffer: a small file that costs
    /// minutes of CPU (the "many scans" attack).
    static func scanBomb(width: Int, height: Int, repeats: Int) -> [UInt8] {
        var options = cc_jpeg_encode_options(components: 3, quality: 80, progressive: 1, colorspace: 0,
                                             adobe_marker: -1, full_chroma: 0)
        let samples = [UInt8](repeating: 128, count: width * height * 3)
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = samples.withUnsafeBufferPointer { pixels in
            cc_jpeg_encode(pixels.baseAddress, UInt32(width), UInt32(height), &options, &output, &size, &message, 512)
        }
        defer { cc_free(output) }
        guard status == CC_OK, let output else { return [] }
        let bytes = Array(UnsafeBufferPointer(start: output, count: size))
        // Scans run from their SOS marker to the next SOS or to EOI at the end of the file.
        let starts = (0..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
        guard bytes.count > 4, bytes[bytes.count - 2] == 0xFF, bytes[bytes.count - 1] == 0xD9, !starts.isEmpty else {
            return bytes
        }
        let ends = Array(starts.dropFirst()) + [bytes.count - 2]
        var shortest = 0
        for index in starts.indices where ends[index] - starts[index] < ends[shortest] - starts[shortest] { shortest = index }
        let scan = bytes[starts[shortest]..<ends[shortest]]
        var result = Array(bytes[..<(bytes.count - 2)])
        result.reserveCapacity(result.count + scan.count * repeats + 2)
        for _ in 0..<repeats { result += scan }
        return result + [0xFF, 0xD9]
    }
}
