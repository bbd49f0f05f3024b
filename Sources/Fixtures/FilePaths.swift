#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Path helpers for the dataset scanner; paths are `/`-separated strings.
enum FilePaths {
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg"]

    /// Byte-wise (UTF-8) ordering, independent of locale and Unicode normalisation.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Splits `name` into stem and lower-cased extension (`A.PNG` -> `A`, `png`).
    static func splitExtension(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), name[name.index(after: dot)...].lowercased())
    }

    static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    static func directoryPart(_ relative: String) -> String {
        guard let slash = relative.lastIndex(of: "/") else { return "" }
        return String(relative[..<slash])
    }

    /// `relative` without its extension.
    static func withoutExtension(_ relative: String) -> String {
        let directory = directoryPart(relative)
        let name = directory.isEmpty ? relative : String(relative.dropFirst(directory.utf8.count + 1))
        return join(directory, splitExtension(name).stem)
    }

    /// Removes trailing slashes (keeping a lone `/`).
    static func trimmed(_ path: String) -> String {
        var result = path
        while result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return result
    }

    /// The canonical absolute path with symlinks resolved, nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
