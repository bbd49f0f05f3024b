/// Resolution of a label's `image` field to an image of the dataset.
enum ImageReference {
    /// Resolves `reference` against `labelDirectory` (the label's directory relative to its
    /// root, mirrored into the image tree) to a `/`-separated path relative to the dataset root.
    ///
    /// - Returns: the relative path, or a message explaining why it is not acceptable
    ///   (absolute, `..` leaving the root, empty, NUL).
    static func resolve(_ reference: String, labelDirectory: String) -> Result<String, ReferenceError> {
        if reference.isEmpty || reference.utf8.contains(0) {
            return .failure(ReferenceError(message: "the image field is empty or contains a NUL character"))
        }
        if reference.hasPrefix("/") {
            return .failure(ReferenceError(message: "image \"\(reference)\" is an absolute path; it must be relative to the label's directory inside the dataset"))
        }
        var components = labelDirectory.isEmpty ? [] : labelDirectory.split(separator: "/").map(String.init)
        for component in reference.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..":
                guard !components.isEmpty else {
                    return .failure(ReferenceError(message: "image \"\(reference)\" leaves the dataset root"))
                }
                components.removeLast()
            default: components.append(String(component))
            }
        }
        guard !components.isEmpty else {
            return .failure(ReferenceError(message: "image \"\(reference)\" names a directory, not a file"))
        }
        return .success(components.joined(separator: "/"))
    }

    struct ReferenceError: Error {
        var message: String
    }
}
