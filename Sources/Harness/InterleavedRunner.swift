import Dispatch
import Vision

/// Runs several pipeline versions over the same fixtures in one process, interleaved fixture
/// by fixture and repeat by repeat: a worker takes a fixture and runs every version on it
/// once, back to back, then again for each further repeat (the first version rotating with
/// the fixture index and the repeat, so no version always runs first on a warm cache).
/// Machine noise — other processes, thermal state — then hits all versions alike, which is
/// what makes their timings comparable. (With each version's repeats back to back, a burst of
/// load a few hundred milliseconds long could land on one version's samples of a fixture
/// alone: an identical re-run under AddressSanitizer once showed a stage 10.5 % slower at
/// p 0.0003.)
///
/// The fixture time limit (`settings.fixtureTimeLimit`) covers all versions of a fixture (it
/// is multiplied by the number of versions and repeats). With `cancellation`, a cancelled run
/// starts no more fixtures and each result holds the fixtures every version finished.
/// - Returns: one `RunResult` per pipeline, outcomes in fixture order.
public func runInterleaved(_ fixtures: [RunFixture], pipelines: [Pipeline], settings: RunSettings,
                           progress: (any ProgressSink)? = nil, cancellation: RunCancellation? = nil) -> [RunResult] {
    let versions = pipelines.count
    guard versions > 0 else { return [] }
    let runStart = StageClock.wall()
    let workers = min(settings.jobs, max(1, fixtures.count))
    let slots: [[FixtureOutcome]?] = superviseItems(
        count: fixtures.count, workers: workers,
        timeLimit: settings.fixtureTimeLimit.map { $0 * Double(settings.repeats * versions) },
        cancellation: cancellation,
        work: { index, worker, check in
            var perVersion = [FixtureOutcome?](repeating: nil, count: versions)
            var once = settings
            once.repeats = 1
            for repeatIndex in 0..<settings.repeats {
                for step in 0..<versions {
                    let v = (index + repeatIndex + step) % versions
                    // A version that failed on this fixture is not run again.
                    if perVersion[v]?.error != nil { continue }
                    guard let outcome = runFixture(fixtures[index], pipeline: pipelines[v], settings: once, worker: worker,
                                                   runStart: runStart, check: check) else { return .interrupted }
                    guard var earlier = perVersion[v] else {
                        perVersion[v] = outcome
                        continue
                    }
                    // Later repeats add timings only (`FixtureOutcome.result` is the first's). One
                    // that fails leaves the outcome errored and unscored, as `runFixture` does
                    // when a repeat fails.
                    if let error = outcome.error {
                        earlier.status = outcome.status
                        earlier.error = error
                        earlier.score = nil
                        earlier.truth = nil
                    } else {
                        earlier.samples += outcome.samples
                        earlier.stepSamples += outcome.stepSamples
                        earlier.spans += outcome.spans
                    }
                    perVersion[v] = earlier
                }
            }
            return .finished(perVersion.compactMap { $0 })
        },
        timedOut: { index, check in
            [FixtureOutcome](repeating: timedOutOutcome(fixtures[index], check: check), count: versions)
        },
        finished: { done in progress?.fixtureFinished(done: done, total: fixtures.count) })
    let wall = StageClock.wall() - runStart
    progress?.runFinished(total: fixtures.count)
    let rss = peakResidentBytes()
    releaseWorkersMemory()
    let interruption = slots.contains { $0 == nil } ? cancellation?.interruption : nil
    let finished = slots.compactMap { $0 }
    return (0..<versions).map { v in
        // Versions share the wall time: they ran together.
        RunResult(outcomes: finished.map { $0[v] }, wallSeconds: wall, jobs: workers, repeats: settings.repeats,
                  peakRSSBytes: rss, selectedCount: fixtures.count, interruption: interruption)
    }
}
