#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened read-only for decoding, with errors mapped to `ImageError`.
struct ImageFile {
    let path: String
    private let descriptor: Int32
    /// Size from fstat when opened; a hint for buffer sizing only.
    let sizeHint: Int

    static func open(_ path: String) throws(ImageError) -> ImageFile {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
        let descriptor = path.withCString { Glibc.open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        if descriptor < 0 { throw mapOpenError(errno, path: path) }
        var status = stat()
        if fstat(descriptor, &status) != 0 {
            let code = errno
            _ = Glibc.close(descriptor)
            throw .readFailed(file: path, reason: systemMessage(code))
        }
        let kind = status.st_mode & S_IFMT
        if kind == S_IFDIR {
            _ = Glibc.close(descriptor)
            throw .isDirectory(file: path)
        }
        if kind != S_IFREG {
            _ = Glibc.close(descriptor)
            throw .readFailed(file: path, reason: "not a regular file")
        }
        return ImageFile(path: path, descriptor: descriptor, sizeHint: Int(status.st_size))
    }

    func close() { _ = Glibc.close(descriptor) }

    /// Reads from the current position until end of file or `limit` bytes.
    func read(upTo limit: Int) throws(ImageError) -> [UInt8] {
        var result: [UInt8] = []
        var capacity = min(limit, max(sizeHint, 0) + 1)
        while true {
            var failure: Int32 = 0
            let chunk = [UInt8](unsafeUninitializedCapacity: max(capacity, 1)) { buffer, count in
                count = 0
                while count < capacity {
                    let got = Glibc.read(descriptor, buffer.baseAddress! + count, capacity - count)
                    if got > 0 { count += got; continue }
                    if got < 0 && errno == EINTR { continue }
                    if got < 0 { failure = errno }
                    break
                }
            }
            if failure != 0 { throw ImageError.readFailed(file: path, reason: ImageFile.systemMessage(failure)) }
            if result.isEmpty { result = chunk } else { result += chunk }
            // A short chunk means end of file (the file shrank or sizeHint was exact).
            if chunk.count < capacity || result.count >= limit { return result }
            capacity = min(limit - result.count, max(capacity, 65536))
        }
    }

    /// Reads a whole file read-only.
    static func readAll(_ path: String) throws(ImageError) -> [UInt8] {
        let file = try open(path)
        defer { file.close() }
        return try file.read(upTo: Int.max)
    }

    /// Throws when a .png/.jpg/.jpeg extension (any case) disagrees with the contents.
    static func checkExtension(of path: String, against format: ImageFormat) throws(ImageError) {
        if let claimed = ImageFormat(pathExtensionOf: path), claimed != format,
           let ext = ImageFormat.pathExtension(of: path) {
            throw .extensionMismatch(file: path, pathExtension: ext, actual: format)
        }
    }

    static func mapOpenError(_ code: Int32, path: String) -> ImageError {
        switch code {
        case ENOENT: return .fileNotFound(file: path)
        case EACCES, EPERM: return .permissionDenied(file: path)
        case EISDIR: return .isDirectory(file: path)
        default: return .readFailed(file: path, reason: systemMessage(code))
        }
    }

    static func systemMessage(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// Writes `bytes` to a temporary file beside `path`, then renames it over `path`, so readers
    /// never see a half-written image.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(ImageError) {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = temporary.withCString { Glibc.open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        if descriptor < 0 { throw .writeFailed(file: path, reason: systemMessage(errno)) }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let wrote = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if wrote > 0 { offset += wrote; continue }
                if wrote < 0 && errno == EINTR { continue }
                failure = wrote < 0 ? errno : EIO
                break
            }
        }
        if Glibc.close(descriptor) != 0 && failure == 0 { failure = errno }
        if failure == 0 && temporary.withCString({ from in path.withCString { rename(from, $0) } }) != 0 {
            failure = errno
        }
        if failure != 0 {
            _ = temporary.withCString { unlink($0) }
            throw .writeFailed(file: path, reason: systemMessage(failure))
        }
    }
}
