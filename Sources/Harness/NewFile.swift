import Foundation

/// Why `writeNewFile` wrote nothing.
public enum NewFileError: Error, Sendable {
    /// Something is already at the path (a file, a directory, a symlink): left as it is.
    case exists(path: String)
    /// The parent directory could not be created.
    case directory(path: String, reason: String)
    /// The file could not be created or written.
    case unwritable(path: String, reason: String)
}

extension NewFileError {
    /// The message, led by the path concerned: `exists` says what a file already there means
    /// to the caller (a draft never overwrites a label, a review never overwrites a file).
    public func message(exists: String) -> String {
        switch self {
        case .exists(let path): "\(path): \(exists)"
        case let .directory(path, reason): "\(path): cannot create the directory (\(reason))"
        case let .unwritable(path, reason): "\(path): cannot be written (\(reason))"
        }
    }
}

/// Writes `bytes` to `path` as a new file, creating its parent directories; never replaces
/// anything already there, and never leaves a partial file at `path`.
///
/// Why: the files cellqa adds beside a user's (draft labels, review overlays) may share a name
/// with one a person wrote or corrected. The bytes go to a hidden temporary file beside `path`,
/// which is then hard-linked to `path`: `link` fails on anything that exists there, even one
/// that appeared after a check, where a rename would replace it. (On a file system without
/// hard links, the file is created at `path` with `O_EXCL` instead: still never a replacement.)
public func writeNewFile(_ bytes: some Sequence<UInt8>, to path: String) throws(NewFileError) {
    let parent = (path as NSString).deletingLastPathComponent
    if !parent.isEmpty, let reason = createDirectories(parent) {
        throw .directory(path: parent, reason: reason)
    }
    let data = Data(bytes)
    let name = (path as NSString).lastPathComponent
    let temporary = (parent.isEmpty ? "" : parent + "/") + ".\(name).partial-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    do {
        try data.write(to: URL(fileURLWithPath: temporary), options: .withoutOverwriting)
    } catch {
        throw .unwritable(path: path, reason: error.localizedDescription)
    }
    defer { unlink(temporary) }
    guard link(temporary, path) != 0 else { return }
    let code = errno
    if code == EEXIST { throw .exists(path: path) }
    guard code == EPERM || code == EOPNOTSUPP else { throw .unwritable(path: path, reason: String(cString: strerror(code))) }
    do {
        try data.write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
    } catch {
        // lstat, not fileExists: a symlink, even a dangling one, is something there.
        var status = stat()
        if lstat(path, &status) == 0 { throw .exists(path: path) }
        throw .unwritable(path: path, reason: error.localizedDescription)
    }
}
