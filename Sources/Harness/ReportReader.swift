import JSON

extension RunSnapshot {
    /// Reads a `report.json` written by `cellqa run` (schemaVersion 1) back into a snapshot.
    /// - Throws: `JSONError` naming the file and the JSON path of the first missing or
    ///   mistyped member (a file that is not JSON names the byte offset).
    public static func load(path: String) throws(JSONError) -> RunSnapshot {
        try parse(JSONValue.load(path: path), file: path)
    }

    /// Whether a parsed JSON document looks like a report (it has `schemaVersion`), as
    /// opposed to a pipeline config.
    public static func isReport(_ value: JSONValue) -> Bool { value["schemaVersion"] != nil }

    /// Reads an already parsed report document.
    public static func parse(_ value: JSONValue, file: String?) throws(JSONError) -> RunSnapshot {
        let root = JSONCursor(value, file: file)
        let versionCursor = try root.required("schemaVersion")
        let version = try versionCursor.int()
        guard version == RunReport.schemaVersion else {
            throw versionCursor.error(expected: "schemaVersion \(RunReport.schemaVersion)", actual: "\(version)")
        }
        let tool = try root.required("tool").required("version").string()
        let configHash = try root.required("configHash").string()
        let datasetHash = try root.required("dataset").required("contentHash").string()
        let m = try root.required("machine")
        let machine = MachineFacts(cores: try m.required("cores").int(), cpuModel: try m.required("cpuModel").string(),
                                   os: try m.required("os").string(), kernel: try m.required("kernel").string())
        let repeats = try root.required("run").required("repeats").int()
        var fixtures: [FixtureRecord] = []
        for f in try root.required("fixtures").array() {
            fixtures.append(try parseFixture(f))
        }
        let complete = try root.field("complete")?.bool() ?? true
        return RunSnapshot(source: file ?? "report", toolVersion: tool, configHash: configHash, datasetHash: datasetHash,
                           machine: machine, repeats: repeats, fixtures: fixtures, complete: complete)
    }

    private static func parseFixture(_ f: JSONCursor) throws(JSONError) -> FixtureRecord {
        let statusCursor = try f.required("status")
        let statusName = try statusCursor.string()
        guard let status = FixtureStatus(rawValue: statusName) else {
            throw statusCursor.error(expected: "\"scored\", \"unlabelled\" or \"errored\"", actual: "\"\(statusName)\"")
        }
        var tags: [String] = []
        for t in try f.required("tags").array() { tags.append(try t.string()) }
        var record = FixtureRecord(path: try f.required("path").string(), status: status, tags: tags)
        var timings: [TimingRecord] = []
        for t in try f.required("timings").array() {
            timings.append(TimingRecord(name: try t.required("name").string(), wallMs: try milliseconds(t, "wallMs"),
                                        cpuMs: try milliseconds(t, "cpuMs")))
        }
        record.timings = timings
        // Absent in reports written before steps were recorded.
        for t in try f.field("steps")?.array() ?? [] {
            record.steps.append(StepRecord(stage: try t.required("stage").string(),
                                           timing: TimingRecord(name: try t.required("step").string(),
                                                                wallMs: try milliseconds(t, "wallMs"), cpuMs: try milliseconds(t, "cpuMs"))))
        }
        guard status == .scored else { return record }
        record.detection = DetectionCounts(tp: try count(f, "tp"), fp: try count(f, "fp"), fn: try count(f, "fn"))
        let counts = try f.required("counts")
        record.predicted = try count(counts.required("predicted"), "total")
        record.labelled = try count(counts.required("labelled"), "total")
        let confusion = try f.required("liveDeadConfusion")
        let ll = try count(confusion, "liveAsLive"), ld = try count(confusion, "liveAsDead")
        let dl = try count(confusion, "deadAsLive"), dd = try count(confusion, "deadAsDead")
        record.classKnown = ll + ld + dl + dd
        record.classCorrect = ll + dd
        let blank = try f.required("blankDetections")
        record.blankDetections = blank.isNull ? nil : try blank.int()
        // Absent in reports written before placement was compared.
        if let registration = try f.field("registration"), !registration.isNull {
            let error = try registration.required("positionErrorUm")
            let um = try error.double()
            guard um >= 0 else { throw error.error(expected: "a non-negative distance in µm", actual: "\(um)") }
            record.registration = RegistrationComparison(positionErrorUm: um)
        }
        return record
    }

    /// An array of timing samples, milliseconds.
    private static func milliseconds(_ object: JSONCursor, _ key: String) throws(JSONError) -> [Double] {
        var values: [Double] = []
        for v in try object.required(key).array() { values.append(try v.double()) }
        return values
    }

    /// A non-negative integer member.
    private static func count(_ object: JSONCursor, _ key: String) throws(JSONError) -> Int {
        let c = try object.required(key)
        let v = try c.int()
        guard v >= 0 else { throw c.error(expected: "a non-negative integer", actual: "\(v)") }
        return v
    }
}
