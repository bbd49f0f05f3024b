import JSON

extension BootstrapInterval {
    var jsonValue: JSONValue {
        jobj([("lower", jnum(lower)), ("upper", jnum(upper)), ("confidence", jnum(confidence)), ("resamples", jint(resamples))])
    }
}

extension Tolerance {
    var jsonValue: JSONValue {
        switch self {
        case .absolute(let t): return jobj([("absolute", jnum(t))])
        case .relative(let r): return jobj([("relative", jnum(r))])
        }
    }
}

extension MetricComparison {
    var jsonValue: JSONValue {
        jobj([("metric", .string(metric.rawValue)), ("scope", .string(scope)), ("baseline", jnum(baseline)),
              ("current", jnum(current)), ("difference", jnum(difference)), ("interval", interval?.jsonValue ?? .null),
              ("tolerance", tolerance.jsonValue), ("higherIsBetter", .bool(metric.higherIsBetter)),
              ("verdict", .string(verdict.rawValue)), ("detail", .string(detail))])
    }
}

extension StageComparison {
    var jsonValue: JSONValue {
        jobj([("stage", .string(stage))] + (step.map { [("step", JSONValue.string($0))] } ?? []) + [
              ("clock", .string(clock.rawValue)), ("baselineMedianMs", jnum(baselineMedianMs)),
              ("currentMedianMs", jnum(currentMedianMs)), ("ratio", jnum(ratio)),
              ("mannWhitneyU", jnum(mannWhitney?.u)), ("pValue", jnum(mannWhitney?.pValue)),
              ("baselineSamples", jint(baselineSamples)), ("currentSamples", jint(currentSamples)),
              ("verdict", .string(verdict.rawValue)), ("detail", .string(detail))])
    }
}

extension BaselineComparison {
    /// The `baseline` member of report.json (also each entry of compare.json's `versions`).
    public var jsonValue: JSONValue {
        jobj([("source", .string(baselineSource)), ("baselineConfigHash", .string(baselineConfigHash)),
              ("currentConfigHash", .string(currentConfigHash)), ("pairedFixtures", jint(pairedFixtures)),
              ("unpairedFixtures", .array(unpairedFixtures.map { .string($0) })),
              ("timingsCompared", .bool(timingsCompared)), ("timingNote", .string(timingNote)),
              ("timingTolerance", jnum(policy.timingTolerance)), ("timingNoiseFloor", jnum(policy.timingNoiseFloor)),
              ("timingNoiseFloorMs", jnum(policy.timingNoiseFloorMs)),
              ("timingAlpha", jnum(policy.timingAlpha)),
              ("regressions", .array(regressions.map { .string($0) })),
              ("improvements", .array(improvements.map { .string($0) })),
              ("metrics", .array(metrics.map(\.jsonValue))), ("stages", .array(stages.map(\.jsonValue))),
              ("steps", .array(steps.map(\.jsonValue)))])
    }

    /// One-line headline: "no change", "2 regressions: f1, time:total", ...
    public var headline: String {
        func list(_ names: [String]) -> String {
            names.prefix(8).joined(separator: ", ") + (names.count > 8 ? " and \(names.count - 8) more" : "")
        }
        if hasRegression { return "\(regressions.count) regression\(regressions.count == 1 ? "" : "s"): " + list(regressions) }
        if !improvements.isEmpty { return "only improvements: " + list(improvements) }
        return "no significant change"
    }

    /// The "vs baseline" Markdown section: a metric table and a timing table with arrows and intervals.
    public func markdownLines(title: String) -> [String] {
        var out = ["### \(title)", ""]
        out.append((hasRegression ? "❌ " : onlyImprovements ? "🔼 " : "✅ ") + markdownEscape(headline)
                   + " · baseline `\(markdownCode(baselineSource))` (config `\(baselineConfigHash)`) · \(pairedFixtures) paired fixtures"
                   + (unpairedFixtures.isEmpty ? "" : " · \(unpairedFixtures.count) unpaired"))
        out.append("")
        let header = "| metric | baseline | current | Δ | \(Int((policy.confidence * 100).rounded()))% CI | tolerance | verdict |"
        func row(_ m: MetricComparison) -> String {
            let ci = m.interval.map { "[\(Show.signed($0.lower)), \(Show.signed($0.upper))]" } ?? "n/a"
            return "| \(markdownEscape(m.label)) | \(Show.fixed(m.baseline)) | \(Show.fixed(m.current)) | \(Show.signed(m.difference)) | "
                + "\(ci) | \(m.tolerance.description) | \(m.verdict.arrow) \(m.verdict.rawValue) |"
        }
        out.append(header)
        out.append("| --- | ---: | ---: | ---: | --- | ---: | --- |")
        for m in metrics where m.scope == "all" { out.append(row(m)) }
        out.append("")
        // Regressed tag rows first, so a long table still shows them.
        let tagRows = metrics.filter { $0.scope != "all" && $0.verdict == .regressed }
            + metrics.filter { $0.scope != "all" && $0.verdict != .regressed }
        if !tagRows.isEmpty {
            out.append("By tag (regressions first):")
            out.append("")
            out.append(header)
            out.append("| --- | ---: | ---: | ---: | --- | ---: | --- |")
            for m in tagRows.prefix(RunReport.markdownListLimit * 2) { out.append(row(m)) }
            if tagRows.count > RunReport.markdownListLimit * 2 {
                out.append("")
                out.append("… and \(tagRows.count - RunReport.markdownListLimit * 2) more tag rows (see the JSON report)")
            }
            out.append("")
        }
        if !stages.isEmpty {
            let clock = stages.first?.clock.rawValue ?? "cpu"
            func row(_ name: String, _ s: StageComparison) -> String {
                "| \(markdownEscape(name)) | \(Show.ms(s.baselineMedianMs)) | \(Show.ms(s.currentMedianMs)) | "
                    + "\(Show.fixed(s.ratio, 3)) | \(Show.pValue(s.mannWhitney?.pValue)) | \(s.verdict.arrow) \(s.verdict.rawValue) |"
            }
            out.append("| stage (\(clock) ms) | baseline median | current median | relative time | Mann-Whitney p | verdict |")
            out.append("| --- | ---: | ---: | ---: | ---: | --- |")
            for s in stages { out.append(row(s.stage, s)) }
            out.append("")
            if !steps.isEmpty {
                out.append("Steps inside stages, to say where a stage's time moved (they do not gate; alpha divided over the steps):")
                out.append("")
                out.append("| step (\(clock) ms) | baseline median | current median | relative time | Mann-Whitney p | verdict |")
                out.append("| --- | ---: | ---: | ---: | ---: | --- |")
                for s in steps { out.append(row("\(s.stage): \(s.step ?? "")", s)) }
                out.append("")
            }
            out.append("Timings: \(markdownEscape(timingNote)); regression = median ratio above +\(Show.percent(policy.timingTolerance)) "
                       + "and Mann-Whitney p < \(formatGateNumber(policy.timingAlpha)); changes under \(Show.percent(policy.timingNoiseFloor)) or \(formatGateNumber(policy.timingNoiseFloorMs)) ms are noise.")
            out.append("")
        }
        return out
    }

    /// JUnit test cases, one per compared metric and stage (classname "baseline").
    public var junitCases: [String] {
        var cases: [String] = []
        func add(_ name: String, _ verdict: Verdict, _ detail: String) {
            let n = xmlEscape(name)
            switch verdict {
            case .regressed:
                cases.append("    <testcase classname=\"baseline\" name=\"\(n)\" time=\"0\"><failure message=\"\(xmlEscape(clip(detail, 500)))\" "
                             + "type=\"regression\">\(xmlText(detail))</failure></testcase>")
            case .notCompared:
                cases.append("    <testcase classname=\"baseline\" name=\"\(n)\" time=\"0\"><skipped message=\"\(xmlEscape(clip(detail, 500)))\"/></testcase>")
            case .improved, .unchanged:
                cases.append("    <testcase classname=\"baseline\" name=\"\(n)\" time=\"0\"><system-out>\(xmlText(verdict.rawValue + ": " + detail))</system-out></testcase>")
            }
        }
        for m in metrics { add(m.label, m.verdict, m.detail) }
        for s in stages { add("time:\(s.stage)", s.verdict, s.detail) }
        return cases
    }
}
