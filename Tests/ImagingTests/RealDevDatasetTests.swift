import Foundation
import Testing
import Imaging

/// The shared real development images (not in the repository). These files come from other
/// people's tools, so they catch decoder gaps that synthetic fixtures do not.
let realDevRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/datasets/real-dev").path

func realDevImages(_ folder: String, extension ext: String) -> [String] {
    let directory = realDevRoot + "/" + folder
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasSuffix("." + ext) }.sorted().map { directory + "/" + $0 }
}

@Suite(.enabled(if: FileManager.default.fileExists(atPath: realDevRoot),
                "real-dev dataset folder ../shared/datasets/real-dev is absent: skipped"))
struct RealDevDatasetTests {
    @Test func everyLDCPNGDecodes() throws {
        let files = realDevImages("ldc-maxkudi", extension: "png")
        #expect(files.count > 200)
        var colorTypes = Set<String>()
        for file in files {
            let info = try ImageInfo.read(file: file)
            colorTypes.insert("\(info.colorType)/\(info.bitDepth)")
            let image = try Image.decode(file: file)
            #expect(image.width == info.width && image.height == info.height)
        }
        // The folder is documented to hold these kinds; all must have been exercised.
        #expect(colorTypes.isSuperset(of: ["gray/8", "rgb/8", "palette/8", "rgba/8", "gray/16"]),
                "colour types seen: \(colorTypes.sorted())")
    }

    @Test func everyHemocytometerJPEGDecodesStrictly() throws {
        let files = realDevImages("hemocytometer-ahnd6474", extension: "jpg")
        #expect(files.count == 40)
        for file in files {
            let info = try ImageInfo.read(file: file)
            #expect(info.format == .jpeg)
            let image = try Image.decode(file: file)
            #expect(image.width == 4908 && image.height == 3264)
        }
    }
}
