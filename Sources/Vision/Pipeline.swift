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
        var frame = Frame(image: image, config: config)
        var timings: [StageTiming] = []
        timings.reserveCapacity(stages.count)
        for stage in stages {
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
                              glareRatio: frame.glareRatio, flags: flags, timings: timings)
    }
}
