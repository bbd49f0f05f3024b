/// The pairing pass of `Dataset.scan`; see `Dataset` for the rules.
struct DatasetPairing {
    let root: String
    let labelsRoot: String?
    private(set) var fixtures: [Fixture] = []
    private(set) var problems: [DatasetProblem] = []

    /// One image per id, after duplicate stems were reported.
    private var imagesById: [String: WalkedFile] = [:]
    private var imagesByRelativePath: [String: String] = [:]
    private var labelsByImageId: [String: (file: WalkedFile, tags: [String])] = [:]
    private var orphans: [Fixture] = []

    init(root: String, labelsRoot: String?) {
        self.root = root
        self.labelsRoot = labelsRoot
    }

    mutating func run() {
        let imageWalk = DirectoryWalker.walk(root: root)
        problems += imageWalk.problems
        let images = imageWalk.files.filter { FilePaths.imageExtensions.contains($0.ext) }
        collectImages(images)

        let labelCandidates: [WalkedFile]
        if let labelsRoot {
            let labelWalk = DirectoryWalker.walk(root: labelsRoot)
            problems += labelWalk.problems
            labelCandidates = labelWalk.files.filter { $0.ext == "json" }
        } else {
            labelCandidates = imageWalk.files.filter { $0.ext == "json" }
        }
        for candidate in firstPerId(labelCandidates, what: "label") { assignLabel(candidate) }
        buildFixtures()
    }

    /// Reports files sharing an id (relative path without extension) and keeps the first in
    /// byte-wise order.
    private mutating func firstPerId(_ files: [WalkedFile], what: String) -> [WalkedFile] {
        var kept: [WalkedFile] = []
        var firstById: [String: WalkedFile] = [:]
        for file in files {
            let id = FilePaths.withoutExtension(file.relativePath)
            if let first = firstById[id] {
                problems.append(DatasetProblem(
                    kind: .duplicateStem, path: file.fullPath,
                    message: "\(what) \"\(file.relativePath)\" has the same stem as \"\(first.relativePath)\"; only the latter is used"))
                continue
            }
            firstById[id] = file
            kept.append(file)
        }
        return kept
    }

    private mutating func collectImages(_ images: [WalkedFile]) {
        for image in firstPerId(images, what: "image") {
            imagesById[FilePaths.withoutExtension(image.relativePath)] = image
            imagesByRelativePath[image.relativePath] = FilePaths.withoutExtension(image.relativePath)
        }
    }

    private mutating func assignLabel(_ label: WalkedFile) {
        let ownId = FilePaths.withoutExtension(label.relativePath)
        let stemMatches = imagesById[ownId] != nil
        let peek = LabelPeek.read(path: label.fullPath)
        if labelsRoot == nil, !stemMatches, peek.isValidJSON, !peek.looksLikeLabel, peek.imageReference == nil {
            return  // beside the images, a JSON file that is not a label (acceptance.json, configs)
        }
        var target = stemMatches ? ownId : nil
        if let reference = peek.imageReference {
            switch resolveReference(reference, label: label) {
            case .success(let imageId): target = imageId
            case .failure(let problem):
                problems.append(DatasetProblem(kind: .invalidImageReference, path: label.fullPath, message: problem.message))
            }
        }
        guard let target else {
            problems.append(DatasetProblem(
                kind: .labelWithoutImage, path: label.fullPath,
                message: "label \"\(label.relativePath)\" has no image (looked for \(ownId).png/.jpg/.jpeg"
                    + (labelsRoot == nil ? " beside it" : " under \(root)") + ")"))
            orphans.append(Fixture(id: ownId, relativeDirectory: FilePaths.directoryPart(ownId),
                                   labelPath: label.fullPath, labelRelativePath: label.relativePath, tags: peek.tags))
            return
        }
        if let existing = labelsByImageId[target] {
            problems.append(DatasetProblem(
                kind: .duplicateLabel, path: label.fullPath,
                message: "image \"\(imagesById[target]?.relativePath ?? target)\" already has the label \"\(existing.file.relativePath)\"; this one is not used"))
            return
        }
        labelsByImageId[target] = (label, peek.tags)
    }

    /// The image id a label's `image` field names, or why it cannot be used.
    private func resolveReference(_ reference: String, label: WalkedFile) -> Result<String, ReferenceProblem> {
        let relative: String
        switch ImageReference.resolve(reference, labelDirectory: FilePaths.directoryPart(label.relativePath)) {
        case .success(let path): relative = path
        case .failure(let error): return .failure(ReferenceProblem(error.message))
        }
        guard let imageId = imagesByRelativePath[relative], let image = imagesById[imageId] else {
            return .failure(ReferenceProblem("image \"\(reference)\" (\(relative)) is not an image of the dataset"))
        }
        guard let realRoot = FilePaths.realPath(root), let realImage = FilePaths.realPath(image.fullPath),
              realImage.hasPrefix(realRoot == "/" ? "/" : realRoot + "/")
        else {
            return .failure(ReferenceProblem("image \"\(reference)\" resolves through a symlink to a file outside the dataset root"))
        }
        return .success(imageId)
    }

    private struct ReferenceProblem: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    private mutating func buildFixtures() {
        var all: [Fixture] = orphans
        for (id, image) in imagesById {
            let label = labelsByImageId[id]
            all.append(Fixture(
                id: id, relativeDirectory: FilePaths.directoryPart(id), imagePath: image.fullPath,
                imageRelativePath: image.relativePath, labelPath: label?.file.fullPath,
                labelRelativePath: label?.file.relativePath, tags: label?.tags ?? []))
        }
        fixtures = all.sorted { FilePaths.precedes($0.id, $1.id) }
    }
}
