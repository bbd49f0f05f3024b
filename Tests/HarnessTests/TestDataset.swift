import Foundation
import Imaging
@testable import Harness

/// A throw-away dataset directory for runner and report tests: small drawn images (cells are
/// dark-rimmed bright discs on a grey field) with labels-v1 files beside them.
struct TestDataset {
    let root: String

    init(name: String) throws {
        root = NSTemporaryDirectory() + "cellqa-harness-\(name)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// Draws `cells` (x, y, r in pixels) on a `size` x `size` image and writes it as PNG.
    func writeImage(_ relative: String, size: Int = 128, cells: [(Double, Double, Double)]) throws {
        var pixels = [UInt8](repeating: 170, count: size * size * 3)
        for y in 0..<size {
            for x in 0..<size {
                var v = 170.0 + Double((x * 7 + y * 13) % 5) - 2
                for (cx, cy, r) in cells {
                    let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot()
                    if d <= r - 2 { v = 235 } else if d <= r { v = 60 }
                }
                let i = (y * size + x) * 3
                pixels[i] = UInt8(v); pixels[i + 1] = UInt8(v); pixels[i + 2] = UInt8(v)
            }
        }
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Image(width: size, height: size, pixels: pixels).writePNG(to: path)
    }

    /// Writes a labels-v1 file listing `cells` as live cells.
    func writeLabel(_ relative: String, cells: [(Double, Double, Double)], tags: [String] = [],
                    expect: String? = nil) throws {
        let cellText = cells.map { "{\"x\": \($0.0), \"y\": \($0.1), \"r\": \($0.2), \"label\": \"live\"}" }
        var text = "{\"version\": 1, \"cells\": [\(cellText.joined(separator: ", "))]"
        if !tags.isEmpty { text += ", \"tags\": [\(tags.map { "\"\($0)\"" }.joined(separator: ", "))]" }
        if let expect { text += ", \"expect\": \(expect)" }
        text += "}\n"
        try writeText(relative, text)
    }

    func writeText(_ relative: String, _ text: String) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// A standard mix: four labelled images (two in a sub-folder, one blank control), one
    /// unlabelled image.
    static func standard(name: String) throws -> TestDataset {
        let d = try TestDataset(name: name)
        let a = [(30.0, 30.0, 8.0), (80.0, 40.0, 8.0), (50.0, 90.0, 9.0)]
        let b = [(40.0, 40.0, 8.0), (90.0, 90.0, 8.0)]
        try d.writeImage("a.png", cells: a)
        try d.writeLabel("a.json", cells: a, tags: ["standard"], expect: "{\"total\": {\"min\": 2, \"max\": 4}}")
        try d.writeImage("sub/b.png", cells: b)
        try d.writeLabel("sub/b.json", cells: b, tags: ["standard", "sub"])
        try d.writeImage("sub/c.png", cells: a + b)
        try d.writeLabel("sub/c.json", cells: a + b, tags: ["dense"])
        try d.writeImage("blank.png", cells: [])
        try d.writeLabel("blank.json", cells: [], tags: ["blank-control"])
        try d.writeImage("unlabelled.png", cells: b)
        return d
    }
}

/// The repository root, found from this file's location.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()
