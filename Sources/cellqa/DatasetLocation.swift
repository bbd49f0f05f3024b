import Foundation

/// Where a command finds its fixtures when the user names none: the repository's own
/// Goldens/ (images) with TestLabels/ (labels), relative to the current directory.
enum DatasetLocation {
    static let defaultImages = "Goldens"
    static let defaultLabels = "TestLabels"

    static func resolve(dataset: String?, labels: String?) -> (root: String, labelsRoot: String?) {
        if let dataset { return (dataset, labels) }
        return (defaultImages, labels ?? defaultLabels)
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
