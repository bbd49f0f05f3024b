import ArgumentParser
import Fixtures
import Foundation
import Harness
import Imaging
import JSON

/// `cellqa inspect`: what is in this file, as cellqa reads it?
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe image files (format, size, bit depth, decode time), label files and cellqa's other JSON files.",
        discussion: "Files ending in .json are read as labels (labels-v1), or as the cellqa document they are (a run report, a pipeline configuration, an acceptance file: told by their top-level keys); anything else as an image. Exit 1 when any file has errors."
    )

    @Argument(help: "Image or label files.")
    var files: [String]

    @Option(help: "Largest image accepted, in pixels (width x height).")
    var maxPixels = DecodeOptions().maxPixels

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("name at least one file") }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive, got \(maxPixels)") }
    }

    func run() throws {
        var failed = false
        for file in files {
            let ok = file.lowercased().hasSuffix(".json") ? inspectLabel(file) : inspectImage(file)
            failed = failed || !ok
        }
        if failed { throw ExitCode(1) }
    }

    private func inspectImage(_ path: String) -> Bool {
        do {
            let info = try ImageInfo.read(file: path)
            let start = DispatchTime.now().uptimeNanoseconds
            let image = try Image.decode(file: path, options: DecodeOptions(maxPixels: maxPixels))
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            let layout = info.interlaced ? (info.format == .png ? ", Adam7 interlaced" : ", progressive") : ""
            // Labels must use the stored pixels; a viewer that honours the tag shows others.
            let turn = info.exifOrientation.map {
                ", EXIF orientation \($0) (viewers show it \(exifOrientationDescription($0)); cellqa and labels use the pixels as stored)"
            } ?? ""
            print("\(path): \(info.format.rawValue.uppercased()) \(image.width)x\(image.height), "
                  + "\(info.bitDepth)-bit \(info.colorType), \(info.channels) channel(s)\(layout)\(turn), "
                  + "decoded in \(String(format: "%.2f", ms)) ms")
            return true
        } catch {
            print("\(error)")
            return false
        }
    }

    private func inspectLabel(_ path: String) -> Bool {
        do {
            let label = try Label.load(path: path)
            var parts = ["\(path): label v\(label.version)",
                         "\(label.cells.count) cells (live \(label.liveCount), dead \(label.deadCount))"]
            if let width = label.width, let height = label.height { parts.append("image \(width)x\(height)") }
            if let image = label.image { parts.append("image file \(image)") }
            if let scale = label.umPerPixel { parts.append("\(scale) µm/px") }
            parts.append("dilution \(label.dilution)")
            parts.append(label.grid == nil ? "no grid" : "grid")
            if !label.tags.isEmpty { parts.append("tags: " + label.tags.joined(separator: ", ")) }
            print(parts.joined(separator: ", "))
            return true
        } catch {
            // Not a label: a report, config or acceptance file is described as what it is.
            if let value = try? JSONValue.load(path: path), let kind = DocumentKind.of(value), kind != .label {
                let described = InspectDocument.describe(path, as: kind)
                print(described.line)
                return described.ok
            }
            print(error.description)
            return false
        }
    }
}
