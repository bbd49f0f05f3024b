import Fixtures
import Foundation
import Testing

/// The real development images live outside the repository (third-party licences), in
/// `../shared/datasets/real-dev` next to the checkout, or where `CELLQA_REAL_DEV` points.
private let realDevRoot: String = {
    if let override = ProcessInfo.processInfo.environment["CELLQA_REAL_DEV"] { return override }
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return repository.deletingLastPathComponent().appendingPathComponent("shared/datasets/real-dev").path
}()

private let realDevPresent = FileManager.default.fileExists(atPath: realDevRoot + "/ldc-maxkudi")
    && FileManager.default.fileExists(atPath: realDevRoot + "/hemocytometer-ahnd6474")

@Suite(.enabled(if: realDevPresent, "SKIPPED: real-dev datasets not found at ../shared/datasets/real-dev (set CELLQA_REAL_DEV)"))
struct RealDatasetTests {
    @Test(arguments: [("ldc-maxkudi", 246, 832), ("hemocytometer-ahnd6474", 40, 258)])
    func everyLabelParsesAndPairs(folder: String, images: Int, cells: Int) throws {
        let dataset = try Dataset.scan(root: realDevRoot + "/" + folder)
        #expect(dataset.problems == [], "\(dataset.problems.map(\.description).joined(separator: "\n"))")
        #expect(dataset.fixtures.count == images)
        #expect(dataset.fixtures.allSatisfy { $0.isLabelled && $0.imagePath != nil })
        var cellCount = 0
        for fixture in dataset.fixtures {
            let labelPath = try #require(fixture.labelPath)
            do {
                let label = try Label.load(path: labelPath)
                cellCount += label.cells.count
                #expect(label.image == fixture.imageRelativePath)
                #expect(label.tags == fixture.tags)
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(cellCount == cells)
        #expect(dataset.filtered(tag: "real").fixtures.count == images)
    }
}
