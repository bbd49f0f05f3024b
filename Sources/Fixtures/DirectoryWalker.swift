#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file found by `DirectoryWalker`.
struct WalkedFile: Sendable {
    /// `/`-separated path relative to the walk root.
    var relativePath: String
    var fullPath: String
    /// Lower-cased extension without the dot.
    var ext: String
}

/// Walks a directory tree depth-first in byte-wise sorted order, following symlinks, skipping
/// dot-files and dot-directories (editor and OS metadata such as `._x.png`), and reporting what
/// cannot be read, including a FIFO, socket or device named like an image or a label.
/// Directory symlink loops are detected by device + inode of the directories on the current
/// path; a directory reached twice by other routes is walked once.
struct DirectoryWalker {
    private struct DirectoryIdentity: Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    private(set) var files: [WalkedFile] = []
    private(set) var problems: [DatasetProblem] = []
    private var visited: Set<DirectoryIdentity> = []
    private var ancestors: [DirectoryIdentity] = []

    /// Walks `root` (which must be a directory).
    static func walk(root: String) -> (files: [WalkedFile], problems: [DatasetProblem]) {
        var walker = DirectoryWalker()
        var info = stat()
        if stat(root, &info) == 0 {
            walker.enter(fullPath: root, relativePath: "", identity: DirectoryIdentity(info))
        } else {
            walker.problems.append(DatasetProblem(kind: .unreadable, path: root, message: FilePaths.errorText(errno)))
        }
        return (walker.files, walker.problems)
    }

    private mutating func enter(fullPath: String, relativePath: String, identity: DirectoryIdentity) {
        if ancestors.contains(identity) {
            problems.append(DatasetProblem(
                kind: .symlinkLoop, path: fullPath,
                message: "directory symlink loop: this is an ancestor directory reached again; not walked"))
            return
        }
        guard visited.insert(identity).inserted else {
            problems.append(DatasetProblem(
                kind: .repeatedDirectory, path: fullPath,
                message: "directory already walked through another path (symlink); not walked again"))
            return
        }
        guard let names = listDirectory(fullPath) else { return }
        ancestors.append(identity)
        defer { ancestors.removeLast() }
        for name in names {
            let childFull = FilePaths.join(fullPath, name)
            let childRelative = FilePaths.join(relativePath, name)
            var info = stat()
            guard stat(childFull, &info) == 0 else {
                let code = errno
                var linkInfo = stat()
                let isLink = lstat(childFull, &linkInfo) == 0 && (linkInfo.st_mode & S_IFMT) == S_IFLNK
                let message = isLink ? "broken symbolic link (\(FilePaths.errorText(code)))" : FilePaths.errorText(code)
                problems.append(DatasetProblem(kind: code == ELOOP ? .symlinkLoop : .unreadable, path: childFull,
                                               message: message))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                enter(fullPath: childFull, relativePath: childRelative, identity: DirectoryIdentity(info))
            case S_IFREG:
                files.append(WalkedFile(relativePath: childRelative, fullPath: childFull,
                                        ext: FilePaths.splitExtension(name).ext))
            default:
                // A FIFO, socket or device is never read (opening a FIFO blocks until a writer
                // comes). Named like a dataset file, it is most likely a mistake: say so.
                let ext = FilePaths.splitExtension(name).ext
                if FilePaths.imageExtensions.contains(ext) || ext == "json" {
                    problems.append(DatasetProblem(
                        kind: .unreadable, path: childFull,
                        message: "not a regular file (\(Self.kindName(info.st_mode))); skipped"))
                }
            }
        }
    }

    private static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "a special file"
        }
    }

    /// The visible entry names of a directory in byte-wise order, nil (with a problem) when it
    /// cannot be listed.
    private mutating func listDirectory(_ path: String) -> [String]? {
        guard let directory = opendir(path) else {
            problems.append(DatasetProblem(kind: .unreadable, path: path, message: FilePaths.errorText(errno)))
            return nil
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 {
                    problems.append(DatasetProblem(kind: .unreadable, path: path, message: FilePaths.errorText(errno)))
                }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String? in
                let bytes = raw.prefix { $0 != 0 }
                return String(validating: bytes, as: UTF8.self)
            }
            guard let name else {
                problems.append(DatasetProblem(kind: .unreadable, path: path,
                                               message: "an entry whose name is not valid UTF-8 was skipped"))
                continue
            }
            if name.hasPrefix(".") { continue }
            names.append(name)
        }
        return names.sorted(by: FilePaths.precedes)
    }
}
