import JSON

/// `sweep.csv`, `sweep.json` and `sweep.md` of `cellqa sweep`.
extension SweepResult {
    public var csv: String {
        var rows = [axes.map(\.key) + ["precision", "recall", "f1", "tp", "fp", "fn", "meanAbsRelCountError",
                                       "liveDeadAccuracy", "meanAbsViabilityErrorPoints",
                                       "registeredFixtures", "misplacedFixtures", "scored", "errored", "configHash"]]
        for p in points {
            rows.append(p.values.map(\.value.csvText)
                        + [csvNumber(p.precision), csvNumber(p.recall), csvNumber(p.f1), csvInt(p.detection.tp),
                           csvInt(p.detection.fp), csvInt(p.detection.fn), csvNumber(p.meanAbsRelCountError),
                           csvNumber(p.liveDeadAccuracy), csvNumber(p.meanAbsViabilityErrorPoints),
                           csvInt(p.registeredFixtures), csvInt(p.misplacedFixtures),
                           csvInt(p.scored), csvInt(p.errored), p.configHash])
        }
        return csvDocument(rows)
    }

    private func pointJSON(_ p: SweepPoint) -> JSONValue {
        jobj([("setting", jobj(p.values.map { ($0.key, $0.value.jsonValue) })), ("configHash", .string(p.configHash)),
              ("precision", jnum(p.precision)), ("recall", jnum(p.recall)), ("f1", jnum(p.f1)),
              ("tp", jint(p.detection.tp)), ("fp", jint(p.detection.fp)), ("fn", jint(p.detection.fn)),
              ("meanAbsRelCountError", jnum(p.meanAbsRelCountError)),
              ("liveDeadAccuracy", jnum(p.liveDeadAccuracy)), ("meanAbsViabilityErrorPoints", jnum(p.meanAbsViabilityErrorPoints)),
              ("registeredFixtures", jint(p.registeredFixtures)), ("misplacedFixtures", jint(p.misplacedFixtures)),
              ("scored", jint(p.scored)), ("errored", jint(p.errored))])
    }

    public var jsonValue: JSONValue {
        jobj([
            ("sweepVersion", jint(1)),
            ("axes", .array(axes.map { a in jobj([("key", .string(a.key)), ("values", .array(a.values.map(\.jsonValue)))]) })),
            ("resumeStage", .string(resumeStage)), ("fixtures", jint(fixtures)), ("datasetHash", .string(datasetHash)),
            ("wallSeconds", jnum(wallSeconds)),
            ("complete", .bool(complete)), ("fixturesRun", jint(fixturesRun)),
            ("interruption", interruption.map { .string($0.name) } ?? .null),
            ("best", bestF1.map(pointJSON) ?? .null),
            ("bestLiveDead", bestLiveDead.map(pointJSON) ?? .null),
            ("points", .array(points.map(pointJSON))),
            ("precisionRecallCurve", .array(precisionRecallCurve.map { c in
                jobj([("recall", jnum(c.recall)), ("precision", jnum(c.precision)), ("setting", .string(c.label))])
            })),
            ("errors", .array(errors.map { e in jobj([("path", .string(e.path)), ("error", .string(e.message))]) })),
        ])
    }

    public var markdown: String {
        var out = ["## cellqa sweep", ""]
        if let interruption {
            out.append("**Partial: interrupted by \(interruption.name) after \(fixturesRun) of \(fixtures) fixtures.** "
                       + "Every setting covers the same fixtures.")
            out.append("")
        }
        out.append("\(points.count) settings × \(fixtures) fixtures in \(Show.fixed(wallSeconds, 1)) s; "
                   + (resumeStage == "normalize" ? "each setting ran the whole pipeline (images decoded once)."
                                                 : "stages before `\(resumeStage)` ran once per fixture, each setting resumed there."))
        out.append("")
        if let best = bestF1 {
            out.append("**Best F1: \(Show.fixed(best.f1)) at `\(markdownCode(best.label))`** (precision \(Show.fixed(best.precision)), "
                       + "recall \(Show.fixed(best.recall)), count error \(Show.percent(best.meanAbsRelCountError)))")
            out.append("")
        }
        if let best = bestLiveDead {
            out.append("**Best live/dead accuracy: \(Show.fixed(best.liveDeadAccuracy)) at `\(markdownCode(best.label))`** "
                       + "(viability error \(Show.fixed(best.meanAbsViabilityErrorPoints, 2)) points, F1 \(Show.fixed(best.f1)))")
            out.append("")
        }
        out.append("| " + axes.map { markdownEscape($0.key) }.joined(separator: " | ")
                   + " | precision | recall | F1 | TP / FP / FN | count error | live/dead | viability error (points) "
                   + "| placed >\(RegistrationComparison.toleranceText) µm off |")
        out.append("|" + String(repeating: " ---: |", count: axes.count + 8))
        for p in points.prefix(RunReport.markdownListLimit * 4) {
            let placed = RegistrationComparison.summaryText(misplaced: p.misplacedFixtures, registered: p.registeredFixtures)
            out.append("| " + p.values.map { markdownEscape($0.value.description) }.joined(separator: " | ")
                       + " | \(Show.fixed(p.precision)) | \(Show.fixed(p.recall)) | \(Show.fixed(p.f1)) | "
                       + "\(p.detection.tp) / \(p.detection.fp) / \(p.detection.fn) | \(Show.percent(p.meanAbsRelCountError)) | "
                       + "\(Show.fixed(p.liveDeadAccuracy)) | \(Show.fixed(p.meanAbsViabilityErrorPoints, 2)) | \(placed) |")
        }
        if points.count > RunReport.markdownListLimit * 4 {
            out.append("")
            out.append("… and \(points.count - RunReport.markdownListLimit * 4) more settings (see sweep.csv)")
        }
        out.append("")
        out.append("### Precision-recall curve (by recall)")
        out.append("")
        out.append("| recall | precision | setting |")
        out.append("| ---: | ---: | --- |")
        for c in precisionRecallCurve.prefix(RunReport.markdownListLimit * 4) {
            out.append("| \(Show.fixed(c.recall)) | \(Show.fixed(c.precision)) | `\(markdownCode(c.label))` |")
        }
        out.append("")
        out += erroredFixturesSection(errors.map { ($0.path, $0.message) }, listedIn: "sweep.json")
        return out.joined(separator: "\n")
    }

    /// Writes sweep.csv, sweep.json and sweep.md into `directory`, atomically.
    @discardableResult
    public func write(to directory: String) throws(ReportWriteError) -> [String] {
        try writeReportFiles([("sweep.csv", csv), ("sweep.json", jsonValue.serialized(pretty: true) + "\n"), ("sweep.md", markdown)], into: directory)
    }
}
