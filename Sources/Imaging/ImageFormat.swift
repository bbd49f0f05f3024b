/// The encoded image formats cellqa reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable, Equatable {
    case png
    case jpeg

    /// The format the leading bytes announce (PNG's 8-byte signature, JPEG's SOI marker
    /// followed by another marker), or nil.
    public static func sniff(_ bytes: UnsafeRawBufferPointer) -> ImageFormat? {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if bytes.count >= png.count && zip(bytes, png).allSatisfy({ $0 == $1 }) { return .png }
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        return nil
    }

    /// The format the leading bytes announce, or nil.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        bytes.withUnsafeBytes { sniff($0) }
    }

    /// The format a file name's extension claims (`.png`, `.jpg`, `.jpeg`, any case), or nil
    /// for any other extension.
    public init?(pathExtensionOf path: String) {
        guard let ext = ImageFormat.pathExtension(of: path) else { return nil }
        switch ext.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        default: return nil
        }
    }

    /// The text after the last dot of the last path component, if any.
    static func pathExtension(of path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return String(name[name.index(after: dot)...])
    }
}
