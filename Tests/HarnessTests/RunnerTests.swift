import Foundation
import JSON
import Testing
import Vision
@testable import Harness

/// Removes everything that legitimately differs between two runs of the same inputs
/// (timings, machine, time of day).
func strippingTimings(_ value: JSONValue) -> JSONValue {
    // A step's samples are timings; which steps ran is not, so their names stay compared.
    let volatile: Set<String> = ["startTime", "durationSeconds", "run", "stages", "timings", "harnessCPUMs", "outliers", "machine",
                                 "wallMs", "cpuMs", "shareOfStage"]
    switch value {
    case .object(let object):
        return .object(JSONObject(object.compactMap { key, member in
            volatile.contains(key) ? nil : (key, strippingTimings(member))
        }))
    case .array(let items):
        return .array(items.map(strippingTimings))
    default:
        return value
    }
}

@Suite("Runner")
struct RunnerTests {
    func request(_ d: TestDataset, jobs: Int, repeats: Int = 1, acceptance: Acceptance = Acceptance()) -> RunRequest {
        RunRequest(datasetRoot: d.root, labelsRoot: nil, acceptance: acceptance,
                   settings: RunSettings(jobs: jobs, repeats: repeats), toolVersion: "test")
    }

    @Test func deterministicAcrossJobCounts() throws {
        let d = try TestDataset.standard(name: "determinism")
        defer { d.remove() }
        let one = try performRun(request(d, jobs: 1))
        let two = try performRun(request(d, jobs: 2))
        let three = try performRun(request(d, jobs: 3))
        #expect(one.outcomes.map(\.fixture.path) == ["a.png", "blank.png", "sub/b.png", "sub/c.png", "unlabelled.png"])
        #expect(strippingTimings(one.jsonValue) == strippingTimings(two.jsonValue))
        #expect(strippingTimings(one.jsonValue) == strippingTimings(three.jsonValue))
        #expect(one.detectionsCSV == two.detectionsCSV)
        #expect(two.run.jobs == 2)
        #expect(one.run.workersUsed == 1 && two.run.workersUsed >= 1 && two.run.workersUsed <= 2)
        // Order follows the sorted paths whatever the completion order.
        #expect(two.outcomes.map(\.fixture.path) == one.outcomes.map(\.fixture.path))
        #expect(one.outcomes.map(\.status) == [.scored, .scored, .scored, .scored, .unlabelled])
        #expect(one.outcomes.map(\.fixture.group) == ["", "", "sub", "sub", ""])
    }

    @Test func repeatsKeepEverySample() throws {
        let d = try TestDataset.standard(name: "repeat")
        defer { d.remove() }
        let report = try performRun(request(d, jobs: 2, repeats: 3))
        for o in report.outcomes {
            #expect(o.samples.count == 3)
            #expect(o.spans.count == 3)
            #expect(o.samples.allSatisfy { $0.first?.name == "decode" && $0.count == 8 })
        }
        let decode = try #require(report.stages.first)
        #expect(decode.name == "decode" && decode.wallMs.count == 15)
        #expect(report.stages.last?.name == StageStatistics.totalName)
        #expect(report.stages.map(\.name) == ["decode", "normalize", "illumination", "grid", "candidates", "classify", "nms", "count", "total"])
        let shares = report.stages.dropLast().reduce(0) { $0 + $1.share }
        #expect(abs(shares - 1) < 1e-9)
        let series = timingSeries(report.outcomes[0].samples)
        #expect(series.count == 8 && series.allSatisfy { $0.wallMs.count == 3 && $0.cpuMs.count == 3 })
    }

    @Test func erroredFixturesAreRecordedAndTheRunGoesOn() throws {
        let d = try TestDataset.standard(name: "errors")
        defer { d.remove() }
        // A corrupt PNG with a label, a label with an invalid version, a label without image,
        // and a label whose size disagrees with its image.
        try d.writeText("broken.png", "\u{89}PNG\r\n\u{1A}\nthis is not a PNG")
        try d.writeLabel("broken.json", cells: [])
        try d.writeImage("badlabel.png", cells: [])
        try d.writeText("badlabel.json", "{\"version\": 2, \"cells\": []}")
        try d.writeLabel("orphan.json", cells: [(1, 1, 1)])
        try d.writeImage("size.png", size: 64, cells: [])
        try d.writeText("size.json", "{\"version\": 1, \"width\": 100, \"height\": 64, \"cells\": []}")
        let report = try performRun(request(d, jobs: 2))
        let byPath = Dictionary(uniqueKeysWithValues: report.outcomes.map { ($0.fixture.path, $0) })
        #expect(report.outcomes.count == 9)
        for path in ["broken.png", "badlabel.png", "orphan.json", "size.png"] {
            let o = try #require(byPath[path])
            #expect(o.status == .errored, "\(path)")
            #expect(!(o.error ?? "").isEmpty)
        }
        #expect(byPath["broken.png"]?.error?.contains("broken.png") == true)
        #expect(byPath["badlabel.png"]?.error?.contains("version") == true)
        #expect(byPath["orphan.json"]?.error?.contains("without an image") == true)
        #expect(byPath["size.png"]?.error?.contains("width") == true)
        #expect(byPath["a.png"]?.status == .scored && byPath["sub/c.png"]?.status == .scored)
        #expect(report.erroredCount == 4 && report.scoredCount == 4)
        // maxErrored 0 (default) fails the run; maxErrored 4 lets it pass that gate.
        let errorGate = try #require(report.gates.first { $0.name == "maxErrored" })
        #expect(!errorGate.passed && errorGate.actual == 4 && errorGate.limit == 0)
        #expect(!report.passed && report.exitCode == 1)
        var tolerant = request(d, jobs: 1)
        tolerant.acceptance = Acceptance(limits: GateLimits(maxErrored: 4))
        let passing = try performRun(tolerant)
        #expect(passing.passed && passing.exitCode == 0)
        #expect(RunInputError.exitCode == 2)
    }

    @Test func inputErrorsThrow() throws {
        #expect(throws: RunInputError.self) {
            try performRun(RunRequest(datasetRoot: "/nonexistent/cellqa-dataset", labelsRoot: nil, toolVersion: "t"))
        }
        let empty = try TestDataset(name: "empty")
        defer { empty.remove() }
        #expect(throws: RunInputError.self) {
            try performRun(RunRequest(datasetRoot: empty.root, labelsRoot: nil, filter: "[", toolVersion: "t"))
        }
        #expect { try performRun(RunRequest(datasetRoot: empty.root, labelsRoot: nil, toolVersion: "t")) } throws: { error in
            (error as? RunInputError)?.description.hasPrefix("no fixtures in ") == true
        }
    }

    @Test func filterAndTagSelect() throws {
        let d = try TestDataset.standard(name: "select")
        defer { d.remove() }
        var typo = request(d, jobs: 1)
        typo.tag = "standrad"
        #expect { try performRun(typo) } throws: { error in
            (error as? RunInputError)?.description.contains("no fixtures with tag \"standrad\"") == true
        }
        var r = request(d, jobs: 1)
        r.filter = "sub/**"
        #expect(try performRun(r).outcomes.map(\.fixture.path) == ["sub/b.png", "sub/c.png"])
        r.filter = nil
        r.tag = "standard"
        #expect(try performRun(r).outcomes.map(\.fixture.path) == ["a.png", "sub/b.png"])
    }

    @Test func progressIsReported() throws {
        let d = try TestDataset.standard(name: "progress")
        defer { d.remove() }
        let lines = LineCollector()
        let progress = ConsoleProgress(interactive: false, color: true, lineInterval: 0) { lines.append($0) }
        _ = try performRun(request(d, jobs: 2), progress: progress)
        let text = lines.all
        #expect(text.count == 5)
        #expect(text.last?.hasPrefix("cellqa run: 5/5") == true)
        #expect(!text.joined().contains("\u{1B}["))
        let bar = ConsoleProgress(interactive: true, color: false) { _ in }
        #expect(bar.render(done: 5, total: 10, elapsed: 1) == "[###############...............] 5/10  5.0 fixtures/s  ETA 1s")
        #expect(formatDuration(125) == "2m05s" && formatDuration(3720) == "1h02m")
    }
}

final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ s: String) { lock.lock(); lines.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
