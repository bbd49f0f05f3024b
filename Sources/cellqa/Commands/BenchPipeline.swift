import ArgumentParser
import Foundation
import Harness
import Imaging
import Synth
import Vision

/// `cellqa bench pipeline`: time every stage of the pipeline on synthetic 1920x1080 images,
/// against a reference measured in the same run: the plain-C PNG decode of the same images
/// (libpng, compression level 6), interleaved with the pipeline runs so that this machine's
/// speed drifts move both alike. The ratio is what to compare across runs and machines. The
/// stages that time their steps (`PipelineResult.steps`) have them listed under them.
struct BenchPipeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Median time per pipeline stage on synthetic images (decode excluded, one thread)."
    )

    @Option(help: "Runs per image; medians are over all runs.")
    var iterations: Int = 10

    @Option(help: "Number of different synthetic images.")
    var images: Int = 3

    @Option(help: "Synthetic preset (standard, dense, sparse, blank, hard).")
    var preset: String = "standard"

    @Flag(help: ArgumentHelp("Draw the images without the chamber's ruling: times the grid search's fallbacks, "
                             + "which a view with no line runs through before it says \"no-grid\"."))
    var noRuling = false

    @Option(help: "Seed of the synthetic images.")
    var seed: UInt64 = 1

    @Option(help: "Image width in pixels.")
    var width: Int = 1920

    @Option(help: "Image height in pixels.")
    var height: Int = 1080

    @Option(help: ArgumentHelp("Pipeline configuration JSON (default: built-in defaults).", valueName: "FILE"))
    var config: String?

    @Option(help: ArgumentHelp("Fail (exit 1) when the pipeline's median total exceeds this multiple of the "
                               + "same run's PNG decode reference: a speed gate that machine load moves far less "
                               + "than a time limit.", valueName: "RATIO"))
    var maxRatio: Double?

    func validate() throws {
        guard (1...10_000).contains(iterations), (1...100).contains(images) else {
            throw ValidationError("--iterations must be 1...10000 and --images 1...100")
        }
        guard SynthPreset(rawValue: preset) != nil else {
            throw ValidationError("--preset must be one of \(SynthPreset.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let maxRatio, !(maxRatio.isFinite && maxRatio > 0) {
            throw ValidationError("--max-ratio must be a positive number, got \(maxRatio)")
        }
    }

    func run() throws {
        #if DEBUG
        print("note: debug build; measure with `swift build -c release` for meaningful numbers")
        #endif
        var pipelineConfig = PipelineConfig()
        if let config {
            do { pipelineConfig = try PipelineConfig.load(path: config) } catch {
                printError("cellqa bench pipeline: error: " + inputMessage(error, path: config, expected: .pipelineConfig))
                throw ExitCode(2)
            }
        }
        let pipeline = Pipeline(config: pipelineConfig)
        let generator = try SynthGenerator(preset: SynthPreset(rawValue: preset) ?? .standard, seed: seed,
                                           width: width, height: height, ruled: !noRuling)
        let fixtures = (0..<images).map { generator.make(index: $0) }
        let encoded = try fixtures.map { try $0.image.pngData(compressionLevel: 6) }
        // Each run's stages and the steps inside them; the reference decode of each.
        var stageRuns: [[StageTiming]] = [], stepRuns: [[StepTiming]] = []
        var reference = BenchSamples()
        var detections = 0
        _ = try pipeline.run(fixtures[0].image)  // warm-up: page in code and allocator pools
        for _ in 0..<iterations {
            for (fixture, png) in zip(fixtures, encoded) {
                let result = try pipeline.run(fixture.image)
                detections = result.detections.count
                stageRuns.append(result.timings)
                stepRuns.append(result.steps)
                try reference.time("decode") {
                    guard ReferenceDecoders.timePNG(png) else { throw ValidationError("reference PNG decode failed") }
                }
            }
        }
        print("pipeline on \(images) synthetic \(width)x\(height) '\(preset)'\(noRuling ? " unruled" : "") images "
              + "x \(iterations) runs, "
              + "one thread, config \(pipelineConfig.configHash) (last image: \(detections) detections)")
        print(MallocPolicy.description)
        let runs = iterations * images
        func row(_ name: String, _ wallMs: Double, _ cpuMs: Double?) -> String {
            name.padding(toLength: 26, withPad: " ", startingAt: 0) + String(format: " %9.2f", wallMs)
                + (cpuMs.map { String(format: " %8.2f", $0) } ?? "")
        }
        // Medians per stage and a "total" row of the per-run sums, as `cellqa run` reports them.
        let stages = stageStatistics(samples: stageRuns)
        let steps = stepStatistics(steps: stepRuns, stages: stages)
        print("stage (and its steps)      median ms   cpu ms")
        for stage in stages where stage.name != StageStatistics.totalName {
            print(row(stage.name, stage.wallMs.median, stage.cpuMs.median))
            // A step that ran in only some runs (a fallback) has its median over those.
            for step in steps where step.stage == stage.name {
                let ran = step.wallMs.count
                print(row("  " + step.step, step.wallMs.median, step.cpuMs.median)
                      + (ran < runs ? "  (in \(ran) of \(runs) runs)" : ""))
            }
        }
        let total = stages.last { $0.name == StageStatistics.totalName }?.wallMs.median ?? 0
        let decode = reference.median("decode")
        print(row("total", total, nil))
        let ratio = decode > 0 ? total / decode : .infinity
        print(String(format: "reference: PNG decode of the same images (C, libpng, level 6) %.2f ms, interleaved; "
                     + "pipeline total = %.2fx the decode", decode, ratio))
        if let maxRatio {
            guard ratio <= maxRatio else {
                print(String(format: "speed gate FAILED: pipeline total %.2fx the decode, limit %.2fx", ratio, maxRatio))
                throw ExitCode(1)
            }
            print(String(format: "speed gate passed: %.2fx the decode, limit %.2fx", ratio, maxRatio))
        }
    }
}
