import ArgumentParser
import Vision

/// `cellqa config`: print the default pipeline configuration, or check a configuration file.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the default pipeline configuration or validate a configuration file.",
        discussion: "A configuration file states only the keys it changes; the rest keep their defaults."
    )

    @Flag(name: .long, help: "Print every parameter with its default value as canonical JSON.")
    var printDefaults = false

    @Option(name: .long, help: ArgumentHelp("Validate FILE; print its full canonical form and hash.", valueName: "FILE"))
    var check: String?

    func run() throws {
        // Checked here rather than in validate(): ArgumentParser validates before it reports an
        // unknown option, so `config --bogus` would have been told to give one of the two.
        guard printDefaults != (check != nil) else {
            printError("Error: give exactly one of --print-defaults or --check FILE\n"
                       + "Usage: \(CellQA.usageString(for: ConfigCommand.self))\n"
                       + "  See 'cellqa config --help' for more information.")
            throw ExitCode(2)
        }
        if printDefaults {
            print(PipelineConfig().canonicalJSON)
            return
        }
        guard let check else { return }
        do {
            let config = try PipelineConfig.load(path: check)
            print(config.canonicalJSON)
            print("\(check): ok, configHash \(config.configHash)")
        } catch {
            printError("cellqa config: error: " + inputMessage(error, path: check, expected: .pipelineConfig))
            throw ExitCode(2)
        }
    }
}
