#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFuzzDriver

// cellqa-fuzz TARGET [libFuzzer options and corpus directories]
//
// Built by scripts/fuzz with -sanitize=fuzzer, this runs libFuzzer on TARGET. In an ordinary
// build libFuzzer is absent and it replays the given files (or every file of the given
// directories) through TARGET once each: a regression runner for corpora and crash inputs.

let usage = "usage: cellqa-fuzz TARGET [libFuzzer options] [CORPUS_DIR|FILE ...]\n"
    + "targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n"

/// The target named on the command line; libFuzzer's C callback cannot capture, so it reads
/// this immutable global.
let selectedTarget: FuzzTarget? = CommandLine.arguments.count > 1 ? FuzzTarget(rawValue: CommandLine.arguments[1]) : nil

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let selectedTarget else { return 0 }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget.run(bytes)
    return 0
}

guard let target = selectedTarget else {
    writeError(CommandLine.arguments.count > 1 ? "cellqa-fuzz: unknown target \"\(CommandLine.arguments[1])\"\n" + usage : usage)
    exit(2)
}
let rest = Array(CommandLine.arguments.dropFirst(2))

if cfd_fuzzer_linked() != 0 {
    // libFuzzer parses argv itself; it sees the program name followed by our remaining arguments.
    var cStrings: [UnsafeMutablePointer<CChar>?] = ([CommandLine.arguments[0]] + rest).map { strdup($0) }
    cStrings.append(nil)
    var argc = Int32(cStrings.count - 1)
    let status = cStrings.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
        return cfd_run_driver(&argc, &argv) { data, size in fuzzTestOneInput(data, size) }
    }
    exit(status)
}

let replay = CorpusReplay(target: target)
let paths = rest.filter { !$0.hasPrefix("-") }
if paths.isEmpty {
    writeError("cellqa-fuzz: built without libFuzzer (use scripts/fuzz \(target.rawValue) SECONDS to fuzz); "
          + "give corpus files or directories to replay them once each\n")
    exit(2)
}
exit(replay.run(paths: paths))
