import Foundation
import Testing

/// `cellqa bench harness --keep DIR` writes its generated dataset into DIR: never among files
/// already there, which it would replace.
struct BenchHarnessTests {
    @Test func keepWantsANewOrEmptyDirectory() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try dir.write("mine/standard-s2026-000.json", "a person's file")
        let mine = dir.url.appendingPathComponent("mine").path
        let occupied = try CellQABinary.run(["bench", "harness", "--count", "1", "--keep", mine])
        #expect(occupied.status == 2)
        #expect(occupied.stderr == "cellqa bench harness: error: --keep \(mine) must be a new or empty directory: the generated files would replace files of the same names there\n",
                "\(occupied.stderr)")
        #expect(try String(contentsOfFile: mine + "/standard-s2026-000.json", encoding: .utf8) == "a person's file")

        try dir.write("taken", "a file")
        let taken = dir.url.appendingPathComponent("taken").path
        let file = try CellQABinary.run(["bench", "harness", "--count", "1", "--keep", taken])
        #expect(file.status == 2)
        #expect(file.stderr.contains("\(taken): cannot create the directory (\(taken) is a file, not a directory)"), "\(file.stderr)")
    }
}
