import ArgumentParser
import Fixtures
import Foundation
import Harness
import Hemocytometer
import Imaging
import JSON
import Vision

/// `cellqa count`: run the counting pipeline on images and print what it found.
struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count live and dead cells in hemocytometer images (table, or JSON with --json).",
        discussion: """
            Concentration needs a visible grid (cells/mL = mean per large square x 10^4 x dilution). \
            --dilution sets the sample's dilution without a configuration file. --seed-target with \
            --seed-volume prints how much suspension to seed for a target cell number, from the \
            image's concentration. --draft-labels writes what was found as labels-v1 files, tagged \
            "draft", for a person to correct: a new dataset's labels start from the detections.
            """
    )

    @Argument(help: ArgumentHelp("Images (PNG or JPEG), or directories: the images directly in each, by name.", valueName: "IMAGE"))
    var images: [String]

    @Option(name: .long, help: ArgumentHelp("Pipeline configuration JSON (default: built-in defaults).", valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Write a PNG with detections and grid drawn; with several images, '-<stem>' is added before the extension.", valueName: "OUT.png"))
    var overlay: String?

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Dilution factor of the counted sample (concentration is multiplied by it); overrides the configuration's `dilution` (default 1).", valueName: "FACTOR"))
    var dilution: Double?

    @Option(name: .long, help: ArgumentHelp("Seeding: number of cells wanted in the final volume.", valueName: "CELLS"))
    var seedTarget: Double?

    @Option(name: .long, help: ArgumentHelp("Seeding: final volume in mL.", valueName: "ML"))
    var seedVolume: Double?

    @Option(name: .long, help: ArgumentHelp("Write each image's detections as a labels-v1 label, DIR/<stem>.json, tagged \"draft\" (created if missing; an existing file is never overwritten: that image fails).", valueName: "DIR"))
    var draftLabels: String?

    // Unconditional: a centre may lie just outside the image ("-1.5,40").
    @Option(name: .long, parsing: .unconditionalSingleValue, help: ArgumentHelp("Trace the candidates near this point (image pixels) through every step: where a missed cell was lost, where a false detection came from. Repeatable.", valueName: "X,Y"))
    var explain: [ProbePoint] = []

    @Option(name: .long, help: ArgumentHelp("With --explain: how far from the point a candidate counts as near it, image pixels.", valueName: "PX"))
    var reach: Double = 6

    @Option(name: .long, help: ArgumentHelp("Images counted at once (each holds its decoded image); the output is the same, in the order given, for any value. Default: the number of cores.", valueName: "N"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard !images.isEmpty else { throw ValidationError("give at least one image") }
        guard (seedTarget == nil) == (seedVolume == nil) else {
            throw ValidationError("--seed-target and --seed-volume go together")
        }
        // Named otherwise, the PNG would not be read back by cellqa or most viewers (the
        // decoders check a name's extension against the contents).
        if let overlay, (overlay as NSString).pathExtension.lowercased() != "png" {
            throw ValidationError("--overlay writes a PNG: give a file name ending in .png, got '\(overlay)'")
        }
        guard jobs >= 1 else { throw ValidationError("--jobs must be 1 or more, got \(jobs)") }
        guard reach > 0, reach.isFinite else { throw ValidationError("--reach must be a positive number of pixels, got \(reach)") }
        let range = PipelineConfig.dilutionRange
        if let dilution, !range.contains(dilution) {
            throw ValidationError("--dilution must be a factor from \(String(format: "%g", range.lowerBound)) to \(String(format: "%g", range.upperBound)) "
                                  + "(2 for a 1:1 mix with trypan blue), got \(dilution)")
        }
    }

    func run() throws {
        var pipelineConfig = PipelineConfig()
        if let config {
            do { pipelineConfig = try PipelineConfig.load(path: config) } catch {
                printError("cellqa count: error: " + inputMessage(error, path: config, expected: .pipelineConfig))
                throw ExitCode(2)
            }
        }
        if let dilution { pipelineConfig.dilution = dilution }
        let inputs = CountInputs(images)
        for problem in inputs.problems { printError("cellqa count: \(problem.input): \(problem.reason)") }
        let paths = inputs.images
        let counter = ImageCounter(pipeline: Pipeline(config: pipelineConfig), config: pipelineConfig,
                                   outputs: CountOutputs(images: paths, overlay: overlay, draftDirectory: draftLabels),
                                   probes: explain.map { CandidateTrace.Probe(x: $0.x, y: $0.y) }, reach: reach,
                                   seeding: seedTarget.flatMap { target in seedVolume.map { (target, $0) } }, json: json)
        if !json {
            print(ImageCounter.tableHeader)
        }
        var failures = inputs.problems.count
        var jsonResults: [JSONValue] = []
        // What could not be counted, so that a script reading the JSON need not read stderr:
        // each with its message as stderr gives it.
        var jsonErrors: [JSONValue] = inputs.problems.map {
            .object(["image": .string($0.input), "error": .string("\($0.input): \($0.reason)")])
        }
        forEachInOrder(count: paths.count, jobs: jobs, work: { counter.count(paths[$0], index: $0) }) { index, counted in
            for line in counted.messages { printError("cellqa count: " + line) }
            failures += counted.failures
            if let value = counted.json { jsonResults.append(value) }
            if let error = counted.error { jsonErrors.append(.object(["image": .string(paths[index]), "error": .string(error)])) }
            for line in counted.lines { print(line, terminator: "") }
        }
        if json {
            let value: JSONValue = .object(["configHash": .string(pipelineConfig.configHash), "images": .array(jsonResults),
                                            "errors": .array(jsonErrors)])
            print(value.serialized(pretty: true))
        }
        if failures > 0 { throw ExitCode(2) }
    }
}

/// `--explain X,Y`: a point in image pixels.
struct ProbePoint: ExpressibleByArgument {
    let x: Double
    let y: Double

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(parts[0].trimmingCharacters(in: .whitespaces)),
              let y = Double(parts[1].trimmingCharacters(in: .whitespaces)), x.isFinite, y.isFinite else { return nil }
        self.x = x
        self.y = y
    }

    static var defaultValueDescription: String { "X,Y" }
}
