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

    func validate() throws {
        guard printDefaults != (check != nil) else { throw ValidationError("give exactly one of --print-defaults or --check FILE") }
    }

    func run() throws {
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
            printError("cellqa config: error: \(error)")
            throw ExitCode(2)
        }
    }
}
