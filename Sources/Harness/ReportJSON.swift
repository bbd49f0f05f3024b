import JSON
import Vision

/// JSON value helpers: absent and non-finite numbers become null.
func jnum(_ x: Double?) -> JSONValue {
    guard let x, x.isFinite else { return .null }
    return .double(x)
}
func jint(_ x: Int?) -> JSONValue { x.map { .int(Int64($0)) } ?? .null }
func jstr(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
func jobj(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

extension SampleSummary {
    var jsonValue: JSONValue {
        jobj([("count", jint(count)), ("min", jnum(min)), ("median", jnum(median)), ("mean", jnum(mean)),
              ("p90", jnum(p90)), ("p99", jnum(p99)), ("max", jnum(max))])
    }
}

extension ClassConfusion {
    var jsonValue: JSONValue {
        jobj([("liveAsLive", jint(liveAsLive)), ("liveAsDead", jint(liveAsDead)),
              ("deadAsLive", jint(deadAsLive)), ("deadAsDead", jint(deadAsDead)), ("accuracy", jnum(accuracy))])
    }
}

extension LocalisationError {
    var jsonValue: JSONValue {
        jobj([("pairs", jint(pairs)), ("meanPx", jnum(meanPixels)), ("medianPx", jnum(medianPixels)),
              ("p90Px", jnum(p90Pixels)), ("calibratedPairs", jint(calibratedPairs)), ("meanUm", jnum(meanUm)),
              ("medianUm", jnum(medianUm)), ("p90Um", jnum(p90Um))])
    }
}

extension AggregateMetrics {
    /// The metric block shared by `summary` and each `tags[]` entry.
    var metricMembers: [(String, JSONValue)] {
        [("precision", jnum(precision)), ("recall", jnum(recall)), ("f1", jnum(f1)),
         ("macroPrecision", jnum(macroPrecision)), ("macroRecall", jnum(macroRecall)), ("macroF1", jnum(macroF1)),
         ("tp", jint(detection.tp)), ("fp", jint(detection.fp)), ("fn", jint(detection.fn)),
         ("liveDeadAccuracy", jnum(liveDeadAccuracy)), ("liveDeadConfusion", classes.jsonValue),
         ("meanAbsRelCountError", jnum(meanAbsRelCountError)),
         ("meanAbsRelLiveCountError", jnum(meanAbsRelLiveCountError)),
         ("meanAbsRelDeadCountError", jnum(meanAbsRelDeadCountError)),
         ("meanAbsViabilityErrorPoints", jnum(meanAbsViabilityErrorPoints)),
         ("meanAbsRelConcentrationError", jnum(meanAbsRelConcentrationError)),
         ("meanAbsRelCalibrationError", jnum(meanAbsRelCalibrationError)),
         ("calibratedFixtures", jint(calibratedFixtures)),
         ("registeredFixtures", jint(registeredFixtures)), ("misplacedFixtures", jint(misplacedFixtures)),
         ("localisation", localisation?.jsonValue ?? .null),
         ("blankControls", jint(blankControls)), ("blankDetectionsTotal", jint(blankDetectionsTotal)),
         ("blankDetectionsMax", jint(blankDetectionsMax)),
         ("expectChecks", jint(expectChecks)), ("expectFailures", jint(expectFailures))]
    }
}

extension GateResult {
    var jsonValue: JSONValue {
        jobj([("name", .string(name)), ("scope", .string(scope)), ("passed", .bool(passed)), ("actual", jnum(actual)),
              ("limit", jnum(limit)), ("comparison", .string(comparison)), ("detail", .string(detail))])
    }
}

extension RunReport {
    /// The whole report as JSON; `scripts/report.schema.json` documents it.
    public var jsonValue: JSONValue {
        let p = provenance
        let summary = jobj([("fixtures", jint(outcomes.count)), ("scored", jint(scoredCount)),
                            ("unlabelled", jint(unlabelledCount)), ("errored", jint(erroredCount))]
                           + overall.metricMembers)
        return jobj([
            ("schemaVersion", jint(RunReport.schemaVersion)),
            ("tool", jobj([("name", "cellqa"), ("version", .string(p.toolVersion))])),
            ("configHash", .string(p.configHash)),
            ("acceptanceHash", .string(p.acceptanceHash)),
            ("dataset", jobj([("root", .string(p.datasetRoot)), ("labelsRoot", jstr(p.labelsRoot)),
                              ("workingDirectory", jstr(p.workingDirectory)),
                              ("contentHash", .string(p.datasetHash)), ("filter", jstr(p.filter)), ("tag", jstr(p.tag))])),
            ("machine", jobj([("cores", jint(p.machine.cores)), ("cpuModel", .string(p.machine.cpuModel)),
                              ("os", .string(p.machine.os)), ("kernel", .string(p.machine.kernel))])),
            ("startTime", .string(p.startTime)),
            ("durationSeconds", jnum(durationSeconds)),
            ("run", jobj([("jobs", jint(run.jobs)), ("repeats", jint(run.repeats)), ("wallSeconds", jnum(run.wallSeconds)),
                          ("fixturesPerSecond", jnum(run.fixturesPerSecond)), ("peakRSSBytes", jint(run.peakRSSBytes)),
                          ("coresUsed", jint(min(run.jobs, p.machine.cores))), ("workersUsed", jint(run.workersUsed)),
                          ("harnessCPUSeconds", jnum(harnessCPUSeconds)), ("pipelineSeconds", jnum(pipelineSeconds)),
                          ("scanSeconds", jnum(scanSeconds)), ("scanCPUSeconds", jnum(scanCPUSeconds))])),
            ("complete", .bool(complete)),
            ("interruption", run.interruption.map { i in
                jobj([("signal", .string(i.name)), ("exitCode", jint(Int(i.exitCode))),
                      ("fixturesSelected", jint(run.selectedCount)), ("fixturesFinished", jint(outcomes.count))])
            } ?? .null),
            ("passed", .bool(passed)),
            ("summary", summary),
            ("tags", .array(tags.map { t in jobj([("tag", .string(t.tag)), ("fixtures", jint(t.metrics.fixtures))]
                                                  + t.metrics.metricMembers) })),
            ("stages", .array(stages.map { s in
                jobj([("name", .string(s.name)), ("wallMs", s.wallMs.jsonValue), ("cpuMs", s.cpuMs.jsonValue),
                      ("share", jnum(s.share))])
            })),
            ("steps", .array(steps.map { s in
                jobj([("stage", .string(s.stage)), ("step", .string(s.step)), ("wallMs", s.wallMs.jsonValue),
                      ("cpuMs", s.cpuMs.jsonValue), ("shareOfStage", jnum(s.shareOfStage))])
            })),
            ("gates", .array(gates.map(\.jsonValue))),
            ("outlierCut", jnum(outlierCut)),
            ("outliers", .array(outliers.map { o in
                jobj([("fixture", .string(o.fixture)), ("metric", .string(o.metric)), ("value", jnum(o.value)),
                      ("z", jnum(o.z)), ("median", jnum(o.median))])
            })),
            ("fixtures", .array(outcomes.map(fixtureJSON))),
            ("baseline", baseline?.jsonValue ?? .null),
        ])
    }

    func fixtureJSON(_ o: FixtureOutcome) -> JSONValue {
        let s = o.score
        let r = o.result
        var members: [(String, JSONValue)] = [
            ("path", .string(o.fixture.path)), ("id", .string(o.fixture.id)), ("group", .string(o.fixture.group)),
            ("image", jstr(o.fixture.imagePath)), ("label", jstr(o.fixture.labelPath)),
            ("status", .string(o.status.rawValue)), ("error", jstr(o.error)),
            ("tags", .array(o.tags.map { .string($0) })),
            ("tp", jint(s?.detection.tp)), ("fp", jint(s?.detection.fp)), ("fn", jint(s?.detection.fn)),
            ("precision", jnum(s?.detection.precision)), ("recall", jnum(s?.detection.recall)),
            ("f1", jnum(s?.detection.f1)),
        ]
        let predicted = r.map { res in
            jobj([("total", jint(res.detections.count)),
                  ("live", jint(res.detections.filter { $0.cellClass == .live }.count)),
                  ("dead", jint(res.detections.filter { $0.cellClass == .dead }.count))])
        } ?? .null
        let labelled = s.map { sc in
            jobj([("total", jint(sc.total.labelled)), ("live", jint(sc.live?.labelled)), ("dead", jint(sc.dead?.labelled))])
        } ?? .null
        members.append(("counts", jobj([("predicted", predicted), ("labelled", labelled)])))
        func countError(_ c: CountComparison?) -> JSONValue {
            c.map { jobj([("error", jint($0.error)), ("absRelative", jnum($0.absRelativeError))]) } ?? .null
        }
        members.append(("countError", s.map { sc in
            jobj([("total", countError(sc.total)), ("live", countError(sc.live)), ("dead", countError(sc.dead))])
        } ?? .null))
        members.append(("liveDeadConfusion", s?.classes.jsonValue ?? .null))
        members.append(("viabilityErrorPoints", jnum(s?.viabilityErrorPoints)))
        members.append(("concentration", s?.concentration.map { c in
            jobj([("predictedPerML", jnum(c.predictedPerML)), ("labelledPerML", jnum(c.labelledPerML)),
                  ("relativeError", jnum(c.relativeError))])
        } ?? .null))
        members.append(("calibration", s?.calibration.map { c in
            jobj([("predictedUmPerPixel", jnum(c.predictedUmPerPixel)), ("labelledUmPerPixel", jnum(c.labelledUmPerPixel)),
                  ("relativeError", jnum(c.relativeError))])
        } ?? .null))
        members.append(("registration", s?.registration.map { g in
            jobj([("positionErrorUm", jnum(g.positionErrorUm)), ("misplaced", .bool(g.isMisplaced))])
        } ?? .null))
        members.append(("predictedConcentrationPerML", jnum(r?.count.concentrationPerML)))
        members.append(("predictedViabilityPercent", jnum(r?.count.viabilityPercent)))
        members.append(("localisation", s?.localisation?.jsonValue ?? .null))
        members.append(("blankDetections", jint(s?.blankDetections)))
        members.append(("expect", .array((s?.expectChecks ?? []).map { c in
            jobj([("key", .string(c.key)), ("min", jnum(c.range.min)), ("max", jnum(c.range.max)),
                  ("actual", jint(c.actual)), ("passed", .bool(c.passed))])
        })))
        members.append(("calibrated", r.map { .bool($0.grid != nil) } ?? .null))
        members.append(("umPerPixel", jnum(r?.grid?.umPerPixel)))
        members.append(("squares", .array((r?.count.squares ?? []).map { q in
            jobj([("row", jint(q.square.row)), ("column", jint(q.square.column)), ("total", jint(q.total)),
                  ("live", jint(q.live)), ("dead", jint(q.dead)), ("z", jnum(q.robustZ)), ("rejected", .bool(q.rejected))])
        })))
        members.append(("flags", .array((r?.flags ?? []).map { .string($0) })))
        members.append(("harnessCPUMs", jnum(o.harnessCPUSeconds * 1000)))
        members.append(("timings", .array(timingSeries(o.samples).map { series in
            jobj([("name", .string(series.name)), ("wallMs", .array(series.wallMs.map(jnum))),
                  ("cpuMs", .array(series.cpuMs.map(jnum)))])
        })))
        members.append(("steps", .array(stepSeries(o.stepSamples).map { s in
            jobj([("stage", .string(s.stage)), ("step", .string(s.step)), ("wallMs", .array(s.timing.wallMs.map(jnum))),
                  ("cpuMs", .array(s.timing.cpuMs.map(jnum)))])
        })))
        return jobj(members)
    }
}

/// One stage's samples of one fixture, in repeat order, milliseconds.
struct TimingSeries {
    var name: String
    var wallMs: [Double]
    var cpuMs: [Double]
    var record: TimingRecord { TimingRecord(name: name, wallMs: wallMs, cpuMs: cpuMs) }
}

/// Regroups per-repeat timing lists into per-stage series (first-seen stage order).
func timingSeries(_ samples: [[StageTiming]]) -> [TimingSeries] {
    var series: [TimingSeries] = []
    for sample in samples {
        for t in sample {
            if let k = series.firstIndex(where: { $0.name == t.name }) {
                series[k].wallMs.append(t.wallSeconds * 1000)
                series[k].cpuMs.append(t.cpuSeconds * 1000)
            } else {
                series.append(TimingSeries(name: t.name, wallMs: [t.wallSeconds * 1000], cpuMs: [t.cpuSeconds * 1000]))
            }
        }
    }
    return series
}

/// Regroups per-repeat step lists into per-step series, in `pipelineStepOrder`.
func stepSeries(_ samples: [[StepTiming]]) -> [StepRecord] {
    pipelineStepOrder(samples.map { $0.map { ($0.stage, $0.step) } }).flatMap { entry in
        entry.steps.map { step in
            let runs = samples.flatMap { $0.filter { $0.stage == entry.stage && $0.step == step } }
            return StepRecord(stage: entry.stage, timing: TimingRecord(name: step, wallMs: runs.map { $0.wallSeconds * 1000 },
                                                                       cpuMs: runs.map { $0.cpuSeconds * 1000 }))
        }
    }
}
