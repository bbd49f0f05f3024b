import Foundation
import Synchronization
import Vision

/// Progress on stderr. On a terminal: one bar redrawn in place with `\r` (done/total, rate,
/// ETA), at most every 0.1 s. Otherwise (CI logs): a plain line after the first fixture (so a
/// log shows the run is under way), then every `lineInterval` seconds, and at the end. Colour only on a terminal and when NO_COLOR is unset
/// (https://no-color.org).
public final class ConsoleProgress: ProgressSink {
    private struct State {
        var lastDraw = -Double.infinity
        var drewBar = false
    }
    private let interactive: Bool
    private let color: Bool
    private let lineInterval: Double
    private let start = StageClock.wall()
    private let state = Mutex(State())
    private let write: @Sendable (String) -> Void

    /// - Parameters:
    ///   - interactive: redraw a bar in place (stderr is a terminal).
    ///   - color: use ANSI colour (ignored when not interactive).
    ///   - lineInterval: seconds between plain lines when not interactive.
    ///   - write: where text goes (stderr by default).
    public init(interactive: Bool, color: Bool, lineInterval: Double = 5,
                write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.interactive = interactive
        self.color = color && interactive
        self.lineInterval = lineInterval
        self.write = write
    }

    /// Progress for this process's stderr: interactive when it is a TTY, coloured unless
    /// NO_COLOR is set (to anything).
    public static func forStandardError() -> ConsoleProgress {
        let tty = isatty(STDERR_FILENO) == 1
        return ConsoleProgress(interactive: tty, color: ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
    }

    public func fixtureFinished(done: Int, total: Int) {
        let now = StageClock.wall()
        let text: String? = state.withLock { s in
            let interval = interactive ? 0.1 : lineInterval
            guard now - s.lastDraw >= interval || done == total || done == 1 else { return nil }
            s.lastDraw = now
            s.drewBar = interactive
            return render(done: done, total: total, elapsed: now - start)
        }
        if let text { write(interactive ? "\r" + text + "\u{1B}[K" : text + "\n") }
    }

    public func runFinished(total: Int) {
        let drew = state.withLock { $0.drewBar }
        if interactive && drew { write("\n") }
    }

    /// "[#########.........]  45/100  12.3 fixtures/s  ETA 4s"
    func render(done: Int, total: Int, elapsed: Double) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let counts = "\(done)/\(total)  \(String(format: "%.1f", rate)) fixtures/s  ETA \(formatDuration(remaining))"
        guard interactive else { return "cellqa run: " + counts }
        let width = 30
        let filled = total > 0 ? min(width, done * width / total) : width
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let shownBar = color ? "\u{1B}[32m\(bar)\u{1B}[0m" : bar
        return "[\(shownBar)] " + counts
    }
}

/// "3s", "2m05s", "1h02m".
func formatDuration(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds >= 0 else { return "?" }
    let s = Int(seconds.rounded())
    if s < 60 { return "\(s)s" }
    if s < 3600 { return "\(s / 60)m" + String(format: "%02d", s % 60) + "s" }
    return "\(s / 3600)h" + String(format: "%02d", (s % 3600) / 60) + "m"
}
