/// One unit of a dataset: an image, its label, or both.
public struct Fixture: Sendable, Equatable {
    /// The image's path relative to the dataset root without extension, `/`-separated
    /// (`sub/golden01`); for a label without an image, the label's relative path without
    /// extension.
    public var id: String
    /// The directory part of `id` (`sub`), empty at the root.
    public var relativeDirectory: String
    /// The image file (dataset root joined with `imageRelativePath`), nil for an orphan label.
    public var imagePath: String?
    /// The image path relative to the dataset root.
    public var imageRelativePath: String?
    /// The label file, nil for an unlabelled image.
    public var labelPath: String?
    /// The label path relative to the labels root (or the dataset root when labels sit beside
    /// the images).
    public var labelRelativePath: String?
    /// Tags read from the label while scanning; empty when unlabelled or unreadable.
    public var tags: [String]

    public init(
        id: String, relativeDirectory: String, imagePath: String? = nil, imageRelativePath: String? = nil,
        labelPath: String? = nil, labelRelativePath: String? = nil, tags: [String] = []
    ) {
        self.id = id
        self.relativeDirectory = relativeDirectory
        self.imagePath = imagePath
        self.imageRelativePath = imageRelativePath
        self.labelPath = labelPath
        self.labelRelativePath = labelRelativePath
        self.tags = tags
    }

    /// An image without a label is processed but has no accuracy metrics ("unlabelled").
    public var isLabelled: Bool { labelPath != nil }
}

/// Something wrong with a dataset's files, found while scanning. Images without labels are not
/// problems.
public struct DatasetProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A label whose image does not exist.
        case labelWithoutImage
        /// Two images (or two labels) share a relative path without extension (`a.png`, `a.jpg`).
        case duplicateStem
        /// A second label for an image that already has one.
        case duplicateLabel
        /// A file or directory that cannot be read, a broken symlink or a name that is not UTF-8.
        case unreadable
        /// A directory symlink pointing back to one of its own ancestors.
        case symlinkLoop
        /// A directory reached a second time through another symlink (walked only once).
        case repeatedDirectory
        /// A label's `image` field that is absolute, leaves the dataset root (`../`, or a symlink
        /// pointing outside) or names no image of the dataset.
        case invalidImageReference
    }

    public var kind: Kind
    /// The file or directory concerned.
    public var path: String
    public var message: String

    public init(kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message) [\(kind.rawValue)]" }
}

/// A dataset that cannot be scanned at all (missing root, not a directory).
public struct DatasetError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
