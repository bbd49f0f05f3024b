import Dispatch
import Foundation
import Synchronization
import Vision

/// How one supervised work item ended, as its own code saw it.
enum WorkEnd<T: Sendable>: Sendable {
    case finished(T)
    /// Stopped at a stage boundary because the run was interrupted: not a result.
    case interrupted
}

/// One item's work in flight; the worker queue fills `end`, the supervisor polls it.
private final class SupervisedJob<T: Sendable>: Sendable {
    let index: Int
    let check: FixtureStopCheck
    let end = Mutex<WorkEnd<T>?>(nil)
    init(index: Int, check: FixtureStopCheck) {
        self.index = index
        self.check = check
    }
}

/// Runs `work` for items `0..<count` on `workers` worker queues and watches every item from
/// the calling thread:
/// - at most `workers` items run at once (memory: about `workers` images alive), each on its
///   worker's serial queue, taken in index order;
/// - at its deadline (`timeLimit` seconds after it started) an item's own stop check ends it
///   at the next stage boundary (its work records the error). One that is still running
///   `abandonSlack` seconds later (a stage that does not return) is recorded as
///   `timedOut(index, check)` and its worker gets a fresh queue: the old work is left to run
///   on and its result is discarded. Until it ends, it uses one more core and holds its image;
/// - after `cancellation` is cancelled no item starts; running items may finish during the
///   grace period, then they are abandoned the same way and left out (not finished).
///
/// - Parameters:
///   - count: number of items.
///   - workers: concurrent items (>= 1).
///   - timeLimit: seconds per item, or nil for none.
///   - abandonSlack: seconds past the deadline before a still-running item is abandoned.
///   - work: the item's work on a worker queue: `(index, worker, check)`; it should consult
///     `check` between steps and return `.interrupted` when told the run is interrupted.
///   - timedOut: the record of an item abandoned at its time limit (called on this thread).
///   - finished: called on this thread after each recorded item with the number recorded so
///     far (for progress).
/// - Returns: one slot per item: its record, or nil when it was never started or was
///   abandoned because of the interruption.
func superviseItems<T: Sendable>(count: Int, workers requested: Int, timeLimit: Double?,
                                 abandonSlack: Double = 1.0, cancellation: RunCancellation?,
                                 work: @escaping @Sendable (Int, Int, FixtureStopCheck) -> WorkEnd<T>,
                                 timedOut: (Int, FixtureStopCheck) -> T,
                                 finished: (Int) -> Void) -> [T?] {
    let workers = max(1, requested)
    var results = [T?](repeating: nil, count: count)
    let wake = DispatchSemaphore(value: 0)
    // Serial queues target Dispatch's overcommitting root queue: each gets a thread even
    // when another worker's abandoned work still occupies one.
    func makeQueue(_ worker: Int) -> DispatchQueue { DispatchQueue(label: "cellqa.worker.\(worker)") }
    var queues = (0..<workers).map(makeQueue)
    var running = [SupervisedJob<T>?](repeating: nil, count: workers)
    var next = 0
    var recorded = 0
    func record(_ index: Int, _ value: T) {
        results[index] = value
        recorded += 1
        finished(recorded)
    }
    while true {
        if cancellation?.isCancelled != true {
            for worker in 0..<workers where running[worker] == nil && next < count {
                let deadline = timeLimit.map { StageClock.wall() + $0 }
                let job = SupervisedJob<T>(index: next, check: FixtureStopCheck(
                    deadline: deadline, limitSeconds: timeLimit ?? 0, cancellation: cancellation))
                running[worker] = job
                next += 1
                queues[worker].async {
                    let end = work(job.index, worker, job.check)
                    job.end.withLock { $0 = end }
                    wake.signal()
                }
            }
        }
        if running.allSatisfy({ $0 == nil }) { break }
        // The timeout bounds how late a deadline or the end of the grace period is noticed.
        _ = wake.wait(timeout: .now() + .milliseconds(20))
        let now = StageClock.wall()
        for worker in 0..<workers {
            guard let job = running[worker] else { continue }
            if let end = job.end.withLock({ $0 }) {
                running[worker] = nil
                if case .finished(let value) = end { record(job.index, value) }
            } else if let deadline = job.check.deadline, now >= deadline + abandonSlack {
                running[worker] = nil
                queues[worker] = makeQueue(worker)
                record(job.index, timedOut(job.index, job.check))
            } else if let cancellation, cancellation.mustAbandon(now: now) {
                running[worker] = nil
                queues[worker] = makeQueue(worker)
            }
        }
    }
    return results
}
