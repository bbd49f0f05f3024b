import Dispatch
import Foundation
import Synchronization

/// Runs `work` for every index in `0..<count` on `jobs` threads and hands each result to
/// `deliver` on the calling thread, in index order, as soon as it and every result before it
/// are done.
///
/// Why: commands that print per input (`count`, `review`, `validate`, `synth`) must print the
/// same lines in the same order whatever the thread count, but should not wait for the whole
/// batch before the first line. Workers take indices in order; a result finished early waits
/// (it is small: the images stay in their workers) until the ones before it are delivered.
///
/// - Parameters:
///   - count: number of items.
///   - jobs: worker threads (at least 1; 1 runs every item on the calling thread).
///   - work: one item's work; called once per index, from any thread.
///   - deliver: called on the calling thread with each index and its result, in order.
func forEachInOrder<T: Sendable>(count: Int, jobs: Int, work: @escaping @Sendable (Int) -> T,
                                 deliver: (Int, T) -> Void) {
    guard count > 0 else { return }
    let workers = min(max(1, jobs), count)
    if workers == 1 {
        for index in 0..<count { deliver(index, work(index)) }
        return
    }
    let shared = InOrderState<T>()
    let finished = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    // A serial queue per worker targets Dispatch's overcommitting root queue, so each gets a
    // thread of its own: `jobs` items run at once even beyond the core count, as `cellqa run`'s
    // workers do (the global queue would run no more at once than there are cores).
    for worker in 0..<workers {
        DispatchQueue(label: "cellqa.in-order.\(worker)").async(group: group) {
            while true {
                let index = shared.next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < count else { return }
                let result = work(index)
                shared.finish(index, result)
                finished.signal()
            }
        }
    }
    var expected = 0
    while expected < count {
        finished.wait()
        // Every result up to the first gap, in order; later ones wait for their turn.
        while let result = shared.take(expected) {
            deliver(expected, result)
            expected += 1
        }
    }
    group.wait()
}

/// What `forEachInOrder`'s workers share: the next index to take and the results not yet
/// delivered. The results sit behind an `NSLock` rather than a `Mutex`: Thread Sanitizer
/// does not see `Mutex`'s futex and reports its every use as a race
/// (../shared/swift-linux-notes.md), which would bury a real one.
private final class InOrderState<T: Sendable>: @unchecked Sendable {
    let next = Atomic<Int>(0)
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var done: [Int: T] = [:]

    func finish(_ index: Int, _ result: T) {
        lock.lock()
        done[index] = result
        lock.unlock()
    }

    /// The result of `index` once it is done, removed; nil until then.
    func take(_ index: Int) -> T? {
        lock.lock()
        defer { lock.unlock() }
        return done.removeValue(forKey: index)
    }
}
