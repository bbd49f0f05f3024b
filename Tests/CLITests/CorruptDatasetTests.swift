import Foundation
import JSON
import Testing

/// A dataset in which 2% of the images are corrupt (truncated, empty, garbage) completes,
/// reports exactly those fixtures as errored with their messages, and gives every other
/// fixture the same result as a run of the clean dataset. (scripts/bench-corrupt is the
/// 2,000-fixture full-size version.)
@Suite struct CorruptDatasetTests {
    static let fixtureCount = 150

    /// Deterministic garbage bytes (a 64-bit LCG).
    static func garbage(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// fixtures[] of a report.json by path, without what legitimately differs between runs
    /// (timings, harness CPU time, the absolute image and label paths).
    static func fixtureResults(_ report: JSONValue) -> [String: JSONValue] {
        guard case .array(let fixtures)? = report["fixtures"] else { return [:] }
        var result: [String: JSONValue] = [:]
        for f in fixtures {
            guard case .object(let object) = f, case .string(let path)? = object["path"] else { continue }
            let kept = object.filter { !["timings", "harnessCPUMs", "image", "label"].contains($0.key) }
            result[path] = .object(JSONObject(kept.map { member in
                // Which steps ran is a result; how long they took is not.
                guard member.key == "steps", case .array(let steps) = member.value else { return (member.key, member.value) }
                return (member.key, .array(steps.map { .array([$0["stage"] ?? .null, $0["step"] ?? .null]) }))
            }))
        }
        return result
    }

    @Test func corruptImagesErrorAndEveryOtherResultMatchesTheCleanRun() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let clean = dir.url.appendingPathComponent("clean")
        let synth = try CellQABinary.run(["synth", "--out", clean.path, "--count", "\(Self.fixtureCount)", "--seed", "21",
                                          "--width", "320", "--height", "240"])
        #expect(synth.status == 0, "\(synth.stderr)")
        let corrupt = dir.url.appendingPathComponent("corrupt")
        try FileManager.default.copyItem(at: clean, to: corrupt)
        func image(_ index: Int) -> String { "standard-s21-" + String(format: "%03d", index) + ".png" }
        // 3 of 150 (2%), each broken another way.
        let truncated = image(17), empty = image(64), scrambled = image(121)
        let truncatedURL = corrupt.appendingPathComponent(truncated)
        try Data(try Data(contentsOf: truncatedURL).prefix(1500)).write(to: truncatedURL)
        try Data().write(to: corrupt.appendingPathComponent(empty))
        try Data(Self.garbage(count: 4096, seed: 99)).write(to: corrupt.appendingPathComponent(scrambled))

        try dir.write("acceptance.json", RunCommandTests.lenient)
        let acceptance = dir.url.appendingPathComponent("acceptance.json").path
        let cleanOut = dir.url.appendingPathComponent("report-clean").path
        let corruptOut = dir.url.appendingPathComponent("report-corrupt").path
        let cleanRun = try CellQABinary.run(["run", clean.path, "--acceptance", acceptance, "--out", cleanOut, "--quiet", "--jobs", "2"])
        #expect(cleanRun.status == 0, "\(cleanRun.stdout)\(cleanRun.stderr)")
        let corruptRun = try CellQABinary.run(["run", corrupt.path, "--acceptance", acceptance, "--out", corruptOut, "--quiet",
                                               "--jobs", "2"])
        #expect(corruptRun.status == 1, "the maxErrored gate fails: \(corruptRun.stdout)\(corruptRun.stderr)")

        let before = Self.fixtureResults(try JSONValue.load(path: cleanOut + "/report.json"))
        let after = Self.fixtureResults(try JSONValue.load(path: corruptOut + "/report.json"))
        #expect(before.count == Self.fixtureCount)
        #expect(after.count == Self.fixtureCount, "every fixture is reported")
        #expect(before.values.allSatisfy { $0["status"] == .string("scored") })
        let errored = after.filter { $0.value["status"] == .string("errored") }
        #expect(errored.keys.sorted() == [truncated, empty, scrambled].sorted())
        func message(_ name: String) -> String {
            if case .string(let text)? = after[name]?["error"] { return text }
            return ""
        }
        #expect(message(truncated).hasPrefix(truncatedURL.path + ": truncated PNG"), "\(message(truncated))")
        #expect(message(empty) == corrupt.appendingPathComponent(empty).path + ": empty input (0 bytes)")
        #expect(message(scrambled).contains(": unknown image format: first bytes are "), "\(message(scrambled))")
        for (path, result) in before where errored[path] == nil {
            #expect(after[path] == result, "\(path) differs from the clean run")
        }
    }
}
