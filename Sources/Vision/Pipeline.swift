import Imaging
import Hemocytometer

/// The cell-counting pipeline: an ordered list of stages, each timed on its own.
public struct Pipeline: Sendable {
    public let config: PipelineConfig
    public let stages: [any Stage]

    public init(config: PipelineConfig = PipelineConfig()) {
        self.config = config
        self.stages = [NormalizeStage(), IlluminationStage(), GridStage(), CandidatesStage(),
                       ClassifyStage(), NMSStage(), CountStage()]
    }

    /// Runs every stage on `image`. Never traps on image content; an empty image gives an
    /// empty result with the flag "empty-image".
    public func run(_ image: Image) throws -> PipelineResult {
        try run(image, shouldStop: { nil })
    }

    /// `run(_:)` with a cooperative stop: `shouldStop` is asked before each stage, and a
    /// non-nil answer (the reason, e.g. "time limit of 300 s exceeded") ends the run with
    /// `PipelineStopped`. A stage is never interrupted midway, so how late the stop comes is
    /// bounded by the longest stage.
    public func run(_ image: Image, shouldStop: () -> String?) throws -> PipelineResult {
        var frame = Frame(image: image, config: config)
        return try run(&frame, shouldStop: shouldStop)
    }

    /// Runs every stage on `image` and tells, step by step, which candidates were near each
    /// of `probes` (image pixels; "near" = within `reach` pixels): where a missed cell was lost
    /// and where a false detection came from.
    public func explain(_ image: Image, probes: [CandidateTrace.Probe], reach: Double) throws -> (PipelineResult, CandidateTrace) {
        var frame = Frame(image: image, config: config)
        frame.trace = CandidateTrace(probes: probes, reach: reach)
        let result = try run(&frame, shouldStop: { nil })
        return (result, frame.trace!)
    }

    private func run(_ frame: inout Frame, shouldStop: () -> String?) throws -> PipelineResult {
        let image = frame.image
        var timings: [StageTiming] = []
        timings.reserveCapacity(stages.count)
        for stage in stages {
            if let reason = shouldStop() { throw PipelineStopped(beforeStage: stage.name, reason: reason) }
            let wall0 = StageClock.wall(), cpu0 = StageClock.threadCPU()
            try stage.run(&frame)
            timings.append(StageTiming(name: stage.name, wallSeconds: StageClock.wall() - wall0,
                                       cpuSeconds: StageClock.threadCPU() - cpu0))
        }
        let count = frame.count ?? ChamberCount(total: frame.detections.count, live: 0, dead: 0, squares: [],
                                                meanPerSquare: nil, concentrationPerML: nil,
                                                viabilityPercent: nil, flags: [])
        var flags = frame.flags
        for f in count.flags where !flags.contains(f) { flags.append(f) }
        return PipelineResult(width: image.width, height: image.height, detections: frame.detections,
                              grid: frame.grid?.result, count: count, focusScore: frame.focusScore,
                              glareRatio: frame.glareRatio, flags: flags, timings: timings, steps: frame.steps,
                              umPerPixel: frame.umPerPixel)
    }
}

/// A pipeline run ended early because its caller's stop check asked for it (a per-fixture
/// time limit, an interrupted run).
public struct PipelineStopped: Error, Sendable, CustomStringConvertible {
    /// The stage that was not started.
    public var beforeStage: String
    /// The caller's reason.
    public var reason: String
    public init(beforeStage: String, reason: String) {
        self.beforeStage = beforeStage
        self.reason = reason
    }
    public var description: String { "\(reason) (stopped before stage \(beforeStage))" }
}
