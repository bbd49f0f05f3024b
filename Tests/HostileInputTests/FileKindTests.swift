#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Fixtures
import Imaging
import JSON
import Testing

/// Hostile files on disk: wrong kinds of file, links, permissions, oversized files. Every case
/// ends quickly with an error naming the path.
@Suite struct FileKindTests {
    private func decodeFailure(_ path: String) -> ImageError? {
        do {
            _ = try Image.decode(file: path)
            return nil
        } catch {
            return error
        }
    }

    private func headerFailure(_ path: String) -> ImageError? {
        do {
            _ = try ImageInfo.read(file: path)
            return nil
        } catch {
            return error
        }
    }

    private func labelFailure(_ path: String) -> [String] {
        do {
            _ = try Label.load(path: path)
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test func emptyImageFile() {
        let scratch = ScratchDirectory()
        let path = scratch.write("empty.png", [UInt8]())
        #expect(decodeFailure(path) == .emptyInput(file: path))
        #expect(decodeFailure(path)?.description == "\(path): empty input (0 bytes)")
    }

    @Test func pngBytesInJPEGFile() {
        let scratch = ScratchDirectory()
        let path = scratch.write("photo.JPG", PNG.sample)
        #expect(decodeFailure(path) == .extensionMismatch(file: path, pathExtension: "JPG", actual: .png))
        #expect(headerFailure(path)?.description == "\(path): extension .JPG does not match the contents, which are PNG")
    }

    @Test func jpegBytesInPNGFile() {
        let scratch = ScratchDirectory()
        let path = scratch.write("scan.png", JPEG.sample)
        #expect(decodeFailure(path) == .extensionMismatch(file: path, pathExtension: "png", actual: .jpeg))
    }

    @Test func truncatedFileNamesThePath() {
        let scratch = ScratchDirectory()
        let path = scratch.write("cut.png", Array(PNG.sample.prefix(50)))
        guard case .truncated(path?, .png, _)? = decodeFailure(path) else {
            Issue.record("expected truncated PNG naming \(path), got \(String(describing: decodeFailure(path)))")
            return
        }
    }

    @Test func directoryNamedLikeAnImage() {
        let scratch = ScratchDirectory()
        let path = scratch.directory("x.png")
        #expect(decodeFailure(path) == .isDirectory(file: path))
        #expect(headerFailure(path) == .isDirectory(file: path))
        #expect(labelFailure(scratch.directory("y.json")) == [
            "\(scratch.path)/y.json: (top level): expected a readable JSON file, got not a regular file",
        ])
    }

    @Test func missingFileAndDanglingSymlink() {
        let scratch = ScratchDirectory()
        #expect(decodeFailure(scratch.path + "/none.png") == .fileNotFound(file: scratch.path + "/none.png"))
        let link = scratch.symlink("dangling.png", to: "nowhere.png")
        #expect(decodeFailure(link) == .fileNotFound(file: link))
        #expect(labelFailure(scratch.symlink("dangling.json", to: "nowhere.json")) == [
            "\(scratch.path)/dangling.json: (top level): expected a readable JSON file, got No such file or directory",
        ])
    }

    @Test func symlinkLoop() {
        let scratch = ScratchDirectory()
        let a = scratch.symlink("a.png", to: "b.png")
        scratch.symlink("b.png", to: "a.png")
        #expect(decodeFailure(a) == .readFailed(file: a, reason: "Too many levels of symbolic links"))
        scratch.symlink("c.json", to: "d.json")
        scratch.symlink("d.json", to: "c.json")
        #expect(labelFailure(scratch.path + "/c.json") == [
            "\(scratch.path)/c.json: (top level): expected a readable JSON file, got Too many levels of symbolic links",
        ])
    }

    /// Opening a FIFO read-only blocks until a writer appears; every reader must refuse it at
    /// once instead. (A hang here fails the suite by timeout.)
    @Test(.timeLimit(.minutes(1))) func fifoIsRefusedWithoutBlocking() {
        let scratch = ScratchDirectory()
        let image = scratch.fifo("pipe.png")
        let label = scratch.fifo("pipe.json")
        let start = monotonicSeconds()
        #expect(decodeFailure(image) == .readFailed(file: image, reason: "not a regular file"))
        #expect(headerFailure(image) == .readFailed(file: image, reason: "not a regular file"))
        #expect(labelFailure(label) == ["\(label): (top level): expected a readable JSON file, got not a regular file"])
        #expect((try? JSONValue.load(path: label)) == nil)
        #expect(monotonicSeconds() - start < 5)
    }

    /// Tests run as root here, and root reads a mode-000 file anyway, so the permission check
    /// can only be exercised for other users; what is tested is that the outcome is exactly
    /// one of the two correct ones for the current user.
    @Test func unreadableFile() {
        let scratch = ScratchDirectory()
        let path = scratch.write("locked.png", PNG.sample)
        chmod(path, 0)
        if geteuid() == 0 {
            #expect((try? Image.decode(file: path))?.pixels == PNG.samplePixels)
        } else {
            #expect(decodeFailure(path) == .permissionDenied(file: path))
            #expect(decodeFailure(path)?.description == "\(path): permission denied")
        }
    }

    /// A 100 MB label (one huge string) is refused by the size limit from its length alone,
    /// without reading or parsing it.
    @Test func hundredMegabyteLabelIsRefusedQuickly() {
        let scratch = ScratchDirectory()
        let path = scratch.path + "/huge.json"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let head = Array("{\"version\": 1, \"cells\": [], \"image\": \"".utf8)
        _ = head.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        _ = ftruncate(descriptor, 100_000_000)  // sparse: the rest reads as NUL bytes
        close(descriptor)
        let start = monotonicSeconds()
        #expect(labelFailure(path) == [
            "\(path): (top level): expected a readable JSON file, got 100000000 bytes (the limit is 67108864)",
        ])
        #expect(monotonicSeconds() - start < 1)
    }

    @Test func labelLoadNamesTheFileInSyntaxErrors() {
        let scratch = ScratchDirectory()
        let path = scratch.write("bad.json", "{\"version\": 1,\n \"cells\": [}")
        #expect(labelFailure(path) == [
            "\(path): line 2, column 12, byte 26: expected valid JSON, got '}' (json-c: unexpected character)",
        ])
    }
}
