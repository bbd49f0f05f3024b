#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs corpus files through a target once each, without libFuzzer: how committed seeds and
/// crash inputs are replayed in ordinary builds.
struct CorpusReplay {
    let target: FuzzTarget

    /// Replays every regular file named in `paths` or found directly inside a directory in
    /// `paths`, in byte-wise name order. Returns the exit status: 0 when every file was
    /// replayed, 1 when one could not be read (a crash aborts the process instead).
    func run(paths: [String]) -> Int32 {
        var files: [String] = []
        var status: Int32 = 0
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                writeError("cellqa-fuzz: \(path): \(String(cString: strerror(errno)))\n")
                status = 1
                continue
            }
            if info.st_mode & S_IFMT == S_IFDIR {
                files += listFiles(in: path)
            } else {
                files.append(path)
            }
        }
        for file in files {
            guard let bytes = readFile(file) else {
                writeError("cellqa-fuzz: \(file): cannot read\n")
                status = 1
                continue
            }
            target.run(bytes)
        }
        print("cellqa-fuzz: replayed \(files.count) input(s) through \(target.rawValue)")
        return status
    }

    private func listFiles(in directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") || name == "README.md" { continue }
            let full = directory + "/" + name
            var info = stat()
            if stat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG { names.append(full) }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}
