#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Peak resident memory of this process in bytes: VmHWM from /proc/self/status, or
/// getrusage's ru_maxrss (kilobytes on Linux) when /proc is unavailable.
public func peakResidentBytes() -> Int {
    if let status = try? readSmallTextFile("/proc/self/status") {
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.dropFirst(6).filter(\.isNumber)
            if let kb = Int(digits) { return kb * 1024 }
        }
    }
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Int(usage.ru_maxrss) * 1024
}

/// Reads a small text file (/proc and /etc facts). Callers treat these facts as optional and
/// ignore the error.
func readSmallTextFile(_ path: String, limit: Int = 1 << 20) throws -> String {
    guard let file = fopen(path, "r") else { throw HarnessIOError.cannotRead(path) }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while bytes.count < limit {
        let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, 4096, file) }
        if n <= 0 { break }
        bytes.append(contentsOf: buffer[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

enum HarnessIOError: Error {
    case cannotRead(String)
}
