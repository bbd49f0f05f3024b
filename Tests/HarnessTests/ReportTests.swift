import Foundation
import FoundationXML
import JSON
import Testing
import Vision
@testable import Harness

/// Splits RFC 4180 CSV text into rows of fields.
func parseCSV(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var quoted = false
    var chars = Array(text.unicodeScalars)[...]
    while let c = chars.popFirst() {
        if quoted {
            if c == "\"" {
                if chars.first == "\"" { field.unicodeScalars.append(c); chars.removeFirst() } else { quoted = false }
            } else {
                field.unicodeScalars.append(c)
            }
        } else if c == "\"" {
            quoted = true
        } else if c == "," {
            row.append(field); field = ""
        } else if c == "\r" {
            continue
        } else if c == "\n" {
            row.append(field); rows.append(row); row = []; field = ""
        } else {
            field.unicodeScalars.append(c)
        }
    }
    if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
    return rows
}

func loadSchema() throws -> SchemaValidator {
    SchemaValidator(schema: try JSONValue.load(path: repositoryRoot + "/scripts/report.schema.json"))
}

@Suite("Reports")
struct ReportTests {
    /// Provenance for reports built in memory, whose figures the tests read, not its fields.
    static let provenance = RunProvenance(toolVersion: "t", configHash: "c", acceptanceHash: "a", datasetRoot: "r",
                                          labelsRoot: nil, datasetHash: "h", startTime: "s",
                                          machine: MachineFacts(cores: 1, cpuModel: "c", os: "o", kernel: "k"))
    @Test func reportFilesParseBackAndValidate() throws {
        let d = try TestDataset.standard(name: "reports")
        defer { d.remove() }
        try d.writeText("zz-broken.png", "not an image at all")
        let report = try performRun(RunRequest(datasetRoot: d.root, labelsRoot: nil,
                                               settings: RunSettings(jobs: 2, repeats: 2), toolVersion: "test"))
        let out = d.root + "/out"
        let written = try report.writeReports(to: out)
        #expect(written.map { ($0 as NSString).lastPathComponent } == ReportFile.all)
        // No temporary files left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(names == ReportFile.all.sorted())

        let json = try JSONValue.load(path: out + "/report.json")
        let violations = try loadSchema().validate(json)
        #expect(violations.isEmpty, "\(violations.prefix(10))")
        #expect(json["schemaVersion"] == .int(1))
        #expect(json["dataset"]?["workingDirectory"] == .null, "an absolute root needs no directory to resolve it")
        #expect(json["summary"]?["fixtures"] == .int(6))
        #expect(json["summary"]?["errored"] == .int(1))
        #expect(json["summary"]?["tp"]?.number == Double(report.overall.detection.tp))
        guard case .array(let fixtures)? = json["fixtures"] else { Issue.record("no fixtures"); return }
        #expect(fixtures.count == 6)
        #expect(fixtures.last?["status"] == .string("errored"))
        guard case .array(let timings)? = fixtures.first?["timings"], case .array(let samples)? = timings.first?["wallMs"] else {
            Issue.record("no timings"); return
        }
        #expect(samples.count == 2)
        #expect(timings.first?["name"] == .string("decode"))
        // The steps inside stages: every repeat's sample per fixture, and their statistics.
        guard case .array(let fixtureSteps)? = fixtures.first?["steps"],
              let detector = fixtureSteps.first(where: { $0["step"] == .string("detector") }),
              case .array(let stepSamples)? = detector["wallMs"] else {
            Issue.record("no detector step in the first fixture"); return
        }
        #expect(detector["stage"] == .string("candidates") && stepSamples.count == 2)
        guard case .array(let runSteps)? = json["steps"] else { Issue.record("no steps"); return }
        #expect(runSteps.contains { $0["stage"] == .string("grid") && $0["step"] == .string("line search") })
        #expect(runSteps.first { $0["step"] == .string("detector") }?["wallMs"]?["count"] == .int(10))

        let md = try String(contentsOfFile: out + "/summary.md", encoding: .utf8)
        #expect(md.hasPrefix("## ❌ cellqa:") || md.hasPrefix("## ✅ cellqa:"))
        #expect(md.contains("### Stage timings (ms)") && md.contains("zz-broken.png"))
        #expect(md.contains("### Steps inside stages (ms)") && md.contains("| candidates: detector | 10 |"), "\(md)")

        let xml = try Data(contentsOf: URL(fileURLWithPath: out + "/junit.xml"))
        let counter = JUnitCounter()
        let parser = XMLParser(data: xml)
        parser.delegate = counter
        #expect(parser.parse(), "junit.xml is not well-formed")
        #expect(counter.testcases == 6 + report.gates.count)
        #expect(counter.errors == 1)
        #expect(counter.classnames.contains("sub") && counter.classnames.contains("."))

        let fixturesCSV = parseCSV(try String(contentsOfFile: out + "/fixtures.csv", encoding: .utf8))
        #expect(fixturesCSV.count == 7)
        #expect(fixturesCSV[0].first == "path" && fixturesCSV[0].last == "error")
        #expect(fixturesCSV.allSatisfy { $0.count == fixturesCSV[0].count })
        let detections = parseCSV(try String(contentsOfFile: out + "/detections.csv", encoding: .utf8))
        let o = report.overall.detection
        #expect(detections.dropFirst().filter { $0[1] == "TP" }.count == o.tp)
        #expect(detections.dropFirst().filter { $0[1] == "FP" }.count == o.fp)
        #expect(detections.dropFirst().filter { $0[1] == "FN" }.count == o.fn)
        // The large files are written piece by piece; the pieces make the whole document.
        #expect(try String(contentsOfFile: out + "/detections.csv", encoding: .utf8) == report.detectionsCSV)
        #expect(try String(contentsOfFile: out + "/report.json", encoding: .utf8) == report.jsonValue.serialized(pretty: true) + "\n")
        #expect(try String(contentsOfFile: out + "/trace.json", encoding: .utf8) == report.traceJSON.serialized(pretty: false) + "\n")

        let trace = try JSONValue.load(path: out + "/trace.json")
        guard case .array(let events)? = trace["traceEvents"] else { Issue.record("no trace events"); return }
        let complete = events.filter { $0["ph"] == .string("X") && $0["cat"] != .string("step") }
        // Per repeat: one fixture event + decode + 7 stages, for the 5 fixtures that ran, and
        // one event for the broken image's failed attempt.
        #expect(complete.count == 5 * 2 * 9 + 1)
        // The timed steps nest inside their stage's event: within its span, on its thread.
        let steps = events.filter { $0["cat"] == .string("step") }
        #expect(steps.contains { $0["name"] == .string("detector") && $0["args"]?["stage"] == .string("candidates") })
        for step in steps {
            let ts = step["ts"]?.number ?? -1, end = ts + (step["dur"]?.number ?? 0)
            let inside = complete.contains { stage in
                guard stage["cat"] == .string("stage"), stage["name"] == step["args"]?["stage"],
                      stage["tid"] == step["tid"], let start = stage["ts"]?.number, let dur = stage["dur"]?.number
                else { return false }
                return start <= ts && end <= start + dur + 1e-6
            }
            #expect(inside, "\(step)")
        }
        #expect(complete.contains { $0["args"]?["error"] != nil && $0["name"] == .string("zz-broken.png") })
        #expect(complete.allSatisfy { ($0["dur"]?.number ?? -1) >= 0 && $0["tid"]?.number != nil })
    }

    @Test func junitFixtureFailuresFollowTheGates() throws {
        var blankTruth = GroundTruth(cells: [], tags: [GroundTruth.blankControlTag])
        blankTruth.expect = GroundTruth.Expectations(total: .init(max: 0))
        let result = makeResult([det(5, 5), det(50, 50)])
        let outcome = FixtureOutcome(fixture: RunFixture(id: "b", path: "sub/b.png", imagePath: nil, labelPath: nil, group: "sub"),
                                     status: .scored, result: result, score: scoreFixture(result: result, truth: blankTruth),
                                     truth: blankTruth)
        let run = RunResult(outcomes: [outcome], wallSeconds: 1, jobs: 1, repeats: 1, peakRSSBytes: 0)
        func counts(_ acceptance: Acceptance) -> JUnitCounter {
            let xml = RunReport(run: run, acceptance: acceptance, provenance: Self.provenance).junitXML
            let counter = JUnitCounter()
            let parser = XMLParser(data: Data(xml.utf8))
            parser.delegate = counter
            #expect(parser.parse())
            return counter
        }
        // Defaults: the fixture fails (expect + blank), and so do the precision, blank and
        // expect gates.
        let strict = counts(Acceptance())
        #expect(strict.testcases == 1 + 5 && strict.failures == 1 + 3)
        // No fixture-level gates: the fixture passes; precision 0 still fails its gate.
        let lenient = counts(Acceptance(limits: GateLimits(minPrecision: 0.5)))
        #expect(lenient.testcases == 1 + 1 && lenient.failures == 1)
        #expect(lenient.classnames == ["sub", "gates"])
        let md = RunReport(run: run, acceptance: Acceptance(), provenance: Self.provenance).markdown
        #expect(md.contains("- `sub/b.png`: total count 2, expected [any, 0]"))
        #expect(md.contains("- `sub/b.png`: 2 detections on a blank control"))
    }

    /// The summary tallies the pipeline's quality flags: each flag with how many fixtures
    /// carry it and the first of them, most frequent first (ties by name); a run without
    /// flags has no such section.
    @Test func markdownTalliesTheQualityFlags() {
        func outcome(_ path: String, _ flags: [String]) -> FixtureOutcome {
            var result = makeResult([det(5, 5)])
            result.flags = flags
            return FixtureOutcome(fixture: RunFixture(id: path, path: path, imagePath: nil, labelPath: nil, group: ""),
                                  status: .unlabelled, result: result, score: nil, truth: nil)
        }
        func markdown(_ outcomes: [FixtureOutcome]) -> String {
            let run = RunResult(outcomes: outcomes, wallSeconds: 1, jobs: 1, repeats: 1, peakRSSBytes: 0)
            return RunReport(run: run, acceptance: Acceptance(), provenance: Self.provenance).markdown
        }
        let md = markdown([outcome("a.png", ["no-grid", "glare"]), outcome("b.png", ["calibration-implausible"]),
                           outcome("c.png", ["glare"]), outcome("d.png", [])])
        let table = md.components(separatedBy: "\n").drop { $0 != "### Quality flags" }.dropFirst(4).prefix { !$0.isEmpty }
        #expect(Array(table) == ["| glare | 2 | `a.png` |", "| calibration-implausible | 1 | `b.png` |",
                                 "| no-grid | 1 | `a.png` |"], "\(md)")
        #expect(!markdown([outcome("d.png", [])]).contains("Quality flags"))
    }

    /// The summary's live/dead row says which way the calls went wrong, which the accuracy alone
    /// does not (a folder's thresholds trade one count for the other).
    @Test func liveDeadRowNamesTheMistakes() {
        #expect(liveDeadMistakes(ClassConfusion(liveAsLive: 5, liveAsDead: 1, deadAsLive: 2, deadAsDead: 3))
                == " (of 11 matched: dead called live 2, live called dead 1)")
        #expect(liveDeadMistakes(ClassConfusion()) == "")
    }

    @Test func validatorFindsViolations() throws {
        let validator = try loadSchema()
        #expect(!validator.validate(.object(JSONObject())).isEmpty)
        let schema: JSONValue = [
            "type": "object", "required": ["a"], "additionalProperties": false,
            "properties": ["a": ["type": ["integer", "null"], "minimum": 0], "b": ["$ref": "#/$defs/e"]],
            "$defs": ["e": ["enum": ["x", "y"]]],
        ]
        let v = SchemaValidator(schema: schema)
        #expect(v.validate(["a": 1, "b": "x"]).isEmpty)
        #expect(v.validate(["a": .null]).isEmpty)
        #expect(v.validate(["a": 1.0]).isEmpty)
        #expect(v.validate(["a": 1.5]).map(\.path) == ["a"])
        #expect(v.validate(["a": -1]).map(\.message) == ["expected a number >= 0.0, got -1"])
        #expect(v.validate(["b": "x"]).map(\.path) == ["a"])
        #expect(v.validate(["a": 1, "b": "z"]).map(\.path) == ["b"])
        #expect(v.validate(["a": 1, "c": true]).map(\.message) == ["member not allowed by the schema"])
        let unsupported = SchemaValidator(schema: ["type": "string", "pattern": "^a"])
        #expect(unsupported.validate("abc").map(\.message) == ["unsupported schema keyword \"pattern\""])
    }

    @Test func csvQuotingFollowsRFC4180() {
        #expect(csvField("plain") == "plain")
        #expect(csvField("a,b") == "\"a,b\"")
        #expect(csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(csvField("two\nlines") == "\"two\nlines\"")
        #expect(csvDocument([["a", "b,c"], ["1", "x\"y"]]) == "a,\"b,c\"\r\n1,\"x\"\"y\"\r\n")
        #expect(parseCSV(csvDocument([["a", "b,c\nd", "e\"f"]])) == [["a", "b,c\nd", "e\"f"]])
    }

    @Test func xmlEscaping() {
        #expect(xmlEscape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;")
        #expect(xmlEscape("x\ny") == "x&#10;y")
        #expect(xmlText("x\ny") == "x\ny")
        #expect(xmlEscape("bell\u{07}") == "bell")
    }

    @Test func markdownStaysUnderOneMegabyteWithHugeLists() throws {
        let longError = String(repeating: "decoder said something long | with pipes ", count: 100)
        let outcomes = (0..<5000).map { i in
            FixtureOutcome(fixture: RunFixture(id: "f\(i)", path: "dir/f\(i).png", imagePath: nil, labelPath: nil, group: "dir"),
                           status: .errored, error: longError, tags: ["t\(i)"], result: nil, score: nil, truth: nil,
                           samples: [], spans: [], harnessCPUSeconds: 0)
        }
        let run = RunResult(outcomes: outcomes, wallSeconds: 1, jobs: 2, repeats: 1, peakRSSBytes: 1 << 20)
        let provenance = RunProvenance(toolVersion: "t", configHash: "c", acceptanceHash: "a", datasetRoot: "r",
                                       labelsRoot: nil, datasetHash: "h", startTime: "2026-01-01T00:00:00Z",
                                       machine: MachineFacts(cores: 2, cpuModel: "cpu", os: "os", kernel: "k"))
        let report = RunReport(run: run, acceptance: Acceptance(), provenance: provenance)
        let md = report.markdown
        #expect(md.utf8.count < RunReport.markdownLimitBytes)
        #expect(md.contains("… and 4950 more errored fixtures"))
        #expect(md.hasPrefix("## ❌ cellqa:"))
        // Pipes inside messages are escaped so tables keep their shape.
        #expect(!md.contains("long | with"))
        let violations = try loadSchema().validate(report.jsonValue)
        #expect(violations.isEmpty, "\(violations.prefix(5))")
    }
}

final class JUnitCounter: NSObject, XMLParserDelegate {
    var testcases = 0
    var errors = 0
    var failures = 0
    var classnames: Set<String> = []
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch name {
        case "testcase":
            testcases += 1
            if let c = attributes["classname"] { classnames.insert(c) }
        case "error": errors += 1
        case "failure": failures += 1
        default: break
        }
    }
}
