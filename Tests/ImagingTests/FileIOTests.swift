import Foundation
import Testing
@testable import Imaging

/// A fresh temporary directory per test, removed afterwards.
final class TemporaryDirectory {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "cellqa-imaging-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// The ImageError a call throws (nil if it succeeds; a foreign error type is a test failure).
func fileError(_ body: () throws -> Void) -> ImageError? {
    do {
        try body()
        return nil
    } catch let error as ImageError {
        return error
    } catch {
        Issue.record("not an ImageError: \(error)")
        return nil
    }
}

@Suite struct FileIOTests {
    @Test func decodesFilesWithAnyCaseExtension() throws {
        let directory = try TemporaryDirectory()
        let spec = makePNGSpec(.rgb, bitDepth: 8, width: 5, height: 4)
        for name in ["a.png", "b.PNG", "c.Png", "no-extension", "d.bin"] {
            #expect(try Image.decode(file: directory.write(name, spec.encode())).pixels == spec.expectedRGB)
        }
        for name in ["e.jpg", "f.JPEG", "g.jpeg", "h.JPG"] {
            let image = try Image.decode(file: directory.write(name, smallJPEG))
            #expect(image.width == 24)
            #expect(try ImageInfo.read(file: directory.path + "/" + name).format == .jpeg)
        }
    }

    @Test func extensionMismatchNamesFileAndFormat() throws {
        let directory = try TemporaryDirectory()
        let png = try directory.write("photo.jpg", smallPNG)
        let error = fileError { _ = try Image.decode(file: png) }
        #expect(error == .extensionMismatch(file: png, pathExtension: "jpg", actual: .png))
        #expect(error?.description.contains("photo.jpg") == true)
        #expect(fileError { _ = try ImageInfo.read(file: png) } == error)

        let jpeg = try directory.write("scan.PNG", smallJPEG)
        #expect(fileError { _ = try Image.decode(file: jpeg) } ==
                .extensionMismatch(file: jpeg, pathExtension: "PNG", actual: .jpeg))
    }

    @Test func fileErrorsAreTypedAndNameTheFile() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/missing.png"
        #expect(fileError { _ = try Image.decode(file: missing) } == .fileNotFound(file: missing))
        #expect(fileError { _ = try Image.decode(file: directory.path) } == .isDirectory(file: directory.path))
        #expect(fileError { _ = try ImageInfo.read(file: directory.path) } == .isDirectory(file: directory.path))

        let empty = try directory.write("empty.png", [])
        let emptyError = fileError { _ = try Image.decode(file: empty) }
        #expect(emptyError == .emptyInput(file: empty))
        #expect(emptyError?.description == "\(empty): empty input (0 bytes)")

        let cut = try directory.write("cut.png", Array(smallPNG.prefix(60)))
        guard case .truncated(cut, .png, _) = fileError({ _ = try Image.decode(file: cut) }) else {
            Issue.record("truncated file error does not name the file")
            return
        }
        let huge = try directory.write("huge.jpg", smallJPEG)
        let tooLarge = fileError { _ = try Image.decode(file: huge, options: DecodeOptions(maxPixels: 10)) }
        #expect(tooLarge == .tooLarge(file: huge, format: .jpeg, width: 24, height: 16, maxPixels: 10))
    }

    @Test func fifoIsRefusedWithoutBlocking() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path + "/pipe.png"
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(fileError { _ = try Image.decode(file: fifo) } == .readFailed(file: fifo, reason: "not a regular file"))
        #expect(fileError { _ = try ImageInfo.read(file: fifo) } == .readFailed(file: fifo, reason: "not a regular file"))
    }

    @Test(.enabled(if: geteuid() != 0, "running as root: file permissions are not enforced"))
    func unreadableFileIsPermissionDenied() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("locked.png", smallPNG)
        chmod(file, 0)
        #expect(fileError { _ = try Image.decode(file: file) } == .permissionDenied(file: file))
    }

    @Test func headerOfAFileWithLongMetadataIsFound() throws {
        // A text chunk larger than the first read, before the image data.
        let spec = makePNGSpec(.gray, bitDepth: 8, width: 3, height: 2)
        let plain = spec.encode()
        let text = pngChunk("tEXt", Array("Comment\u{0}".utf8) + [UInt8](repeating: 0x41, count: 400_000))
        let file = Array(plain.prefix(33)) + text + Array(plain.dropFirst(33))
        let directory = try TemporaryDirectory()
        let path = try directory.write("long.png", file)
        #expect(try ImageInfo.read(file: path).width == 3)
        #expect(try Image.decode(file: path).pixels == spec.expectedRGB)
    }

    @Test func pngWriteReadRoundTripIsExact() throws {
        let directory = try TemporaryDirectory()
        let image = Image(width: 31, height: 17, pixels: gradientRGB(width: 31, height: 17, seed: 40))
        for level in [0, 6, 9] {
            let path = directory.path + "/round-\(level).png"
            try image.writePNG(to: path, compressionLevel: level)
            #expect(try Image.decode(file: path) == image)
            #expect(try ImageInfo.read(file: path) == ImageInfo(format: .png, width: 31, height: 17, bitDepth: 8,
                                                                colorType: "rgb", channels: 3, interlaced: false))
        }
        // Overwriting keeps no temporary files behind.
        try image.writePNG(to: directory.path + "/round-6.png")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() ==
                ["round-0.png", "round-6.png", "round-9.png"])
        #expect(throws: ImageError.invalidArgument("PNG compression level 10 is outside 0...9")) {
            try image.pngData(compressionLevel: 10)
        }
        let unwritable = directory.path + "/no-such-dir/x.png"
        guard case .writeFailed(unwritable, _) = fileError({ try image.writePNG(to: unwritable) }) else {
            Issue.record("writing into a missing directory did not fail with writeFailed")
            return
        }
    }

    @Test func jpegWriteProducesADecodableFile() throws {
        let directory = try TemporaryDirectory()
        let image = Image(width: 16, height: 16, fill: (r: 200, g: 40, b: 90))
        let path = directory.path + "/fixture.jpg"
        try image.writeJPEG(to: path, quality: 95)
        let decoded = try Image.decode(file: path)
        #expect(differences(decoded.pixels, image.pixels).max <= 3)
    }

    @Test func emptyImagesCannotBeEncoded() {
        let empty = Image(width: 0, height: 0, pixels: [])
        guard case .invalidArgument = fileError({ _ = try empty.pngData() }) else {
            Issue.record("0x0 PNG encode did not fail")
            return
        }
    }
}

@Suite struct OpenErrorMappingTests {
    // Permission errors cannot be provoked when the suite runs as root, so the mapping itself
    // is checked here as well.
    @Test func systemErrorsMapToTypedCases() {
        #expect(ImageFile.mapOpenError(EACCES, path: "f.png") == .permissionDenied(file: "f.png"))
        #expect(ImageFile.mapOpenError(ENOENT, path: "f.png") == .fileNotFound(file: "f.png"))
        #expect(ImageFile.mapOpenError(EISDIR, path: "d") == .isDirectory(file: "d"))
        guard case .readFailed("f.png", let reason) = ImageFile.mapOpenError(EIO, path: "f.png") else {
            Issue.record("EIO not mapped to readFailed")
            return
        }
        #expect(reason.contains("error"))
    }
}

@Suite struct DataInputTests {
    @Test func dataAndArrayInputsDecodeAlike() throws {
        #expect(try Image.decode(Data(smallPNG)) == Image.decode(smallPNG))
        #expect(try ImageInfo.read(Data(smallJPEG)) == ImageInfo.read(smallJPEG))
        #expect(throws: ImageError.emptyInput(file: nil)) { try Image.decode(Data()) }
    }
}
