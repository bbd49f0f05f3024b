import ArgumentParser
import Foundation
import Harness
import Synth
import Vision

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

    @Option(name: .long, help: ArgumentHelp("Keep the generated dataset here (a new or empty directory) instead of a temporary directory.", valueName: "DIR"))
    var keep: String?

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be 1 or more") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be 1 or more") }
    }

    func run() throws {
        let root = keep ?? NSTemporaryDirectory() + "cellqa-bench-harness-\(getpid())"
        defer { if keep == nil { try? FileManager.default.removeItem(atPath: root) } }
        // The generated files would replace any of the same names there.
        var problem: String?
        if let keep, let names = try? FileManager.default.contentsOfDirectory(atPath: keep), !names.isEmpty {
            problem = "--keep \(keep) must be a new or empty directory: the generated files would replace files of the same names there"
        }
        if let problem = problem ?? createDirectoryProblem(root) {
            printError("cellqa bench harness: error: " + problem)
            throw ExitCode(2)
        }
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
        for j in jobs == 1 ? [1] : [1, jobs] {
            rows.append((j, try measure(root: root, jobs: j)))
        }
        print("")
        print(MallocPolicy.description)
        print("jobs  wall s  fixtures/s  peak RSS MiB  pipeline CPU s  harness CPU s  harness/pipeline")
        for (j, m) in rows {
            print(String(format: "%4d  %6.2f  %10.2f  %12.1f  %14.2f  %13.3f  %15.2f%%", j, m.wall, Double(count) / m.wall,
                         Double(m.peakRSS) / 1_048_576, m.pipelineCPU, m.harnessCPU, 100 * m.harnessCPU / m.pipelineCPU))
        }
        if rows.count == 2 {
            print(String(format: "speed-up with %d jobs: %.2fx", jobs, rows[0].result.wall / rows[1].result.wall))
        }
        if let m = rows.first?.result {
            print(String(format: "harness CPU parts (jobs 1): dataset walk + content hash %.3f s, per-fixture label "
                         + "reading/checks/matching/scoring %.3f s, report build %.3f s, report write %.3f s; "
                         + "decode CPU %.2f s (neither harness nor pipeline)",
                         m.scanCPU, m.perFixtureCPU, m.buildCPU, m.writeCPU, m.decodeCPU))
        }
    }

    struct Measured {
        var wall = 0.0, pipelineCPU = 0.0, decodeCPU = 0.0
        var scanCPU = 0.0, perFixtureCPU = 0.0, buildCPU = 0.0, writeCPU = 0.0
        var peakRSS = 0
        var harnessCPU: Double { scanCPU + perFixtureCPU + buildCPU + writeCPU }
    }

    /// One full run: scan, run, report, write. Harness parts are measured in thread CPU time
    /// so that the overhead figure does not depend on other load on the machine.
    private func measure(root: String, jobs: Int) throws -> Measured {
        BenchSamples.resetPeakRSS()
        let out = root + ".bench-out-\(jobs)"
        let t0 = Date()
        let report = try performRun(RunRequest(datasetRoot: root, labelsRoot: nil, settings: RunSettings(jobs: jobs),
                                               toolVersion: CellQAVersion.string))
        var m = Measured()
        var c0 = StageClock.threadCPU()
        try report.writeReports(to: out)
        m.writeCPU = StageClock.threadCPU() - c0
        m.wall = Date().timeIntervalSince(t0)
        m.peakRSS = peakResidentBytes()
        // The report was built inside performRun; build it again to time that part alone.
        c0 = StageClock.threadCPU()
        _ = RunReport(run: report.run, acceptance: Acceptance(), provenance: report.provenance)
        m.buildCPU = StageClock.threadCPU() - c0
        m.scanCPU = report.scanCPUSeconds
        m.perFixtureCPU = report.harnessCPUSeconds
        for stage in report.stages where stage.name != StageStatistics.totalName {
            if stage.name == "decode" { m.decodeCPU = stage.cpuMs.sum / 1000 } else { m.pipelineCPU += stage.cpuMs.sum / 1000 }
        }
        try? FileManager.default.removeItem(atPath: out)
        print(String(format: "jobs %d: %d fixtures in %.2f s, F1 %.4f, errored %d", jobs, report.outcomes.count, m.wall,
                     report.overall.f1 ?? .nan, report.erroredCount))
        return m
    }
}
