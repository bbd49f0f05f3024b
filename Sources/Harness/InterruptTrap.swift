import Dispatch
import Foundation
import Synchronization

/// While installed, SIGINT and SIGTERM no longer kill the process: the first one cancels
/// `cancellation` (the run stops starting fixtures and writes a partial report), a second
/// one ends the process at once with `_exit(128 + signal)`, writing nothing more.
///
/// Uses Dispatch signal sources: the signals' default action is set to ignore (so the kernel
/// does not kill the process) and Dispatch delivers them on its own queue, where ordinary
/// code may run (no async-signal-safety limits in the handler).
public final class InterruptTrap: @unchecked Sendable {
    // @unchecked: `sources` is written only in init and read in `remove`, both on the owner's
    // thread; the handlers touch only `received` (atomic) and Sendable captures.
    private var sources: [any DispatchSourceSignal] = []
    /// Each signal's disposition before the trap, restored by `remove`.
    private var previous: [(Int32, __sighandler_t?)] = []

    /// Signals received so far, shared with the handlers.
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// - Parameters:
    ///   - cancellation: cancelled with the first signal.
    ///   - signals: the signals to trap (default SIGINT and SIGTERM).
    ///   - notice: called once, on the signal queue, after the first signal (e.g. to tell the
    ///     user that a partial report is being written).
    public init(cancellation: RunCancellation, signals: [Int32] = [SIGINT, SIGTERM],
                notice: @escaping @Sendable (RunInterruption) -> Void = { _ in }) {
        let received = Counter()
        let queue = DispatchQueue(label: "cellqa.interrupt-trap")
        for number in signals {
            // Ignore first: between this call and the source's registration a signal would
            // otherwise take the default action (terminate).
            previous.append((number, signal(number, SIG_IGN)))
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // The handler holds its source until `cancel` (Dispatch then releases handlers).
            source.setEventHandler {
                // Dispatch coalesces signals that arrive before the handler runs: `data`
                // counts them.
                let arrived = max(1, Int(source.data))
                let total = received.value.wrappingAdd(arrived, ordering: .relaxed).newValue
                if total > 1 { _exit(128 + number) }
                let interruption = RunInterruption.bySignal(number)
                cancellation.cancel(interruption)
                notice(interruption)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops trapping: the signals get their previous disposition back.
    public func remove() {
        for source in sources { source.cancel() }
        sources.removeAll()
        for (number, handler) in previous { signal(number, handler) }
        previous.removeAll()
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
