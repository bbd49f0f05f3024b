#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// 64-bit FNV-1a: a fast, stable, non-cryptographic hash for recognising the same dataset or
/// config again in reports (not for security: collisions can be constructed on purpose).
public struct FNV1a64: Sendable, Equatable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        value = hash
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var hash = value
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        value = hash
    }

    /// Feeds `text` preceded by its UTF-8 length, so that field boundaries are unambiguous
    /// (`"ab" + "c"` and `"a" + "bc"` hash differently).
    public mutating func update(field text: String) {
        update(lengthPrefix: UInt64(text.utf8.count))
        update(text.utf8)
    }

    public mutating func update(lengthPrefix length: UInt64) {
        withUnsafeBytes(of: length.littleEndian) { update($0) }
    }

    /// Sixteen lower-case hex digits.
    public var hexDigest: String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension Dataset {
    /// A stable hash of the dataset's content: for every fixture in `id` order, the image's and
    /// the label's relative paths and bytes (each length-prefixed, so moving or renaming a file
    /// changes the hash as much as editing it). Independent of the absolute location and of
    /// file timestamps. Reads every file once in 64 KiB chunks.
    public func contentHash() throws(DatasetError) -> String {
        var hasher = FNV1a64()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for fixture in fixtures {
            hasher.update(field: fixture.id)
            for (relative, full) in [(fixture.imageRelativePath, fixture.imagePath), (fixture.labelRelativePath, fixture.labelPath)] {
                guard let relative, let full else {
                    hasher.update(field: "")
                    continue
                }
                hasher.update(field: relative)
                try hashFile(full, into: &hasher, buffer: &buffer)
            }
        }
        return hasher.hexDigest
    }
}

/// Feeds the file's length and bytes to `hasher`.
private func hashFile(_ path: String, into hasher: inout FNV1a64, buffer: inout [UInt8]) throws(DatasetError) {
    // O_NONBLOCK and the regular-file check: a file replaced by a FIFO after the scan must not
    // block the hash forever waiting for a writer.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { throw DatasetError(path: path, message: FilePaths.errorText(errno)) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw DatasetError(path: path, message: FilePaths.errorText(errno)) }
    guard (info.st_mode & S_IFMT) == S_IFREG else { throw DatasetError(path: path, message: "not a regular file") }
    hasher.update(lengthPrefix: UInt64(max(0, info.st_size)))
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw DatasetError(path: path, message: FilePaths.errorText(errno))
        }
        if count == 0 { break }
        buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
