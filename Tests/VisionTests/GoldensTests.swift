import Foundation
import Testing
import Fixtures
import Imaging
@testable import Vision

/// The committed Goldens (Goldens/ images, TestLabels/ labels) scored with the labels-v1 rule:
/// a detection matches a labelled cell when the centres are within 0.5 r (5 px without r),
/// one-to-one, nearest pairs first.
struct GoldenScore {
    var truePositives = 0, falsePositives = 0, falseNegatives = 0
    var classCorrect = 0, classTotal = 0
    var blankDetections = 0, blanks = 0
    /// The pipeline's µm per pixel over the label's, per calibrated Golden with a detected grid.
    var calibrationRatios: [String: Double] = [:]
    var calibratedWithoutGrid = 0
    var precision: Double { Double(truePositives) / Double(max(1, truePositives + falsePositives)) }
    var recall: Double { Double(truePositives) / Double(max(1, truePositives + falseNegatives)) }
    var classAccuracy: Double { Double(classCorrect) / Double(max(1, classTotal)) }

    static func measure(root: String) throws -> GoldenScore {
        let images = root + "/Goldens", labels = root + "/TestLabels"
        var score = GoldenScore()
        let names = try FileManager.default.contentsOfDirectory(atPath: images)
            .filter { $0.hasSuffix(".png") || $0.hasSuffix(".jpg") }.sorted()
        let pipeline = Pipeline()
        for name in names {
            let stem = (name as NSString).deletingPathExtension
            let label = try Label.load(path: labels + "/" + stem + ".json")
            let result = try pipeline.run(try Image.decode(file: images + "/" + name))
            var pairs: [(Double, Int, Int)] = []
            for (i, d) in result.detections.enumerated() {
                for (j, c) in label.cells.enumerated() {
                    let tolerance = c.r.map { 0.5 * $0 } ?? 5
                    let dist = ((d.x - c.x) * (d.x - c.x) + (d.y - c.y) * (d.y - c.y)).squareRoot()
                    if dist <= tolerance { pairs.append((dist, i, j)) }
                }
            }
            pairs.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
            var usedD = Set<Int>(), usedC = Set<Int>()
            for (_, i, j) in pairs where !usedD.contains(i) && !usedC.contains(j) {
                usedD.insert(i)
                usedC.insert(j)
                if let truth = label.cells[j].label {
                    score.classTotal += 1
                    if truth.rawValue == result.detections[i].cellClass.rawValue { score.classCorrect += 1 }
                }
            }
            score.truePositives += usedD.count
            score.falsePositives += result.detections.count - usedD.count
            score.falseNegatives += label.cells.count - usedC.count
            if let truth = label.umPerPixel {
                if let grid = result.grid {
                    score.calibrationRatios[name] = grid.umPerPixel / truth
                } else {
                    score.calibratedWithoutGrid += 1
                }
            }
            if label.tags.contains("blank-control") {
                score.blanks += 1
                score.blankDetections += result.detections.count
            }
        }
        return score
    }
}

@Suite("Goldens", .serialized)
struct GoldensTests {
    /// The acceptance targets, on the Goldens with the labels-v1 matching rule
    /// (measured when this was written: P 0.966, R 0.940, live/dead 1.00, no detection on
    /// either blank control).
    @Test func acceptanceTargets() throws {
        let score = try GoldenScore.measure(root: repositoryRoot)
        print("Goldens: P \(score.precision) R \(score.recall) class \(score.classAccuracy) blank detections \(score.blankDetections)/\(score.blanks)")
        #expect(score.blanks >= 2)
        #expect(score.precision >= 0.95)
        #expect(score.recall >= 0.93)
        #expect(score.classAccuracy >= 0.97)
        #expect(score.blankDetections == 0)
    }

    /// The grid stage's calibration: its µm per pixel within 3% of the label's on every Golden
    /// whose ruling it finds (the period alone gave 200 µm group squares as 250 µm: 25% off),
    /// and it finds the ruling on every one (`tilted`'s covers half the view: found since the
    /// thirteenth session, `GridPartialViewTests`).
    @Test func calibrationMatchesTheLabels() throws {
        let score = try GoldenScore.measure(root: repositoryRoot)
        #expect(score.calibrationRatios.count >= 11)
        #expect(score.calibratedWithoutGrid == 0)
        for (name, ratio) in score.calibrationRatios.sorted(by: { $0.key < $1.key }) {
            #expect(abs(ratio - 1) < 0.03, "\(name): µm per pixel \(ratio) x the label's")
        }
    }
}
