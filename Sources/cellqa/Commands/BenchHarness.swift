import ArgumentParser
import Foundation
import Harness
import Synth

struct BenchHarness: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "harness",
        abstract: "Harness overhead vs pipeline time, and --jobs 1 vs 2 throughput, on a synthetic dataset.",
        discussion: """
            Generates COUNT synthetic 1920x1080 fixtures (JPEG, exact labels) into a temporary \
            directory (not timed), then runs the whole `cellqa run` path on them with --jobs 1 \
            and --jobs N, and prints: fixtures/s for each, the speed-up, peak resident memory of \
            each run, and the harness overhead (dataset walk + content hash, label reading, \
            matching, scoring, statistics, report building and writing) as a share of the \
            pipeline's own stage time. Use a release build.
            """
    )

    @Option(name: .long, help: "Number of synthetic fixtures.")
    var count: Int = 200

    @Option(name: .long, help: "Worker count for the parallel run (compared with 1).")
    var jobs: Int = 2

    @Option(name: .long, help: "Synthetic preset.")
    var preset: String = SynthPreset.standard.rawValue

    @Option(name: .long, help: ArgumentHelp("Keep the generated dataset here instead of a temporary directory.", valueName: "DIR"))
    var keep: String?

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be 1 or more") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be 1 or more") }
    }

    func run() throws {
        let root = keep ?? NSTemporaryDirectory() + "cellqa-bench-harness-\(getpid())"
        defer { if keep == nil { try? FileManager.default.removeItem(atPath: root) } }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let generator = try SynthGenerator(preset: SynthPreset(name: preset), seed: 2026)
        print("generating \(count) fixtures in \(root) ...")
        DispatchQueue.concurrentPerform(iterations: max(1, jobs)) { worker in
            var index = worker
            while index < count {
                var fixture = generator.make(index: index)
                fixture.label.image = fixture.name + ".jpg"
                try? fixture.image.writeJPEG(to: root + "/" + fixture.name + ".jpg", quality: 90)
                try? Data((fixture.label.jsonValue.serialized(pretty: true) + "\n").utf8)
                    .write(to: URL(fileURLWithPath: root + "/" + fixture.name + ".json"))
                index += max(1, jobs)
            }
        }

        var rows: [(jobs: Int, result: Measured)] = []
        for j in [1, jobs] where !(j == 1 && rows.contains { $0.jobs == 1 }) {
            rows.append((j, try measure(root: root, jobs: j)))
        }
        print("")
        print("jobs  wall s  fixtures/s  peak RSS MiB  pipeline stages s  harness s  harness/pipeline")
        for (j, m) in rows {
            print(String(format: "%4d  %6.2f  %10.2f  %12.1f  %17.2f  %9.3f  %15.2f%%", j, m.wall, Double(count) / m.wall,
                         Double(m.peakRSS) / 1_048_576, m.pipelineStages, m.harness, 100 * m.harness / m.pipelineStages))
        }
        if rows.count == 2 {
            print(String(format: "speed-up with %d jobs: %.2fx", jobs, rows[0].result.wall / rows[1].result.wall))
        }
        if let m = rows.first?.result {
            print(String(format: "harness parts (jobs 1): scan+hash %.3f s, per-fixture label/match/score %.3f s, "
                         + "report build %.3f s, report write %.3f s; decode %.2f s (not counted as overhead)",
                         m.scan, m.perFixture, m.build, m.write, m.decode))
        }
    }

    struct Measured {
        var wall = 0.0, pipelineStages = 0.0, decode = 0.0
        var scan = 0.0, perFixture = 0.0, build = 0.0, write = 0.0
        var peakRSS = 0
        var harness: Double { scan + perFixture + build + write }
    }

    /// One full run: scan, run, report, write, with each harness part timed.
    private func measure(root: String, jobs: Int) throws -> Measured {
        resetPeakRSS()
        let out = root + "/.bench-out-\(jobs)"
        let t0 = Date()
        let report = try performRun(RunRequest(datasetRoot: root, labelsRoot: nil, settings: RunSettings(jobs: jobs),
                                               toolVersion: CellQAVersion.string))
        let total = Date().timeIntervalSince(t0)
        let w0 = Date()
        try report.writeReports(to: out)
        var m = Measured()
        m.write = Date().timeIntervalSince(w0)
        m.wall = total + m.write
        m.scan = report.scanSeconds
        m.perFixture = report.harnessSeconds
        m.build = max(0, total - report.run.wallSeconds - report.scanSeconds)
        let decode = report.stages.first { $0.name == "decode" }?.wallMs.sum ?? 0
        m.decode = decode / 1000
        m.pipelineStages = report.pipelineSeconds - m.decode
        m.peakRSS = peakResidentBytes()
        try? FileManager.default.removeItem(atPath: out)
        print(String(format: "jobs %d: %d fixtures in %.2f s, F1 %.4f, errored %d", jobs, report.outcomes.count, m.wall,
                     report.overall.f1 ?? .nan, report.erroredCount))
        return m
    }

    /// Resets VmHWM so each run's peak is its own (Linux >= 4.0; ignored elsewhere).
    private func resetPeakRSS() {
        if let file = fopen("/proc/self/clear_refs", "w") {
            fputs("5", file)
            fclose(file)
        }
    }
}
