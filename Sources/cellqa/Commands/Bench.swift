import ArgumentParser

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks in a release build: decode, pipeline and harness speed.",
        subcommands: [BenchDecode.self, BenchHarness.self, BenchPipeline.self]
    )
}
