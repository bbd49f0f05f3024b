#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole regular file, refusing more than `maxBytes`; errors carry `strerror` text.
func readWholeFile(path: String, maxBytes: Int) throws(JSONError) -> [UInt8] {
    func failure(_ actual: String) -> JSONError {
        JSONError(file: path, path: "", expected: "a readable JSON file", actual: actual)
    }
    // O_NONBLOCK: opening a FIFO read-only would otherwise wait for a writer forever; the
    // regular-file check below then refuses it. For regular files the flag changes nothing.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { throw failure(String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw failure(String(cString: strerror(errno))) }
    guard (info.st_mode & S_IFMT) == S_IFREG else { throw failure("not a regular file") }
    guard Int(info.st_size) <= maxBytes else {
        throw failure("\(info.st_size) bytes (the limit is \(maxBytes))")
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(info.st_size))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw failure(String(cString: strerror(errno)))
        }
        if count == 0 { break }
        guard bytes.count + count <= maxBytes else { throw failure("more than \(maxBytes) bytes") }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
}
