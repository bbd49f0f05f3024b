import Foundation
import Vision

/// The measuring scaffolding the `cellqa bench` commands share: named series of samples in
/// first-seen order, timing of a closure, medians, and the peak-RSS reset.
struct BenchSamples {
    /// Series names in the order they were first recorded.
    private(set) var names: [String] = []
    private var series: [String: [Double]] = [:]

    /// Appends `value` to the series `name`.
    mutating func add(_ name: String, _ value: Double) {
        if series[name] == nil { names.append(name) }
        series[name, default: []].append(value)
    }

    /// Runs `body` once and records its wall time (monotonic clock) in milliseconds under `name`.
    mutating func time(_ name: String, _ body: () throws -> Void) rethrows {
        let start = StageClock.wall()
        try body()
        add(name, (StageClock.wall() - start) * 1000)
    }

    /// The samples of `name` (empty when none).
    func values(_ name: String) -> [Double] { series[name] ?? [] }

    /// The median of `name`'s samples (0 when none).
    func median(_ name: String) -> Double { BenchSamples.median(values(name)) }

    /// The median of `values` (mean of the middle two for an even count; 0 when empty).
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Resets the process's peak resident memory (VmHWM), so the next reading is the peak of
    /// what follows (Linux >= 4.0; ignored elsewhere).
    static func resetPeakRSS() {
        if let file = fopen("/proc/self/clear_refs", "w") {
            fputs("5", file)
            fclose(file)
        }
    }
}
