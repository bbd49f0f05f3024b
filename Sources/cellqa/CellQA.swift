import ArgumentParser

@main
struct CellQA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cellqa",
        abstract: "Check automated hemocytometer cell counters: count cells, measure accuracy, gate CI.",
        discussion: "Exit codes: 0 success, 1 problems found or a gate failed, 2 usage or input error, 130/143 interrupted by SIGINT/SIGTERM (run, compare; see cellqa help run).",
        version: CellQAVersion.string,
        subcommands: [
            ValidateCommand.self,
            InspectCommand.self,
            SynthCommand.self,
            Bench.self,
            RunCommand.self,
            CountCommand.self,
            ConfigCommand.self,
            CompareCommand.self,
            SweepCommand.self,
            ReviewCommand.self,
        ]
    )

    /// ArgumentParser exits 64 on usage errors; cellqa's documented code for them is 2.
    static func main() {
        _ = MallocPolicy.outcome
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError(fullMessage(for: error))
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}

enum CellQAVersion {
    static let string = "0.1.0"
}
