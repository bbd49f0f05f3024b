import Foundation

/// Creates `directory` and its missing parents. On failure, returns why as a person reads it,
/// naming the path in the way.
///
/// Why: Foundation's own text for the commonest failure, a file where a directory should be,
/// names no path and varies with the depth of the file ("A file with the same name already
/// exists.", "NSCocoaErrorDomain error 512"); every command that makes an output directory
/// reported one or the other.
public func createDirectories(_ directory: String) -> String? {
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return nil
    } catch {
        // The nearest existing path at or above `directory`: a file there is what stopped it.
        var path = directory
        while !path.isEmpty && path != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                if !isDirectory.boolValue { return "\(path) is a file, not a directory" }
                break
            }
            path = (path as NSString).deletingLastPathComponent
        }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }
}
