#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory of fixtures: images paired with labels-v1 files.
///
/// Pairing rules (see `scan`):
/// - Images are `.png`, `.jpg`, `.jpeg` in any case; labels are `.json` in any case. Dot-files
///   are skipped. Everything else is ignored.
/// - With a separate labels root, every `.json` under it is a label, and `sub/x.json` pairs with
///   the image `sub/x.*` under the dataset root; `.json` files in the image tree are then
///   ignored.
/// - Without one, labels sit beside their images. A `.json` whose stem matches an image beside
///   it is its label. Any other `.json` is a label only if it is not valid JSON or its top level
///   is an object with a `version` or `cells` field; otherwise (e.g. `acceptance.json`,
///   `baseline.json`, configs) it is not part of the dataset.
/// - A label's `image` field names its image relative to the label's directory (mirrored into
///   the image tree when labels have their own root). It wins over the stem rule; it must stay
///   inside the dataset root — absolute paths, `..` above the root and symlinks resolving
///   outside the root are rejected as `invalidImageReference`, and the stem rule applies instead.
/// - When two labels claim the same image, the first in byte-wise order of relative path keeps
///   it and the other is reported as `duplicateLabel`; of two images or labels with the same
///   relative path up to the extension, the first in byte-wise order is used (`duplicateStem`).
public struct Dataset: Sendable {
    /// The image root as given (trailing slashes removed).
    public let root: String
    /// The separate labels root, nil when labels sit beside the images.
    public let labelsRoot: String?
    /// Fixtures in byte-wise order of `id`.
    public var fixtures: [Fixture]
    /// Problems in the order found.
    public var problems: [DatasetProblem]

    public init(root: String, labelsRoot: String?, fixtures: [Fixture], problems: [DatasetProblem]) {
        self.root = root
        self.labelsRoot = labelsRoot
        self.fixtures = fixtures
        self.problems = problems
    }

    /// Walks `root` (and `labelsRoot`) recursively in byte-wise sorted order and pairs images
    /// with labels. Only a missing or non-directory root throws; everything else becomes a
    /// `DatasetProblem`.
    public static func scan(root: String, labelsRoot: String? = nil) throws(DatasetError) -> Dataset {
        let root = FilePaths.trimmed(root)
        try requireDirectory(root, "the dataset root")
        var separateLabels = labelsRoot.map(FilePaths.trimmed)
        if let labels = separateLabels {
            try requireDirectory(labels, "the labels root (--labels)")
            // The same directory given twice means labels beside images.
            if FilePaths.realPath(labels) == FilePaths.realPath(root) { separateLabels = nil }
        }
        var pairing = DatasetPairing(root: root, labelsRoot: separateLabels)
        pairing.run()
        return Dataset(root: root, labelsRoot: separateLabels, fixtures: pairing.fixtures, problems: pairing.problems)
    }

    /// `what` names the root in the message: a labels root that is a file is otherwise
    /// reported as if the dataset were.
    private static func requireDirectory(_ path: String, _ what: String) throws(DatasetError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw DatasetError(path: path, message: "\(what): \(FilePaths.errorText(errno))") }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw DatasetError(path: path, message: "\(what) is not a directory") }
    }

    /// Fixtures without an image but with a label.
    public var orphanLabels: [Fixture] { fixtures.filter { $0.imagePath == nil } }

    /// Images without a label ("unlabelled": processed, no accuracy metrics).
    public var unlabelled: [Fixture] { fixtures.filter { $0.imagePath != nil && $0.labelPath == nil } }

    /// Keeps the fixtures whose `id` or image/label relative path matches `pattern`; problems
    /// are kept as they are.
    public func filtered(glob pattern: GlobPattern) -> Dataset {
        var copy = self
        copy.fixtures = fixtures.filter { fixture in
            pattern.matches(fixture.id) || fixture.imageRelativePath.map(pattern.matches) == true
                || fixture.labelRelativePath.map(pattern.matches) == true
        }
        return copy
    }

    /// Keeps the fixtures whose label carries `tag` (exact, case-sensitive match).
    public func filtered(tag: String) -> Dataset {
        var copy = self
        copy.fixtures = fixtures.filter { $0.tags.contains(tag) }
        return copy
    }
}
