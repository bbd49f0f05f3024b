/// Everything that can go wrong reading, decoding, encoding or writing an image.
/// `file` is nil when the bytes did not come from a file.
public enum ImageError: Error, CustomStringConvertible, Equatable, Sendable {
    case emptyInput(file: String?)
    /// The leading bytes are neither a PNG nor a JPEG signature.
    case unknownFormat(file: String?, leadingBytes: [UInt8])
    /// The file name says one format (e.g. `.jpg`), the bytes are another.
    case extensionMismatch(file: String, pathExtension: String, actual: ImageFormat)
    /// width * height is over the caller's limit; nothing was allocated.
    case tooLarge(file: String?, format: ImageFormat, width: Int, height: Int, maxPixels: Int)
    /// The data ends before the image does.
    case truncated(file: String?, format: ImageFormat, message: String)
    /// The codec library rejected the data; `message` is the library's own.
    case corrupt(file: String?, format: ImageFormat, message: String)
    /// A valid file of a kind that cannot be converted to 8-bit RGB.
    case unsupported(file: String?, format: ImageFormat, message: String)
    case outOfMemory(file: String?, message: String)
    case fileNotFound(file: String)
    case isDirectory(file: String)
    case permissionDenied(file: String)
    /// Any other failure to open or read a file (`reason` from the operating system).
    case readFailed(file: String, reason: String)
    case writeFailed(file: String, reason: String)
    case encodeFailed(format: ImageFormat, message: String)
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .emptyInput(let file):
            return "\(Self.prefix(file))empty input (0 bytes)"
        case .unknownFormat(let file, let bytes):
            return "\(Self.prefix(file))unknown image format: first bytes are \(Self.render(bytes)) "
                + "(expected PNG 89 50 4E 47 0D 0A 1A 0A or JPEG FF D8 FF)"
        case .extensionMismatch(let file, let ext, let actual):
            return "\(file): extension .\(ext) does not match the contents, which are \(actual.rawValue.uppercased())"
        case .tooLarge(let file, let format, let width, let height, let maxPixels):
            return "\(Self.prefix(file))\(format.rawValue.uppercased()) is \(width)x\(height) "
                + "(\(Self.product(width, height)) pixels), over the limit of \(maxPixels) pixels"
        case .truncated(let file, let format, let message):
            return "\(Self.prefix(file))truncated \(format.rawValue.uppercased()): \(message)"
        case .corrupt(let file, let format, let message):
            return "\(Self.prefix(file))corrupt \(format.rawValue.uppercased()): \(message)"
        case .unsupported(let file, let format, let message):
            return "\(Self.prefix(file))unsupported \(format.rawValue.uppercased()): \(message)"
        case .outOfMemory(let file, let message):
            return "\(Self.prefix(file))out of memory: \(message)"
        case .fileNotFound(let file):
            return "\(file): no such file"
        case .isDirectory(let file):
            return "\(file): is a directory, not an image file"
        case .permissionDenied(let file):
            return "\(file): permission denied"
        case .readFailed(let file, let reason):
            return "\(file): cannot read: \(reason)"
        case .writeFailed(let file, let reason):
            return "\(file): cannot write: \(reason)"
        case .encodeFailed(let format, let message):
            return "\(format.rawValue.uppercased()) encoding failed: \(message)"
        case .invalidArgument(let message):
            return "invalid argument: \(message)"
        }
    }

    /// The same error, naming `file` when it did not name one yet.
    func naming(file: String) -> ImageError {
        switch self {
        case .emptyInput(nil): return .emptyInput(file: file)
        case .unknownFormat(nil, let bytes): return .unknownFormat(file: file, leadingBytes: bytes)
        case .tooLarge(nil, let format, let width, let height, let maxPixels):
            return .tooLarge(file: file, format: format, width: width, height: height, maxPixels: maxPixels)
        case .truncated(nil, let format, let message): return .truncated(file: file, format: format, message: message)
        case .corrupt(nil, let format, let message): return .corrupt(file: file, format: format, message: message)
        case .unsupported(nil, let format, let message): return .unsupported(file: file, format: format, message: message)
        case .outOfMemory(nil, let message): return .outOfMemory(file: file, message: message)
        default: return self
        }
    }

    private static func product(_ a: Int, _ b: Int) -> String {
        let (value, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? "more than \(Int.max)" : String(value)
    }

    private static func prefix(_ file: String?) -> String { file.map { "\($0): " } ?? "" }

    /// Hex plus printable ASCII, e.g. `47 49 46 38 39 61 ("GIF89a")`.
    private static func render(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
        let ascii = String(bytes.map { (0x20..<0x7F).contains($0) ? Character(Unicode.Scalar($0)) : "." })
        return "\(hex) (\"\(ascii)\")"
    }
}
