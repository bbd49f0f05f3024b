import Fixtures
import Testing

/// Hostile dataset layouts: `image` fields that try to leave the dataset root, odd files in
/// the tree. Every one is reported as a problem naming the label; the rest of the dataset
/// still scans.
@Suite struct DatasetTests {
    /// A dataset with one good fixture and one label `bad.json` whose image field is `reference`.
    private func scan(reference: String, prepare: (ScratchDirectory) -> Void = { _ in }) throws
        -> (dataset: Dataset, root: String, scratch: ScratchDirectory)
    {
        let scratch = ScratchDirectory()
        let root = scratch.directory("data")
        scratch.write("data/good.png", PNG.sample)
        scratch.write("data/good.json", "{\"version\": 1, \"cells\": []}")
        scratch.write("data/bad.json", "{\"version\": 1, \"cells\": [], \"image\": \"\(reference)\"}")
        scratch.write("outside.png", PNG.sample)
        prepare(scratch)
        return (try Dataset.scan(root: root), root, scratch)
    }

    private func problem(_ dataset: Dataset, _ root: String) -> DatasetProblem? {
        dataset.problems.first { $0.path == root + "/bad.json" && $0.kind == .invalidImageReference }
    }

    @Test func parentDirectoryReference() throws {
        let (dataset, root, _) = try scan(reference: "../outside.png")
        #expect(problem(dataset, root)?.message == "image \"../outside.png\" leaves the dataset root")
        #expect(dataset.fixtures.first { $0.id == "good" }?.labelPath == root + "/good.json")
        #expect(!dataset.fixtures.contains { $0.imagePath?.hasSuffix("outside.png") == true })
    }

    @Test func deeperParentReference() throws {
        let (dataset, root, _) = try scan(reference: "sub/../../outside.png")
        #expect(problem(dataset, root)?.message == "image \"sub/../../outside.png\" leaves the dataset root")
    }

    @Test func absoluteReference() throws {
        let (dataset, root, scratch) = try scan(reference: "/etc/passwd")
        _ = scratch
        #expect(problem(dataset, root)?.message
            == "image \"/etc/passwd\" is an absolute path; it must be relative to the label's directory inside the dataset")
    }

    @Test func symlinkLeavingTheRoot() throws {
        let (dataset, root, _) = try scan(reference: "escape.png") { scratch in
            scratch.symlink("data/escape.png", to: "../outside.png")
        }
        #expect(problem(dataset, root)?.message == "image \"escape.png\" resolves through a symlink to a file outside the dataset root")
    }

    @Test func referenceToNothing() throws {
        let (dataset, root, _) = try scan(reference: "missing.png")
        #expect(problem(dataset, root)?.message == "image \"missing.png\" (missing.png) is not an image of the dataset")
    }

    @Test func fifoAndDirectoryNamedLikeImagesAreNotFixtures() throws {
        let (dataset, _, _) = try scan(reference: "good.png") { scratch in
            scratch.fifo("data/pipe.png")
            scratch.directory("data/folder.png")
            scratch.symlink("data/loop", to: ".")
        }
        #expect(dataset.fixtures.map(\.id) == ["good"])
        #expect(dataset.problems.contains { $0.kind == .symlinkLoop })
        let pipe = dataset.problems.first { $0.path.hasSuffix("pipe.png") }
        #expect(pipe?.kind == .unreadable)
        #expect(pipe?.message == "not a regular file (a FIFO); skipped")
    }

    @Test func specialFilesNamedLikeNothingOfOursPassUnremarked() throws {
        let (dataset, _, _) = try scan(reference: "good.png") { scratch in
            scratch.fifo("data/notes.txt")
        }
        #expect(dataset.fixtures.map(\.id) == ["good"])
        #expect(!dataset.problems.contains { $0.path.hasSuffix("notes.txt") })
    }
}
