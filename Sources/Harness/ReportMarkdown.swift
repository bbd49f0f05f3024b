/// GitHub-flavoured Markdown summary for a CI job summary or a PR comment.
extension RunReport {
    /// Size cap of `summary.md` (GitHub's job-summary limit is 1 MiB).
    public static let markdownLimitBytes = 1_000_000
    /// Longest list of each kind written in full; the rest is counted.
    static let markdownListLimit = 50

    /// The summary; always under `markdownLimitBytes` (lists are truncated with a count, long
    /// messages clipped).
    public var markdown: String {
        var out: [String] = []
        let failed = failedGates
        if let interruption = run.interruption {
            out.append("## ⚠️ cellqa: INCOMPLETE run, interrupted by \(interruption.name) after \(outcomes.count) of "
                       + "\(run.selectedCount) fixtures; gates not evaluated as a pass")
        } else if failed.isEmpty, let baseline, baseline.hasRegression {
            out.append("## ❌ cellqa: all \(gates.count) gates passed, \(baseline.regressions.count) regression\(baseline.regressions.count == 1 ? "" : "s") against the baseline")
        } else if failed.isEmpty {
            out.append("## ✅ cellqa: all \(gates.count) gates passed")
        } else {
            out.append("## ❌ cellqa: \(failed.count) of \(gates.count) gates failed")
        }
        out.append("")
        out.append("\(outcomes.count) fixtures (\(scoredCount) scored, \(unlabelledCount) unlabelled, \(erroredCount) errored) · "
                   + "\(run.jobs) jobs · \(Show.fixed(run.wallSeconds, 2)) s · \(Show.fixed(run.fixturesPerSecond, 2)) fixtures/s · "
                   + "peak RSS \(Show.bytes(run.peakRSSBytes)) · config `\(provenance.configHash)` · dataset `\(provenance.datasetHash)`")
        out.append("")
        if let baseline {
            out += baseline.markdownLines(title: "vs baseline")
        }
        out.append("### Accuracy")
        out.append("")
        out.append("| metric | value |")
        out.append("| --- | --- |")
        let m = overall
        let rows: [(String, String)] = [
            ("precision (micro)", Show.fixed(m.precision)), ("recall (micro)", Show.fixed(m.recall)),
            ("F1 (micro)", Show.fixed(m.f1)), ("F1 (macro)", Show.fixed(m.macroF1)),
            ("TP / FP / FN", "\(m.detection.tp) / \(m.detection.fp) / \(m.detection.fn)"),
            ("live/dead accuracy", Show.fixed(m.liveDeadAccuracy) + liveDeadMistakes(m.classes)),
            ("mean abs. rel. count error", Show.percent(m.meanAbsRelCountError)),
            ("mean abs. viability error (points)", Show.fixed(m.meanAbsViabilityErrorPoints, 2)),
            ("mean abs. rel. concentration error", Show.percent(m.meanAbsRelConcentrationError)),
            ("mean abs. rel. calibration error (µm/px)",
             m.calibratedFixtures > 0 ? "\(Show.percent(m.meanAbsRelCalibrationError)) over \(m.calibratedFixtures)" : "n/a"),
            ("grid placed more than \(RegistrationComparison.toleranceText) µm off",
             RegistrationComparison.summaryText(misplaced: m.misplacedFixtures, registered: m.registeredFixtures)),
            ("localisation mean / p90 (px)", "\(Show.fixed(m.localisation?.meanPixels, 2)) / \(Show.fixed(m.localisation?.p90Pixels, 2))"),
            ("blank controls: max detections", m.blankDetectionsMax.map(String.init) ?? "n/a"),
            ("expect ranges failed", "\(m.expectFailures) of \(m.expectChecks)"),
        ]
        for (name, value) in rows { out.append("| \(name) | \(value) |") }
        out.append("")
        appendTable(&out, "Stage timings (ms)", header: "| stage | n | median | mean | p90 | p99 | max | cpu median | share |",
                    alignment: "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", stages, what: "stages") { s in
            "| \(markdownEscape(s.name)) | \(s.wallMs.count) | \(Show.ms(s.wallMs.median)) | \(Show.ms(s.wallMs.mean)) | "
                + "\(Show.ms(s.wallMs.p90)) | \(Show.ms(s.wallMs.p99)) | \(Show.ms(s.wallMs.max)) | "
                + "\(Show.ms(s.cpuMs.median)) | \(Show.percent(s.share)) |"
        }
        appendTable(&out, "Steps inside stages (ms)", header: "| stage: step | n | median | p90 | max | cpu median | share of stage |",
                    alignment: "| --- | ---: | ---: | ---: | ---: | ---: | ---: |", steps, what: "steps") { s in
            "| \(markdownEscape(s.stage + ": " + s.step)) | \(s.wallMs.count) | \(Show.ms(s.wallMs.median)) | "
                + "\(Show.ms(s.wallMs.p90)) | \(Show.ms(s.wallMs.max)) | \(Show.ms(s.cpuMs.median)) | "
                + "\(Show.percent(s.shareOfStage)) |"
        }
        out.append("### Gates")
        out.append("")
        out.append("| gate | scope | actual | limit | result |")
        out.append("| --- | --- | ---: | ---: | --- |")
        // Failed gates first so a truncated table still shows them.
        let orderedGates = failed + gates.filter(\.passed)
        appendLimited(&out, orderedGates, what: "gates") { g in
            "| \(markdownEscape(g.name)) | \(markdownEscape(g.scope)) | \(g.actual.map(formatGateNumber) ?? "n/a") | \(g.comparison) \(formatLimit(g.limit)) | "
                + (g.passed ? "pass" : "**FAIL**: \(markdownEscape(clip(g.detail, 300)))") + " |"
        }
        out.append("")
        appendTable(&out, "By tag", header: "| tag | fixtures | precision | recall | F1 | count error |",
                    alignment: "| --- | ---: | ---: | ---: | ---: | ---: |", tags, what: "tags") { t in
            "| \(markdownEscape(t.tag)) | \(t.metrics.fixtures) | \(Show.fixed(t.metrics.precision)) | \(Show.fixed(t.metrics.recall)) | "
                + "\(Show.fixed(t.metrics.f1)) | \(Show.percent(t.metrics.meanAbsRelCountError)) |"
        }
        var fixtureProblemLines: [String] = []
        for o in outcomes {
            guard let s = o.score else { continue }
            for c in s.expectChecks where !c.passed {
                fixtureProblemLines.append("- `\(markdownCode(o.fixture.path))`: \(c.key) count \(c.actual), expected \(describe(c.range))")
            }
            if let blank = s.blankDetections, blank > 0 {
                fixtureProblemLines.append("- `\(markdownCode(o.fixture.path))`: \(blank) detection\(blank == 1 ? "" : "s") on a blank control")
            }
        }
        if !fixtureProblemLines.isEmpty {
            out.append("### Failed expect ranges and blank controls (\(fixtureProblemLines.count))")
            out.append("")
            appendLimited(&out, fixtureProblemLines, what: "fixture problems") { $0 }
            out.append("")
        }
        appendTable(&out, "Quality flags", header: "| flag | fixtures | first |", alignment: "| --- | ---: | --- |",
                    flagTally, what: "flags") { f in
            "| \(markdownEscape(f.flag)) | \(f.paths.count) | `\(markdownCode(f.paths[0]))` |"
        }
        out += erroredFixturesSection(outcomes.filter { $0.status == .errored }.map { ($0.fixture.path, $0.error ?? "") },
                                      listedIn: "report.json")
        appendTable(&out, "Outliers (|robust z| > \(Show.fixed(outlierCut, 1)))", header: "| fixture | metric | value | median | z |",
                    alignment: "| --- | --- | ---: | ---: | ---: |", outliers, what: "outliers") { o in
            "| `\(markdownCode(o.fixture))` | \(o.metric) | \(Show.fixed(o.value, 3)) | \(Show.fixed(o.median, 3)) | \(Show.fixed(o.z, 1)) |"
        }
        var text = out.joined(separator: "\n")
        if text.utf8.count > RunReport.markdownLimitBytes {
            // Lists are already capped; this only guards pathological cell contents.
            var cut = Array(text.utf8.prefix(RunReport.markdownLimitBytes - 200))
            while let last = cut.last, last & 0xC0 == 0x80 { cut.removeLast() }
            if !cut.isEmpty { cut.removeLast() }
            text = String(decoding: cut, as: UTF8.self) + "\n\n… summary truncated at 1 MB; see report.json\n"
        }
        return text
    }

    /// Each quality flag the pipeline raised (`PipelineResult.flags`) with the fixtures that
    /// carry it, in run order: most fixtures first, then by name. A CI reader sees at a glance
    /// how many views had no ruling, an assumed scale or a calibration the cells contradict.
    var flagTally: [(flag: String, paths: [String])] {
        var paths: [String: [String]] = [:]
        for o in outcomes {
            for flag in o.result?.flags ?? [] { paths[flag, default: []].append(o.fixture.path) }
        }
        return paths.map { (flag: $0.key, paths: $0.value) }
            .sorted { ($1.paths.count, $0.flag) < ($0.paths.count, $1.flag) }
    }

    /// A section holding one table, `### title` then the table's rows (the first
    /// `markdownListLimit`, the rest counted); nothing when there are no rows.
    private func appendTable<T>(_ out: inout [String], _ title: String, header: String, alignment: String, _ rows: [T],
                                what: String, _ row: (T) -> String) {
        guard !rows.isEmpty else { return }
        out += ["### \(title)", "", header, alignment]
        appendLimited(&out, rows, what: what, row)
        out.append("")
    }

    private func appendLimited<T>(_ out: inout [String], _ items: [T], what: String, _ line: (T) -> String) {
        for item in items.prefix(RunReport.markdownListLimit) { out.append(line(item)) }
        if items.count > RunReport.markdownListLimit {
            out.append("")
            out.append("… and \(items.count - RunReport.markdownListLimit) more \(what) (see report.json)")
        }
    }
}

/// Keeps a table cell on one line and stops `|` from splitting it.
func markdownEscape(_ s: String) -> String {
    var r = ""
    for ch in s {
        switch ch {
        case "|": r += "\\|"
        case "\n", "\r": r += " "
        case "<": r += "&lt;"
        case ">": r += "&gt;"
        default: r.append(ch)
        }
    }
    return r
}

/// Text for inside backticks: no backticks or newlines.
func markdownCode(_ s: String) -> String {
    String(s.map { $0 == "`" || $0 == "\n" || $0 == "\r" ? "'" : $0 })
}

/// The "Errored fixtures" section of a markdown report (a run's, a sweep's): each fixture's path
/// and message, up to `RunReport.markdownListLimit`, then how many more `listedIn` holds; no
/// lines when none errored.
func erroredFixturesSection(_ errored: [(path: String, message: String)], listedIn file: String) -> [String] {
    guard !errored.isEmpty else { return [] }
    var out = ["### Errored fixtures (\(errored.count))", ""]
    for e in errored.prefix(RunReport.markdownListLimit) {
        out.append("- `\(markdownCode(e.path))`: \(markdownEscape(clip(e.message, 400)))")
    }
    if errored.count > RunReport.markdownListLimit {
        out += ["", "… and \(errored.count - RunReport.markdownListLimit) more errored fixtures (see \(file))"]
    }
    return out + [""]
}

/// At most `limit` characters, with an ellipsis when cut.
func clip(_ s: String, _ limit: Int) -> String {
    s.count <= limit ? s : String(s.prefix(limit)) + "…"
}

/// Which way the live/dead calls went wrong, for the accuracy's row: " (of N matched: dead
/// called live A, live called dead B)", or nothing when no matched cell has a known class.
/// A folder's `refractileContrast` or `minDeadSaturation` moves one count against the other.
func liveDeadMistakes(_ c: ClassConfusion) -> String {
    c.known > 0 ? " (of \(c.known) matched: dead called live \(c.deadAsLive), live called dead \(c.liveAsDead))" : ""
}
