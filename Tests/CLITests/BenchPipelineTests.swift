import Foundation
import Testing

/// `cellqa bench pipeline` reports every stage and a reference measured in the same run, the
/// ratio a person or a CI job compares across runs (no timing is asserted: this is not a
/// benchmark).
struct BenchPipelineTests {
    @Test func reportsEveryStageAndTheRatioToTheDecodeOfTheSameImages() throws {
        let result = try CellQABinary.run(["bench", "pipeline", "--iterations", "1", "--images", "1",
                                           "--width", "320", "--height", "240"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for stage in ["normalize", "illumination", "grid", "candidates", "classify", "nms", "count", "total"] {
            #expect(lines.contains { $0.hasPrefix(stage + " ") }, "no \(stage) line")
        }
        // The candidates stage's steps, indented under it, before the next stage.
        let candidates = try #require(lines.firstIndex { $0.hasPrefix("candidates ") })
        let classify = try #require(lines.firstIndex { $0.hasPrefix("classify ") })
        let steps = lines[(candidates + 1)..<classify]
        #expect(steps.contains { $0.hasPrefix("  detector ") } && steps.contains { $0.hasPrefix("  centre vote ") },
                "\(steps)")
        #expect(steps.allSatisfy { $0.hasPrefix("  ") })
        let reference = try #require(lines.first { $0.hasPrefix("reference: PNG decode of the same images") })
        let ratio = try #require(reference.split(separator: "=").last?.split(separator: "x").first)
        let value = try #require(Double(ratio.trimmingCharacters(in: .whitespaces)))
        #expect(value > 0 && value.isFinite)
    }

    /// The gate compares the same run's ratio with the limit: a limit no pipeline can meet
    /// fails with exit 1 and says so, a generous one passes.
    @Test func theRatioGateFailsAboveItsLimitAndPassesBelow() throws {
        let arguments = ["bench", "pipeline", "--iterations", "1", "--images", "1", "--width", "320", "--height", "240"]
        let strict = try CellQABinary.run(arguments + ["--max-ratio", "0.0001"])
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("speed gate FAILED"))
        let generous = try CellQABinary.run(arguments + ["--max-ratio", "1000000"])
        #expect(generous.status == 0, "\(generous.stderr)")
        #expect(generous.stdout.contains("speed gate passed"))
        let invalid = try CellQABinary.run(arguments + ["--max-ratio", "0"])
        #expect(invalid.status != 0)
        #expect(invalid.stderr.contains("--max-ratio must be a positive number"))
    }

    /// The allocator moves the figures, so the benchmark says how it was set: cellqa's glibc
    /// settings by default (a sanitizer's allocator refuses them), the user's own malloc
    /// settings when the environment has any.
    @Test func statesTheAllocatorPolicy() throws {
        let arguments = ["bench", "pipeline", "--iterations", "1", "--images", "1", "--width", "160", "--height", "120"]
        func allocatorLines(_ environment: [String: String]) throws -> [String] {
            let result = try CellQABinary.run(arguments, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("allocator: ") }
        }
        // The test bundle is built like the binary it runs: with a sanitizer both have one.
        let handle = dlopen(nil, RTLD_NOW)
        let sanitized = dlsym(handle, "__asan_init") != nil || dlsym(handle, "__tsan_init") != nil
        let inherited = ProcessInfo.processInfo.environment
        if inherited["GLIBC_TUNABLES"]?.contains("glibc.malloc.") != true && !inherited.keys.contains(where: { $0.hasPrefix("MALLOC_") }) {
            let expected = sanitized ? "allocator: the C library's malloc defaults (it refused cellqa's settings)"
                                     : "allocator: glibc malloc set by cellqa (no mappings, top pad 64 MiB, trim 1024 MiB)"
            #expect(try allocatorLines([:]) == [expected])
        }
        let leftAlone = "allocator: malloc settings left to the environment (GLIBC_TUNABLES or MALLOC_*)"
        #expect(try allocatorLines(["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1048576"]) == [leftAlone])
        #expect(try allocatorLines(["MALLOC_ARENA_MAX": "2"]) == [leftAlone])
        // A tunable of another part of glibc leaves malloc to cellqa.
        #expect(try allocatorLines(["GLIBC_TUNABLES": "glibc.cpu.x86_rep_movsb_threshold=4096"]) != [leftAlone])
    }

    @Test func rejectsAnUnknownPresetByName() throws {
        let result = try CellQABinary.run(["bench", "pipeline", "--preset", "crowded"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--preset must be one of"))
    }
}
