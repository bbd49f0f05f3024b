import ArgumentParser

@main
struct CellQA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cellqa",
        abstract: "Check automated hemocytometer cell counters: count cells, measure accuracy, gate CI.",
        version: CellQAVersion.string,
        subcommands: [Bench.self]
    )
}

enum CellQAVersion {
    static let string = "0.1.0"
}
