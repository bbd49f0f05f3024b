/// Where a run came from: identities of its inputs, for reproducibility.
public struct RunProvenance: Sendable, Equatable {
    public var toolVersion: String
    public var configHash: String
    /// FNV-1a 64 of the acceptance file's bytes; "defaults" when none was read.
    public var acceptanceHash: String
    public var datasetRoot: String
    public var labelsRoot: String?
    /// The run's current directory, when `datasetRoot` or `labelsRoot` is relative: what the
    /// report's relative paths (the roots, each fixture's image and label) are relative to, so
    /// that `cellqa review` run from elsewhere finds the images.
    public var workingDirectory: String?
    /// Content hash of the dataset's inputs (paths and bytes).
    public var datasetHash: String
    /// `--filter` / `--tag` selections, when given.
    public var filter: String?
    public var tag: String?
    /// ISO 8601 UTC.
    public var startTime: String
    public var machine: MachineFacts

    public init(toolVersion: String, configHash: String, acceptanceHash: String, datasetRoot: String,
                labelsRoot: String?, datasetHash: String, filter: String? = nil, tag: String? = nil,
                startTime: String, machine: MachineFacts, workingDirectory: String? = nil) {
        self.toolVersion = toolVersion
        self.configHash = configHash
        self.acceptanceHash = acceptanceHash
        self.datasetRoot = datasetRoot
        self.labelsRoot = labelsRoot
        self.workingDirectory = workingDirectory
        self.datasetHash = datasetHash
        self.filter = filter
        self.tag = tag
        self.startTime = startTime
        self.machine = machine
    }
}

/// Everything a run's reports show, computed once from the run.
public struct RunReport: Sendable {
    public static let schemaVersion = 1

    public var provenance: RunProvenance
    /// The gates this report was judged by.
    public var acceptance: Acceptance
    public var run: RunResult
    public var overall: AggregateMetrics
    public var tags: [TagMetrics]
    public var stages: [StageStatistics]
    /// The timed steps inside stages (`PipelineResult.steps`), for the summary's profile.
    public var steps: [StepStatistics]
    public var gates: [GateResult]
    public var outliers: [Outlier]
    public var outlierCut: Double
    /// Sum of every fixture's harness CPU time (label reading, checks, matching, scoring),
    /// seconds.
    public var harnessCPUSeconds: Double
    /// Sum of every timing sample's wall time (decode + stages), seconds.
    public var pipelineSeconds: Double
    /// Wall time spent walking the dataset and hashing its content before the run, seconds.
    public var scanSeconds: Double
    /// CPU time of the same walk and hash, seconds.
    public var scanCPUSeconds: Double
    /// Wall time from the start of the scan to the finished report (writing excluded),
    /// seconds; set by `performRun` (defaults to scan + run).
    public var durationSeconds: Double
    /// The comparison with a stored baseline (`cellqa run --baseline`), when one was given.
    public var baseline: BaselineComparison? = nil
    /// With a baseline: exit 4 instead of 0 when the comparison found only improvements.
    public var failOnImprovement = false

    public var outcomes: [FixtureOutcome] { run.outcomes }
    public var erroredCount: Int { outcomes.filter { $0.status == .errored }.count }
    public var unlabelledCount: Int { outcomes.filter { $0.status == .unlabelled }.count }
    public var scoredCount: Int { outcomes.filter { $0.status == .scored }.count }
    /// Every gate passed (never for an interrupted run: its "complete" gate fails).
    public var passed: Bool { gates.allSatisfy(\.passed) }
    /// Every selected fixture finished.
    public var complete: Bool { run.complete }
    /// `cellqa run`'s exit status for this report (`ComparisonExitCode.code`): 0 when every
    /// gate passed and nothing regressed against the baseline, 1 when a gate failed, 3 on a
    /// regression, 4 on improvements only with `failOnImprovement`; for an interrupted run
    /// 128 + the signal (130 SIGINT, 143 SIGTERM). (2, for usage and input errors, is
    /// `RunInputError.exitCode`.)
    public var exitCode: Int32 {
        if let interruption = run.interruption { return interruption.exitCode }
        return ComparisonExitCode.code(gatesPassed: passed, comparison: baseline, failOnImprovement: failOnImprovement)
    }
    public var failedGates: [GateResult] { gates.filter { !$0.passed } }

    /// - Parameters:
    ///   - run: the runner's output.
    ///   - acceptance: the gates to evaluate.
    ///   - provenance: identities of the inputs.
    ///   - outlierCut: robust z cut for the cross-fixture outlier list.
    ///   - scanSeconds: time spent walking and hashing the dataset, for the overhead figures.
    public init(run: RunResult, acceptance: Acceptance, provenance: RunProvenance, outlierCut: Double = 3.5,
                scanSeconds: Double = 0, scanCPUSeconds: Double = 0) {
        self.provenance = provenance
        self.acceptance = acceptance
        self.scanSeconds = scanSeconds
        self.scanCPUSeconds = scanCPUSeconds
        durationSeconds = scanSeconds + run.wallSeconds
        self.run = run
        self.outlierCut = outlierCut
        let scores = run.outcomes.compactMap(\.score)
        overall = AggregateMetrics(scores: scores)
        tags = metricsByTag(scores)
        (stages, steps) = RunReport.timingStatistics(run.outcomes)
        outliers = findOutliers(run.outcomes, cut: outlierCut)
        harnessCPUSeconds = run.outcomes.reduce(0) { $0 + $1.harnessCPUSeconds }
        pipelineSeconds = run.outcomes.reduce(0) { sum, o in
            sum + o.samples.reduce(0) { $0 + $1.reduce(0) { $0 + $1.wallSeconds } }
        }
        let overallInputs = RunReport.gateInputs(run.outcomes, metrics: overall, timings: (stages, steps))
        let byTagMetrics = tags
        gates = evaluateGates(acceptance: acceptance, overall: overallInputs) { tag in
            let selected = run.outcomes.filter { $0.tags.contains(tag) }
            guard !selected.isEmpty else { return nil }
            let metrics = byTagMetrics.first { $0.tag == tag }?.metrics ?? AggregateMetrics(scores: [])
            return RunReport.gateInputs(selected, metrics: metrics, timings: RunReport.timingStatistics(selected))
        }
        if let interruption = run.interruption {
            gates.append(RunReport.completenessGate(interruption, finished: run.outcomes.count, selected: run.selectedCount))
        }
    }

    /// The failing gate of an interrupted run: the other gates judged only the fixtures that
    /// finished, so the run as a whole cannot pass.
    static func completenessGate(_ interruption: RunInterruption, finished: Int, selected: Int) -> GateResult {
        GateResult(name: "complete", scope: "all", passed: false, actual: Double(finished), limit: Double(selected),
                   comparison: ">=",
                   detail: "interrupted by \(interruption.name) after \(finished) of \(selected) fixtures; "
                       + "the other gates judged a partial run and do not count as a pass")
    }

    /// The stage and step statistics of `outcomes`' timing samples.
    static func timingStatistics(_ outcomes: [FixtureOutcome]) -> (stages: [StageStatistics], steps: [StepStatistics]) {
        let stages = stageStatistics(samples: outcomes.flatMap(\.samples))
        return (stages, stepStatistics(steps: outcomes.flatMap(\.stepSamples), stages: stages))
    }

    /// What the gates of `outcomes` look at; `timings` are their `timingStatistics`.
    static func gateInputs(_ outcomes: [FixtureOutcome], metrics: AggregateMetrics,
                           timings: (stages: [StageStatistics], steps: [StepStatistics])) -> GateInputs {
        var expectFailures: [String] = []
        for o in outcomes {
            for check in o.score?.expectChecks ?? [] where !check.passed {
                expectFailures.append("\(o.fixture.path): \(check.key) \(check.actual) not in \(describe(check.range))")
            }
        }
        return GateInputs(metrics: metrics, errored: outcomes.filter { $0.status == .errored }.count,
                          stages: timings.stages, steps: timings.steps, expectFailures: expectFailures)
    }
}

/// "[20, 30]", "[20, any]", "[any, 30]".
func describe(_ range: GroundTruth.CountRange) -> String {
    "[\(range.min.map(formatGateNumber) ?? "any"), \(range.max.map(formatGateNumber) ?? "any")]"
}
