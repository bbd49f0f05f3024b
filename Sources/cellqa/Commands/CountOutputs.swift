import Foundation
import Harness

/// Where `cellqa count` writes each image's overlay and draft label, decided before any image
/// is counted, so that images counted at the same time never write the same file and no
/// overlay replaces an image being counted.
struct CountOutputs: Sendable {
    /// A file one image writes, or why it may not.
    enum Target: Equatable, Sendable {
        case write(String)
        case refused(path: String, reason: String)
    }

    /// Per image, in the order given: its overlay (nil without `--overlay`).
    let overlays: [Target?]
    /// Per image: its draft label (nil without `--draft-labels`).
    let drafts: [Target?]

    /// - Parameters:
    ///   - images: the image paths, as given.
    ///   - overlay: `--overlay`: the file itself for one image; for several, `-<stem>` is added
    ///     before its extension.
    ///   - draftDirectory: `--draft-labels`: `<stem>.json` in it.
    init(images: [String], overlay: String?, draftDirectory: String?) {
        let inputs = images.map(FileIdentity.init)
        overlays = CountOutputs.plan(images, inputs: inputs, what: "overlay", option: "--overlay") { image in
            overlay.map { images.count > 1 ? CountOutputs.overlayPath($0, for: image) : $0 }
        }
        drafts = CountOutputs.plan(images, inputs: inputs, what: "draft label", option: "--draft-labels directory") { image in
            draftDirectory.map { ($0 as NSString).appendingPathComponent(CountOutputs.stem(image) + ".json") }
        }
    }

    /// Each image's file from `path`, refused when it is one of the input images or when an
    /// earlier image writes the same file (the first image given keeps it).
    private static func plan(_ images: [String], inputs: [FileIdentity], what: String, option: String,
                             path: (String) -> String?) -> [Target?] {
        var claimed: [FileIdentity: String] = [:]
        return images.map { image in
            guard let out = path(image) else { return nil }
            let identity = FileIdentity(out)
            if let k = inputs.firstIndex(of: identity) {
                let which = images[k] == image ? "the image itself" : "the image \(images[k]), which is being counted"
                return .refused(path: out, reason: "is \(which); cellqa never writes over an input (choose another \(option))")
            }
            if let first = claimed[identity] {
                return .refused(path: out, reason: "is also the \(what) of \(first), given earlier (images of the same name: count them "
                                + "in separate runs, each with its own \(option))")
            }
            claimed[identity] = image
            return .write(out)
        }
    }

    /// "dir/a.jpg" -> "a"
    static func stem(_ image: String) -> String {
        ((image as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    /// OUT.png + image "dir/a.jpg" -> OUT-a.png
    static func overlayPath(_ base: String, for image: String) -> String {
        let ext = (base as NSString).pathExtension
        let root = (base as NSString).deletingPathExtension
        return root + "-" + stem(image) + "." + (ext.isEmpty ? "png" : ext)
    }
}

/// Which file a path names, whether or not it exists yet: the device and inode of an existing
/// file (so a hard link or a symlink to an input is that input), else the path made absolute
/// with its existing part resolved (`ReportDirectory.resolveExisting`: "out/a.png" and
/// "./out/../out/a.png" are one file).
struct FileIdentity: Hashable {
    private let device: UInt64
    private let inode: UInt64
    private let path: String

    init(_ path: String) {
        var status = stat()
        if stat(path, &status) == 0 {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            self.path = ""
        } else {
            device = 0
            inode = 0
            self.path = ReportDirectory.resolveExisting(path)
        }
    }
}
