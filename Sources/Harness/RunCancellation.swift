import Foundation
import Synchronization
import Vision

/// Why a run stopped before every selected fixture finished.
public struct RunInterruption: Sendable, Equatable {
    /// The signal number (SIGINT 2, SIGTERM 15); 0 when the run was cancelled by code.
    public var signal: Int32
    /// "SIGINT", "SIGTERM", or "cancelled".
    public var name: String

    public init(signal: Int32, name: String) {
        self.signal = signal
        self.name = name
    }

    /// An interruption by a signal, named the usual way.
    public static func bySignal(_ signal: Int32) -> RunInterruption {
        let names: [Int32: String] = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT"]
        return RunInterruption(signal: signal, name: names[signal] ?? "signal \(signal)")
    }

    /// The shell convention for a process ended by a signal: 128 + the signal number (130 for
    /// SIGINT, 143 for SIGTERM); 1 for a cancellation that was not a signal.
    public var exitCode: Int32 { signal > 0 ? 128 + signal : 1 }
}

/// A run's stop request, shared by whoever cancels (a signal handler) and the runner.
///
/// After `cancel`, the runner starts no new fixture; fixtures already running may finish
/// during `grace` seconds, then they are stopped at their next stage boundary or, if a
/// stage does not return, abandoned (left to finish in the background, result discarded).
public final class RunCancellation: Sendable {
    private struct State {
        var interruption: RunInterruption?
        /// StageClock.wall() at which running fixtures are abandoned.
        var abandonAt = Double.infinity
    }
    private let state = Mutex(State())
    /// Seconds in-flight fixtures may still take after the request.
    public let grace: Double

    /// - Parameter grace: seconds fixtures already running may take to finish after `cancel`
    ///   (default 1.5 s: the "within a second or two").
    public init(grace: Double = 1.5) {
        self.grace = max(0, grace)
    }

    /// Requests the stop. Only the first request counts.
    public func cancel(_ interruption: RunInterruption) {
        let now = StageClock.wall()
        state.withLock { s in
            guard s.interruption == nil else { return }
            s.interruption = interruption
            s.abandonAt = now + grace
        }
    }

    /// The first request, or nil while the run may go on.
    public var interruption: RunInterruption? { state.withLock { $0.interruption } }
    public var isCancelled: Bool { interruption != nil }

    /// Whether fixtures still running must stop now (cancelled, and the grace period is over).
    public func mustAbandon(now: Double = StageClock.wall()) -> Bool {
        state.withLock { now >= $0.abandonAt }
    }
}

/// Why a fixture's work has to stop; checked before decoding and between pipeline stages.
struct FixtureStopCheck: Sendable {
    enum Reason: Equatable {
        case timeLimit(seconds: Double)
        case interrupted
    }
    /// StageClock.wall() deadline; nil without a time limit.
    var deadline: Double? = nil
    var limitSeconds: Double = 0
    var cancellation: RunCancellation? = nil

    func reason(now: Double = StageClock.wall()) -> Reason? {
        if let deadline, now >= deadline { return .timeLimit(seconds: limitSeconds) }
        if let cancellation, cancellation.mustAbandon(now: now) { return .interrupted }
        return nil
    }
}

extension FixtureStopCheck.Reason {
    /// The error text of a fixture stopped by this reason.
    var message: String {
        switch self {
        case .timeLimit(let seconds): return "time limit of \(formatSeconds(seconds)) s exceeded"
        case .interrupted: return "interrupted"
        }
    }
}

/// "300", "0.5", "0.001": seconds as typed, without trailing zeros.
func formatSeconds(_ seconds: Double) -> String {
    if seconds == seconds.rounded(), abs(seconds) < 1e15 { return String(Int64(seconds)) }
    return String(format: "%g", seconds)
}
