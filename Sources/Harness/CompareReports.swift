import JSON

extension WinLossTally {
    var jsonValue: JSONValue {
        jobj([("wins", jint(wins)), ("losses", jint(losses)), ("ties", jint(ties)), ("signTestP", jnum(signTestP))])
    }
    var text: String { "\(wins) / \(losses) / \(ties) (sign test p \(Show.pValue(signTestP)))" }
}

extension FixtureChange {
    var jsonValue: JSONValue {
        jobj([("path", .string(path)), ("tags", .array(tags.map { .string($0) })), ("referenceF1", jnum(referenceF1)),
              ("candidateF1", jnum(candidateF1)), ("f1Change", jnum(f1Change)),
              ("referenceCountError", jnum(referenceCountError)), ("candidateCountError", jnum(candidateCountError)),
              ("countErrorChange", jnum(countErrorChange)),
              ("referencePositionErrorUm", jnum(referencePlacement?.positionErrorUm)),
              ("candidatePositionErrorUm", jnum(candidatePlacement?.positionErrorUm)),
              ("placementCrossed", .bool(placementCrossed))])
    }

    /// "12 → 840" (µm, rounded), "–" for a side not compared, marked when it crossed
    /// `RegistrationComparison.toleranceUm`.
    var placementText: String {
        func um(_ g: RegistrationComparison?) -> String { g.map { String(Int($0.positionErrorUm.rounded())) } ?? "–" }
        guard referencePlacement != nil || candidatePlacement != nil else { return "" }
        return "\(um(referencePlacement)) → \(um(candidatePlacement))" + (placementCrossed ? " (crossed \(RegistrationComparison.toleranceText))" : "")
    }
}

/// `compare.json` and `compare.md` of `cellqa compare`.
public struct CompareReport: Sendable {
    /// The versions in command-line order (the first is the reference).
    public var versions: [RunSnapshot]
    public var comparisons: [VersionComparison]
    /// "configs (run interleaved in this process)" or "reports (nothing re-run)".
    public var mode: String
    public var failOnImprovement: Bool
    /// Most-changed fixtures listed in full per comparison in compare.md (all are in compare.json).
    public static let markdownFixtureLimit = 30

    public init(versions: [RunSnapshot], comparisons: [VersionComparison], mode: String, failOnImprovement: Bool = false) {
        self.versions = versions
        self.comparisons = comparisons
        self.mode = mode
        self.failOnImprovement = failOnImprovement
    }

    /// 3 when any version regressed against the reference, 4 when all changes are
    /// improvements and `failOnImprovement`, else 0.
    public var exitCode: Int32 {
        if comparisons.contains(where: { $0.comparison.hasRegression }) { return ComparisonExitCode.regression }
        if failOnImprovement && comparisons.contains(where: { $0.comparison.onlyImprovements }) {
            return ComparisonExitCode.onlyImprovements
        }
        return ComparisonExitCode.success
    }

    public var jsonValue: JSONValue {
        jobj([
            ("compareVersion", jint(1)),
            ("mode", .string(mode)),
            ("versions", .array(versions.map { v in
                jobj([("source", .string(v.source)), ("configHash", .string(v.configHash)), ("datasetHash", .string(v.datasetHash)),
                      ("fixtures", jint(v.fixtures.count)), ("cpuModel", .string(v.machine.cpuModel))])
            })),
            ("comparisons", .array(comparisons.map { c in
                jobj([("reference", .string(c.reference)), ("candidate", .string(c.candidate)),
                      ("verdicts", c.comparison.jsonValue), ("f1", c.f1.jsonValue), ("countError", c.countError.jsonValue),
                      ("fixtures", .array(c.changes.map(\.jsonValue)))])
            })),
            ("exitCode", jint(Int(exitCode))),
        ])
    }

    public var markdown: String {
        var out = ["## cellqa compare", ""]
        out.append("Mode: \(markdownEscape(mode)). Each version against the first.")
        out.append("")
        out.append("| # | version | config | fixtures |")
        out.append("| ---: | --- | --- | ---: |")
        for (i, v) in versions.enumerated() {
            out.append("| \(i == 0 ? "ref" : String(i)) | `\(markdownCode(v.source))` | `\(v.configHash)` | \(v.fixtures.count) |")
        }
        out.append("")
        for c in comparisons {
            out += c.comparison.markdownLines(title: "`\(markdownCode(c.candidate))` vs `\(markdownCode(c.reference))`")
            out.append("Per fixture, wins / losses / ties — F1: \(c.f1.text); count error: \(c.countError.text).")
            if let m = c.misplaced {
                out.append("Grid placed more than \(RegistrationComparison.toleranceText) µm off: "
                           + "\(m.reference) → \(m.candidate) of the \(m.compared) fixtures both placed.")
            }
            out.append("")
            let changed = c.changes.filter(\.isChanged)
            if !changed.isEmpty {
                out.append("| fixture (most changed first) | F1 ref | F1 new | ΔF1 | count err ref | count err new | placed µm off ref → new |")
                out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
                for f in changed.prefix(CompareReport.markdownFixtureLimit) {
                    out.append("| `\(markdownCode(f.path))` | \(Show.fixed(f.referenceF1, 3)) | \(Show.fixed(f.candidateF1, 3)) | "
                               + "\(Show.signed(f.f1Change, 3)) | \(Show.percent(f.referenceCountError)) | \(Show.percent(f.candidateCountError)) | "
                               + "\(f.placementText) |")
                }
                if changed.count > CompareReport.markdownFixtureLimit {
                    out.append("")
                    out.append("… and \(changed.count - CompareReport.markdownFixtureLimit) more changed fixtures (see compare.json)")
                }
                out.append("")
            } else {
                out.append("No fixture changed F1, count error or placement.")
                out.append("")
            }
        }
        return out.joined(separator: "\n")
    }

    /// Writes compare.json and compare.md into `directory` (created if missing), atomically.
    @discardableResult
    public func write(to directory: String) throws(ReportWriteError) -> [String] {
        try writeReportFiles([("compare.json", jsonValue.serialized(pretty: true) + "\n"), ("compare.md", markdown + "\n")], into: directory)
    }
}
