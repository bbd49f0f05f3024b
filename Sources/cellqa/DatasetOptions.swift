import ArgumentParser
import Harness

/// The dataset selection and worker options `run`, `compare` and `sweep` share: one
/// declaration, so the three commands spell and document them the same way. (Where the
/// dataset itself comes from differs: `run` takes it as an argument, `compare` and `sweep` as
/// `--dataset`; `--repeat` and `--acceptance` exist only where the command uses them.)
struct DatasetOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Separate labels root mirroring the dataset's sub-paths.", valueName: "DIR"))
    var labels: String?

    @Option(name: .long, help: ArgumentHelp("Only fixtures whose relative path matches this glob (*, **, ?, [...]).", valueName: "GLOB"))
    var filter: String?

    @Option(name: .long, help: ArgumentHelp("Only fixtures whose label carries this tag.", valueName: "TAG"))
    var tag: String?

    @Option(name: .long, help: ArgumentHelp("Worker threads, each running one fixture at a time (default: the number of cores available).", valueName: "N"))
    var jobs: Int?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be 1 or more, got \(jobs)") }
    }

    /// `--jobs`, else the number of cores.
    var workerCount: Int { jobs ?? RunSettings.defaultJobs }
}

/// `--fixture-timeout` and its check, shared by the commands that run fixtures through the
/// supervised runner (`run`, `compare`).
struct FixtureTimeoutOption: ParsableArguments {
    @Option(name: .customLong("fixture-timeout"), help: ArgumentHelp(
        "Wall-time limit of one fixture in seconds, per pass over it (run --repeat K: K passes; sweep: one per setting); a fixture over it is recorded as errored (\"time limit of N s exceeded\") and the run goes on. 0: no limit.",
        valueName: "SECONDS"))
    var seconds: Double = RunSettings.defaultFixtureTimeLimit ?? 0

    func validate() throws {
        guard seconds.isFinite, seconds >= 0 else { throw ValidationError("--fixture-timeout must be 0 or more seconds, got \(seconds)") }
    }

    /// nil for 0 (no limit).
    var limit: Double? { seconds > 0 ? seconds : nil }
}
