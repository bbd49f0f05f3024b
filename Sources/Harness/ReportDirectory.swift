import Foundation
import Synchronization

/// Replacing a whole report directory at once, and keeping reports out of the dataset.
///
/// `replaceReportDirectory` writes every file into a fresh hidden sibling directory
/// (".NAME.partial-PID-N") and only when all of them are written swaps it with the old
/// directory in one `renameat2(RENAME_EXCHANGE)` call, then deletes the old one. A reader, a
/// crash or a second Ctrl-C therefore finds either the complete previous report or the
/// complete new one, never a mix. (Where the file system cannot exchange, two renames are
/// used; the directory is then briefly absent, but still never mixed.)
public enum ReportDirectory {
    /// Replaces `directory` with one holding exactly what `fill` writes into the staging
    /// directory it is given.
    /// - Parameters:
    ///   - directory: the report directory; created with its parents when missing. A symlink
    ///     to a directory is followed (the link stays, its target is replaced).
    ///   - ownNames: names a previous report in `directory` may hold. Anything else there is
    ///     someone's file: the replacement would delete it, so it is refused.
    ///   - fill: writes the new files into the staging directory.
    /// - Throws: `ReportWriteError` when `directory` is not a directory, holds foreign files,
    ///   or a file operation fails (the previous report is then untouched).
    public static func replace(_ directory: String, ownNames: Set<String>,
                               fill: (String) throws(ReportWriteError) -> Void) throws(ReportWriteError) {
        let target = resolveExisting(directory)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory)
        if exists {
            guard isDirectory.boolValue else {
                throw ReportWriteError(path: directory, reason: "exists and is not a directory")
            }
            let foreign = try entries(of: target, for: directory).filter { !ownNames.contains($0) && !isOwnTemporary($0) }.sorted()
            if !foreign.isEmpty {
                let shown = foreign.prefix(5).joined(separator: ", ") + (foreign.count > 5 ? ", ... (\(foreign.count) in all)" : "")
                throw ReportWriteError(path: directory, reason: "holds files cellqa did not write (\(shown)); replacing the "
                                       + "report directory would delete them: choose an empty or new --out directory")
            }
        }
        let parent = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        if !parent.isEmpty { try createReportDirectory(parent) }
        removeStaleStaging(parent: parent.isEmpty ? "." : parent, name: name)
        let staging = (parent.isEmpty ? "" : parent + "/") + ".\(name).partial-\(getpid())-\(stagingCounter.next())"
        guard mkdir(staging, 0o755) == 0 else {
            throw ReportWriteError(path: staging, reason: "cannot create staging directory: \(String(cString: strerror(errno)))")
        }
        do {
            try fill(staging)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
        // Lets the new directory keep the old one's permission bits (e.g. a shared CI folder).
        if exists, let mode = try? FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int {
            chmod(staging, mode_t(mode))
        }
        if !exists {
            guard rename(staging, target) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(atPath: staging)
                throw ReportWriteError(path: directory, reason: reason)
            }
            return
        }
        if exchange(staging, target) {
            // `staging` now holds the previous report.
            try? FileManager.default.removeItem(atPath: staging)
            return
        }
        let previous = staging + "-previous"
        guard rename(target, previous) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: staging)
            throw ReportWriteError(path: directory, reason: reason)
        }
        guard rename(staging, target) == 0 else {
            let reason = String(cString: strerror(errno))
            rename(previous, target)
            try? FileManager.default.removeItem(atPath: staging)
            throw ReportWriteError(path: directory, reason: reason)
        }
        try? FileManager.default.removeItem(atPath: previous)
    }

    /// Why `out` may not receive reports of a run reading `inputs` (the dataset and labels
    /// roots), or nil when it may: `out` is one of them or inside one, after making paths
    /// absolute, removing `.`/`..` and resolving symlinks (also of the not yet existing part's
    /// existing ancestors). Reports inside the dataset would become inputs of the next run,
    /// and the directory swap would delete what they replace.
    public static func conflict(out: String, inputs: [String]) -> String? {
        let resolvedOut = resolveExisting(out)
        for input in inputs {
            let root = resolveExisting(input)
            if within(resolvedOut, root) {
                return "--out \(out) is inside the dataset root \(input)"
                    + (resolvedOut == out ? "" : " (resolved: \(resolvedOut) in \(root))")
            }
            if within(root, resolvedOut) {
                return "--out \(out) contains the dataset root \(input)"
            }
        }
        return nil
    }

    /// The nearest directory above `path` (or `path` itself, with `includingItself`), after
    /// resolving it as `conflict` does, that holds a cellqa run's reports (every file of
    /// `ReportFile.all`), or nil. A run replaces such a directory as a whole and refuses one
    /// holding other files, so any other output put inside it stops the next run there.
    public static func enclosingRunReport(of path: String, includingItself: Bool) -> String? {
        var directory = resolveExisting(path)
        if !includingItself { directory = (directory as NSString).deletingLastPathComponent }
        while true {
            let holdsReports = ReportFile.all.allSatisfy { name in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(name),
                                                      isDirectory: &isDirectory) && !isDirectory.boolValue
            }
            if holdsReports { return directory }
            if directory == "/" || directory.isEmpty { return nil }
            directory = (directory as NSString).deletingLastPathComponent
        }
    }

    /// Whether `path` is `directory` or lies inside it, after making both absolute, removing
    /// `.`/`..` and resolving symlinks (as `conflict` does).
    public static func isWithin(_ path: String, _ directory: String) -> Bool {
        within(resolveExisting(path), resolveExisting(directory))
    }

    /// `isWithin` on paths already resolved.
    private static func within(_ resolved: String, _ root: String) -> Bool {
        resolved == root || resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    /// `path` made absolute and normalised, with symlinks resolved in its longest existing
    /// prefix (the rest, not created yet, is appended as written).
    public static func resolveExisting(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var components: [String] = []
        for part in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { if !components.isEmpty { components.removeLast() }; continue }
            components.append(String(part))
        }
        // Longest existing prefix through realpath (symlinks, including a symlinked `..`).
        var split = components.count
        while split > 0 {
            let prefix = "/" + components[..<split].joined(separator: "/")
            if let real = realpath(prefix, nil) {
                let resolved = String(cString: real)
                free(real)
                let rest = components[split...]
                return rest.isEmpty ? resolved : (resolved == "/" ? "" : resolved) + "/" + rest.joined(separator: "/")
            }
            split -= 1
        }
        return "/" + components.joined(separator: "/")
    }

    private static func entries(of directory: String, for shown: String) throws(ReportWriteError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw ReportWriteError(path: shown, reason: "cannot list the existing directory (\(error.localizedDescription))")
        }
    }

    /// Temporary names `writeAtomically` uses (".NAME.tmp-PID"), left by a killed writer.
    private static func isOwnTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(".tmp-")
    }

    /// Deletes staging directories of `name` left by processes that no longer exist (a run
    /// ended by a second signal leaves its unfinished staging directory behind).
    private static func removeStaleStaging(parent: String, name: String) {
        let prefix = ".\(name).partial-"
        guard let siblings = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for sibling in siblings where sibling.hasPrefix(prefix) {
            let pidText = sibling.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let pid = Int32(pidText), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: parent + "/" + sibling)
            }
        }
    }

    /// Atomically swaps two directory entries with Linux's renameat2(RENAME_EXCHANGE), looked
    /// up at run time (Glibc's Swift module does not export it). False when unavailable or
    /// unsupported by the file system.
    private static func exchange(_ a: String, _ b: String) -> Bool {
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
        guard let symbol = dlsym(nil, "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let renameExchange: UInt32 = 1 << 1
        return renameat2(AT_FDCWD, a, AT_FDCWD, b, renameExchange) == 0
    }

    /// Distinguishes staging directories of one process.
    private static let stagingCounter = StagingCounter()
}

private final class StagingCounter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.wrappingAdd(1, ordering: .relaxed).newValue }
}
