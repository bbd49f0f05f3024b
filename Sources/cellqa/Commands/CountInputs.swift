import Foundation
import Imaging

/// `cellqa count`'s arguments as image files: a file stands for itself, a directory for the
/// image files directly in it (by extension, PNG or JPEG, in the byte order of their names;
/// hidden files and sub-directories are not read), each in the place of its argument.
struct CountInputs {
    /// The images to count, in order.
    let images: [String]
    /// Directories that could not be listed or hold no image, each with why.
    let problems: [(input: String, reason: String)]

    init(_ arguments: [String]) {
        var images: [String] = [], problems: [(input: String, reason: String)] = []
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue else {
                // Files, and paths that do not exist: the decoder names what is wrong with them.
                images.append(argument)
                continue
            }
            let names: [String]
            do { names = try FileManager.default.contentsOfDirectory(atPath: argument) } catch {
                problems.append((argument, "cannot list the directory (\(error.localizedDescription))"))
                continue
            }
            let found = names.filter { !$0.hasPrefix(".") && ImageFormat(pathExtensionOf: $0) != nil }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                .map { (argument as NSString).appendingPathComponent($0) }
                .filter { CountInputs.isFile($0) }
            if found.isEmpty {
                problems.append((argument, "a directory without a PNG or JPEG image (sub-directories are not read)"))
            }
            images += found
        }
        self.images = images
        self.problems = problems
    }

    /// A regular file, or a symlink to one.
    private static func isFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
