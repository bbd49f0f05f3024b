import Foundation
import Testing
@testable import Harness

/// `writeNewFile`: the write behind draft labels and review overlays, which never replaces
/// what is already at its path.
@Suite struct NewFileTests {
    static func directory() throws -> String {
        let dir = NSTemporaryDirectory() + "cellqa-newfile-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func writesANewFileAndItsDirectoriesAndLeavesNothingElse() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeNewFile(Array("hello".utf8), to: dir + "/a/b/new.txt")
        #expect(try String(contentsOfFile: dir + "/a/b/new.txt", encoding: .utf8) == "hello")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/a/b") == ["new.txt"], "no temporary left")
    }

    @Test func whatIsThereStays() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "mine".write(toFile: dir + "/label.json", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling.json", withDestinationPath: dir + "/nowhere")
        for name in ["label.json", "dangling.json"] {
            do {
                try writeNewFile(Array("draft".utf8), to: dir + "/" + name)
                Issue.record("\(name) was written over")
            } catch {
                guard case .exists(let path) = error else { Issue.record("\(error)"); continue }
                #expect(path == dir + "/" + name)
            }
        }
        #expect(try String(contentsOfFile: dir + "/label.json", encoding: .utf8) == "mine")
        #expect(!FileManager.default.fileExists(atPath: dir + "/nowhere"), "the symlink was not followed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["dangling.json", "label.json"])
    }

    @Test func aParentThatIsAFileIsNamed() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "x".write(toFile: dir + "/file", atomically: false, encoding: .utf8)
        do {
            try writeNewFile(Array("y".utf8), to: dir + "/file/sub/new.png")
            Issue.record("written under a file")
        } catch {
            guard case .directory(let path, _) = error else { Issue.record("\(error)"); return }
            #expect(path == dir + "/file/sub")
        }
    }

    /// `createDirectories` makes what is missing, and names a file in the way however deep.
    @Test func aFileInTheWayIsNamed() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(createDirectories(dir + "/a/b") == nil)
        #expect(createDirectories(dir + "/a/b") == nil, "already there")
        try "x".write(toFile: dir + "/f", atomically: false, encoding: .utf8)
        #expect(createDirectories(dir + "/f") == "\(dir)/f is a file, not a directory")
        #expect(createDirectories(dir + "/f/g/h") == "\(dir)/f is a file, not a directory")
    }
}
