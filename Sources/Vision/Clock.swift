#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic wall clock and CPU time of the calling thread, seconds. Stages and the harness
/// (decode, whole runs) time themselves with the same clocks.
public enum StageClock {
    public static func wall() -> Double { read(CLOCK_MONOTONIC) }
    public static func threadCPU() -> Double { read(CLOCK_THREAD_CPUTIME_ID) }

    private static func read(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}

/// Laps through one stage: each `lap(_:)` records the time since the previous lap (or since
/// the clock was made) as one step of the stage. A long stage tells where its time goes this
/// way (`PipelineResult.steps`); laps cost two clock reads each.
struct StepClock {
    let stage: String
    private(set) var steps: [StepTiming] = []
    private var wall = StageClock.wall(), cpu = StageClock.threadCPU()

    init(stage: String) { self.stage = stage }

    mutating func lap(_ step: String) {
        let wallNow = StageClock.wall(), cpuNow = StageClock.threadCPU()
        steps.append(StepTiming(stage: stage, step: step, wallSeconds: wallNow - wall, cpuSeconds: cpuNow - cpu))
        wall = wallNow
        cpu = cpuNow
    }
}
