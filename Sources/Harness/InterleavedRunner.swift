import Dispatch
import Synchronization
import Vision

/// Runs several pipeline versions over the same fixtures in one process, interleaved fixture
/// by fixture: a worker takes a fixture and runs every version on it back to back (the first
/// version rotating with the fixture index, so no version always runs first on a warm cache).
/// Machine noise — other processes, thermal state — then hits all versions alike, which is
/// what makes their timings comparable.
/// - Returns: one `RunResult` per pipeline, outcomes in fixture order.
public func runInterleaved(_ fixtures: [RunFixture], pipelines: [Pipeline], settings: RunSettings,
                           progress: (any ProgressSink)? = nil) -> [RunResult] {
    let versions = pipelines.count
    guard versions > 0 else { return [] }
    let slots = Mutex([[FixtureOutcome?]](repeating: [FixtureOutcome?](repeating: nil, count: fixtures.count), count: versions))
    let next = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let runStart = StageClock.wall()
    let workers = min(settings.jobs, max(1, fixtures.count))
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            if index >= fixtures.count { break }
            for step in 0..<versions {
                let v = (index + step) % versions
                let outcome = runFixture(fixtures[index], pipeline: pipelines[v], settings: settings, worker: worker,
                                         runStart: runStart)
                slots.withLock { $0[v][index] = outcome }
            }
            let finished = done.wrappingAdd(1, ordering: .relaxed).newValue
            progress?.fixtureFinished(done: finished, total: fixtures.count)
        }
    }
    let wall = StageClock.wall() - runStart
    progress?.runFinished(total: fixtures.count)
    let rss = peakResidentBytes()
    return slots.withLock { all in
        all.map { perVersion in
            let outcomes = perVersion.enumerated().map { index, slot in
                slot ?? FixtureOutcome(fixture: fixtures[index], status: .errored, error: "internal: fixture was not run")
            }
            // Versions share the wall time: they ran together.
            return RunResult(outcomes: outcomes, wallSeconds: wall, jobs: workers, repeats: settings.repeats, peakRSSBytes: rss)
        }
    }
}
