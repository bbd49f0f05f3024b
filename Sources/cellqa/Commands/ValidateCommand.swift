import ArgumentParser
import Foundation
import Fixtures
import Harness
import Imaging

/// `cellqa validate`: is this dataset readable and consistent, before anything is run on it?
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a dataset: pair images with labels, read every image, parse every label.",
        discussion: """
            Walks DATASET recursively, pairs images (.png, .jpg, .jpeg) with labels (.json, \
            labels-v1) by stem, reads every image header (or the whole image with --decode), \
            parses every label and checks that label and image sizes agree.
            Exit codes: 0 no problems, 1 problems found, 2 usage or unreadable dataset root.
            """
    )

    @Argument(help: "Dataset directory (default: Goldens, with labels in TestLabels).")
    var dataset: String?

    @Option(help: "Directory holding the labels, mirroring the dataset's sub-paths.")
    var labels: String?

    @Flag(help: "Decode every image completely instead of reading only its header.")
    var decode = false

    @Option(help: "Largest image accepted, in pixels (width x height).")
    var maxPixels = DecodeOptions().maxPixels

    @Option(help: ArgumentHelp("Fixtures checked at once (with --decode, each holds its image); the report is the same for any value. Default: the number of cores.", valueName: "N"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive, got \(maxPixels)") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be 1 or more, got \(jobs)") }
    }

    func run() throws {
        let (root, labelsRoot) = DatasetLocation.resolve(dataset: dataset, labels: labels)
        let scanned: Dataset
        do {
            scanned = try Dataset.scan(root: root, labelsRoot: labelsRoot)
        } catch {
            printError("cellqa validate: \(error)")
            throw ExitCode(2)
        }

        var report = ValidationReport()
        report.problems += scanned.problems.map(\.description)
        let options = DecodeOptions(maxPixels: maxPixels), decode = decode
        let fixtures = scanned.fixtures
        forEachInOrder(count: fixtures.count, jobs: jobs, work: { FixtureCheck(fixtures[$0], decode: decode, options: options) }) {
            report.add($1)
        }
        print(report.summary(root: root, labelsRoot: labelsRoot))
        if !report.problems.isEmpty { throw ExitCode(1) }
    }
}

/// One fixture as `validate` found it: its image read (or not), its label, the problems.
struct FixtureCheck: Sendable {
    var imageRead = false
    /// An image without a label.
    var unlabelled = false
    /// The label, when it was read.
    var label: Label?
    var problems: [String] = []

    init(_ fixture: Fixture, decode: Bool, options: DecodeOptions) {
        var size: (width: Int, height: Int, exifOrientation: Int?)?
        if let imagePath = fixture.imagePath {
            do throws(ImageError) {
                if decode {
                    let image = try Image.decode(file: imagePath, options: options)
                    size = (image.width, image.height, image.exifOrientation)
                } else {
                    let info = try ImageInfo.read(file: imagePath)
                    if info.width * info.height > options.maxPixels {
                        throw ImageError.tooLarge(file: imagePath, format: info.format, width: info.width,
                                                  height: info.height, maxPixels: options.maxPixels)
                    }
                    size = (info.width, info.height, info.exifOrientation)
                }
                imageRead = true
            } catch {
                problems.append(error.description)
            }
        }
        guard let labelPath = fixture.labelPath else {
            unlabelled = fixture.imagePath != nil
            return
        }
        do {
            let label = try Label.load(path: labelPath)
            self.label = label
            if let size {
                problems += label.check(imageWidth: size.width, imageHeight: size.height, file: labelPath,
                                        viewerTurn: swappingViewerTurn(ofExifOrientation: size.exifOrientation))
                    .map(\.description)
            }
        } catch {
            problems += error.errors.map(\.description)
        }
    }
}

/// What `validate` found, accumulated fixture by fixture.
struct ValidationReport {
    var fixtures = 0
    var images = 0
    var labelled = 0
    var unlabelled = 0
    var cells = 0
    var live = 0
    var dead = 0
    var tagCounts: [String: Int] = [:]
    var problems: [String] = []

    mutating func add(_ check: FixtureCheck) {
        fixtures += 1
        if check.imageRead { images += 1 }
        problems += check.problems
        if check.unlabelled { unlabelled += 1 }
        guard let label = check.label else { return }
        labelled += 1
        cells += label.cells.count
        live += label.liveCount
        dead += label.deadCount
        for tag in label.tags { tagCounts[tag, default: 0] += 1 }
    }

    func summary(root: String, labelsRoot: String?) -> String {
        var lines = ["dataset: \(root)" + (labelsRoot.map { " (labels: \($0))" } ?? "")]
        lines.append("fixtures: \(fixtures) (images read: \(images), labelled: \(labelled), unlabelled: \(unlabelled))")
        lines.append("cells: \(cells) (live: \(live), dead: \(dead), unknown: \(cells - live - dead))")
        let tags = tagCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        lines.append("tags: " + (tags.isEmpty ? "none" : tags.joined(separator: ", ")))
        if let drafts = tagCounts[draftTag] {
            lines.append("note: \(drafts) label(s) carry the tag \"\(draftTag)\" (written by cellqa count --draft-labels, "
                         + "not yet checked by a person): a run scored against them measures the pipeline against itself")
        }
        lines.append("problems: \(problems.count)")
        lines += problems.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}
