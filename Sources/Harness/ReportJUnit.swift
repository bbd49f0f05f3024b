/// JUnit XML for GitHub, GitLab and Jenkins test-report views: one testcase per fixture
/// (classname = dataset sub-folder, "." at the root) and one per gate (classname "gates").
extension RunReport {
    public var junitXML: String {
        var fixtureCases: [String] = []
        var fixtureFailures = 0, fixtureErrors = 0
        var fixtureTime = 0.0
        for o in outcomes {
            let seconds = o.samples.reduce(0) { $0 + $1.reduce(0) { $0 + $1.wallSeconds } } + o.harnessCPUSeconds
            fixtureTime += seconds
            let classname = o.fixture.group.isEmpty ? "." : o.fixture.group
            var body = ""
            if o.status == .errored {
                fixtureErrors += 1
                let message = o.error ?? "errored"
                body = "<error message=\"\(xmlEscape(clip(firstLine(message), 500)))\" type=\"errored\">\(xmlText(message))</error>"
            } else if let problems = fixtureProblems(o), !problems.isEmpty {
                fixtureFailures += 1
                body = "<failure message=\"\(xmlEscape(clip(problems[0], 500)))\" type=\"accuracy\">"
                    + xmlText(problems.joined(separator: "\n")) + "</failure>"
            } else if o.status == .unlabelled {
                body = "<system-out>unlabelled: run and timed, no accuracy metrics</system-out>"
            }
            fixtureCases.append("    <testcase classname=\"\(xmlEscape(classname))\" name=\"\(xmlEscape(o.fixture.path))\" "
                                + "time=\"\(Show.seconds(seconds))\"" + (body.isEmpty ? "/>" : ">\(body)</testcase>"))
        }
        var gateCases: [String] = []
        for g in gates {
            let name = xmlEscape(g.label)
            if g.passed {
                gateCases.append("    <testcase classname=\"gates\" name=\"\(name)\" time=\"0\"/>")
            } else {
                gateCases.append("    <testcase classname=\"gates\" name=\"\(name)\" time=\"0\"><failure message=\"\(xmlEscape(clip(g.detail, 500)))\" "
                                 + "type=\"gate\">\(xmlText(g.detail))</failure></testcase>")
            }
        }
        let gateFailures = gates.filter { !$0.passed }.count
        let baselineCases = baseline?.junitCases ?? []
        let baselineFailures = baseline.map { $0.regressions.count } ?? 0
        let tests = outcomes.count + gates.count + baselineCases.count
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>"]
        lines.append("<testsuites name=\"cellqa\" tests=\"\(tests)\" failures=\"\(fixtureFailures + gateFailures + baselineFailures)\" "
                     + "errors=\"\(fixtureErrors)\" time=\"\(Show.seconds(run.wallSeconds))\">")
        lines.append("  <testsuite name=\"fixtures\" tests=\"\(outcomes.count)\" failures=\"\(fixtureFailures)\" "
                     + "errors=\"\(fixtureErrors)\" skipped=\"0\" time=\"\(Show.seconds(fixtureTime))\" timestamp=\"\(xmlEscape(provenance.startTime))\">")
        lines += fixtureCases
        lines.append("  </testsuite>")
        lines.append("  <testsuite name=\"gates\" tests=\"\(gates.count)\" failures=\"\(gateFailures)\" errors=\"0\" skipped=\"0\" time=\"0\">")
        lines += gateCases
        lines.append("  </testsuite>")
        if !baselineCases.isEmpty {
            let skipped = baselineCases.filter { $0.contains("<skipped") }.count
            lines.append("  <testsuite name=\"baseline\" tests=\"\(baselineCases.count)\" failures=\"\(baselineFailures)\" errors=\"0\" "
                         + "skipped=\"\(skipped)\" time=\"0\">")
            lines += baselineCases
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// What makes a fixture's testcase fail, as far as the acceptance gates judge single
    /// fixtures: failed expect ranges (when `gateExpect` is on) and more detections on a blank
    /// control than `maxBlankDetections`. nil when the fixture was not scored.
    func fixtureProblems(_ o: FixtureOutcome) -> [String]? {
        guard let s = o.score else { return nil }
        var problems: [String] = []
        if acceptance.limits.gateExpect == true {
            for c in s.expectChecks where !c.passed {
                problems.append("expect \(c.key): predicted \(c.actual), expected \(describe(c.range))")
            }
        }
        if let blank = s.blankDetections, let limit = acceptance.limits.maxBlankDetections, blank > limit {
            problems.append("blank control: \(blank) detection\(blank == 1 ? "" : "s") (at most \(limit) allowed)")
        }
        return problems
    }
}

private func firstLine(_ s: String) -> String {
    String(s.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
}

/// Escapes text for an XML attribute value (line breaks kept as character references);
/// drops characters XML 1.0 forbids.
func xmlEscape(_ s: String) -> String { xmlEscaped(s, attribute: true) }

/// Escapes text for XML element content (line breaks kept as they are).
func xmlText(_ s: String) -> String { xmlEscaped(s, attribute: false) }

private func xmlEscaped(_ s: String, attribute: Bool) -> String {
    var r = ""
    r.reserveCapacity(s.utf8.count)
    for scalar in s.unicodeScalars {
        switch scalar {
        case "&": r += "&amp;"
        case "<": r += "&lt;"
        case ">": r += "&gt;"
        case "\"": r += "&quot;"
        case "'": r += "&apos;"
        case "\n": r += attribute ? "&#10;" : "\n"
        case "\r": r += "&#13;"
        case "\t": r += attribute ? "&#9;" : "\t"
        default:
            let v = scalar.value
            let allowed = (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || (v >= 0x10000 && v <= 0x10FFFF)
            if allowed { r.unicodeScalars.append(scalar) }
        }
    }
    return r
}
