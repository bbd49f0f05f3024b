import Vision

/// Timing statistics of one stage over a run, in milliseconds.
public struct StageStatistics: Sendable, Equatable {
    public var name: String
    public var wallMs: SampleSummary
    public var cpuMs: SampleSummary
    /// This stage's share of the summed wall time of all stages (decode included); 1 for the
    /// "total" row.
    public var share: Double

    public func summary(_ clock: TimingClock) -> SampleSummary { clock == .wall ? wallMs : cpuMs }

    /// Name of the row that sums every stage of one fixture run.
    public static let totalName = "total"
}

/// Per-stage statistics over timing samples; each sample is one run of one fixture (decode
/// plus every pipeline stage). Stages appear in first-seen order, then a "total" row whose
/// samples are the per-run sums. Empty input gives no rows.
public func stageStatistics(samples: [[StageTiming]]) -> [StageStatistics] {
    var order: [String] = []
    var wall: [String: [Double]] = [:]
    var cpu: [String: [Double]] = [:]
    var totalWall: [Double] = []
    var totalCPU: [Double] = []
    for sample in samples where !sample.isEmpty {
        var w = 0.0, c = 0.0
        for timing in sample {
            if wall[timing.name] == nil { order.append(timing.name) }
            wall[timing.name, default: []].append(timing.wallSeconds * 1000)
            cpu[timing.name, default: []].append(timing.cpuSeconds * 1000)
            w += timing.wallSeconds
            c += timing.cpuSeconds
        }
        totalWall.append(w * 1000)
        totalCPU.append(c * 1000)
    }
    let grandWall = totalWall.reduce(0, +)
    var rows: [StageStatistics] = []
    for name in order {
        guard let w = SampleSummary(wall[name] ?? []), let c = SampleSummary(cpu[name] ?? []) else { continue }
        rows.append(StageStatistics(name: name, wallMs: w, cpuMs: c, share: grandWall > 0 ? w.sum / grandWall : 0))
    }
    if let w = SampleSummary(totalWall), let c = SampleSummary(totalCPU) {
        rows.append(StageStatistics(name: StageStatistics.totalName, wallMs: w, cpuMs: c, share: 1))
    }
    return rows
}
