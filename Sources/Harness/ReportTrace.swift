import JSON

extension RunReport {
    /// Chrome Trace Event Format (opens in Perfetto and chrome://tracing): one complete ("X")
    /// event per fixture repeat and one per stage inside it, `tid` = worker index, times in
    /// microseconds since the run started. Stages are laid end to end from the repeat's start
    /// in the order they ran, which is how the pipeline executes them, and the steps a stage
    /// timed (`PipelineResult.steps`) likewise from the stage's start, nested inside it.
    public var traceJSON: JSONValue {
        var events: [JSONValue] = []
        let workers = Set(outcomes.flatMap { $0.spans.map(\.worker) }).sorted()
        events.append(jobj([("name", "process_name"), ("ph", "M"), ("pid", 1), ("tid", 0),
                            ("args", jobj([("name", "cellqa run")]))]))
        for w in workers {
            events.append(jobj([("name", "thread_name"), ("ph", "M"), ("pid", 1), ("tid", jint(w)),
                                ("args", jobj([("name", .string("worker \(w)"))]))]))
        }
        for o in outcomes {
            for (k, span) in o.spans.enumerated() {
                let sample = k < o.samples.count ? o.samples[k] : []
                let steps = k < o.stepSamples.count ? o.stepSamples[k] : []
                let start = span.start * 1e6
                let total = sample.reduce(0) { $0 + $1.wallSeconds } * 1e6
                var args: [(String, JSONValue)] = [("fixture", .string(o.fixture.path)), ("repeat", jint(k)),
                                                   ("status", .string(o.status.rawValue))]
                if let error = o.error, k == o.spans.count - 1 { args.append(("error", .string(error))) }
                events.append(jobj([("name", .string(o.fixture.path)), ("cat", "fixture"), ("ph", "X"),
                                    ("ts", jnum(start)), ("dur", jnum(total)), ("pid", 1), ("tid", jint(span.worker)),
                                    ("args", jobj(args))]))
                var t = start
                for stage in sample {
                    let dur = stage.wallSeconds * 1e6
                    events.append(jobj([("name", .string(stage.name)), ("cat", "stage"), ("ph", "X"), ("ts", jnum(t)),
                                        ("dur", jnum(dur)), ("pid", 1), ("tid", jint(span.worker)),
                                        ("args", jobj([("fixture", .string(o.fixture.path)),
                                                       ("cpuMs", jnum(stage.cpuSeconds * 1000))]))]))
                    var s = t
                    for step in steps where step.stage == stage.name {
                        let stepDur = step.wallSeconds * 1e6
                        events.append(jobj([("name", .string(step.step)), ("cat", "step"), ("ph", "X"), ("ts", jnum(s)),
                                            ("dur", jnum(stepDur)), ("pid", 1), ("tid", jint(span.worker)),
                                            ("args", jobj([("fixture", .string(o.fixture.path)),
                                                           ("stage", .string(stage.name)),
                                                           ("cpuMs", jnum(step.cpuSeconds * 1000))]))]))
                        s += stepDur
                    }
                    t += dur
                }
            }
        }
        return jobj([("traceEvents", .array(events)), ("displayTimeUnit", "ms")])
    }
}
