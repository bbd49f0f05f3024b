/// Wins, losses and ties of a candidate against the reference over paired fixtures.
public struct WinLossTally: Sendable, Equatable {
    public var wins = 0
    public var losses = 0
    public var ties = 0
    /// Exact two-sided sign test over the untied fixtures (`SignTest.pValue`).
    public var signTestP: Double { SignTest.pValue(wins: wins, losses: losses) }
}

/// How one fixture changed between two versions.
public struct FixtureChange: Sendable, Equatable {
    public var path: String
    public var tags: [String]
    public var referenceF1: Double
    public var candidateF1: Double
    public var referenceCountError: Double?
    public var candidateCountError: Double?
    /// Where each version placed the view in the chamber against the label (nil where not compared).
    public var referencePlacement: RegistrationComparison? = nil
    public var candidatePlacement: RegistrationComparison? = nil
    public var f1Change: Double { candidateF1 - referenceF1 }
    /// One version places the view within `RegistrationComparison.toleranceUm` of the label's
    /// placement and the other not (the placement crossed it).
    public var placementCrossed: Bool {
        guard let a = referencePlacement, let b = candidatePlacement else { return false }
        return a.isMisplaced != b.isMisplaced
    }
    public var countErrorChange: Double? {
        guard let a = referenceCountError, let b = candidateCountError else { return nil }
        return b - a
    }
    /// How much the fixture changed: |ΔF1| + |Δ relative count error|.
    public var magnitude: Double { f1Change.magnitude + (countErrorChange?.magnitude ?? 0) }
    /// Worth listing: its scores moved, or its grid moved onto or off the label's placement
    /// (which changes the squares counted, and so the concentration, before any score).
    public var isChanged: Bool { magnitude > 0 || placementCrossed }
}

/// One version compared with the reference (the first version): the baseline-style verdicts
/// (metrics with intervals, stage timings, per-tag rows), per-fixture tallies and a sign test.
public struct VersionComparison: Sendable, Equatable {
    public var reference: String
    public var candidate: String
    public var comparison: BaselineComparison
    /// On per-fixture F1 (higher wins) and relative count error (lower wins).
    public var f1: WinLossTally
    public var countError: WinLossTally
    /// Paired fixtures, most changed first (ties broken by path).
    public var changes: [FixtureChange]
    /// Paired fixtures each version placed more than `RegistrationComparison.toleranceUm` off,
    /// of those whose placement both versions compared (nil when none was).
    public var misplaced: (reference: Int, candidate: Int, compared: Int)? {
        let both = changes.filter { $0.referencePlacement != nil && $0.candidatePlacement != nil }
        guard !both.isEmpty else { return nil }
        let reference = RegistrationComparison.tally(both.compactMap(\.referencePlacement))
        let candidate = RegistrationComparison.tally(both.compactMap(\.candidatePlacement))
        return (reference.misplaced, candidate.misplaced, both.count)
    }
}

/// Compares each of `versions[1...]` with `versions[0]`.
///
/// Every tag present in the paired fixtures gets per-tag rows (precision, recall, F1, count
/// error with the global tolerances) unless the policy already lists it. Per-fixture values
/// within `tieTolerance` count as ties.
/// - Throws: `BaselineMismatchError` when dataset content hashes differ (unless allowed).
public func compareVersions(_ versions: [RunSnapshot], policy: BaselinePolicy, compareTimings: Bool? = nil,
                            allowDatasetChange: Bool = false,
                            tieTolerance: Double = 1e-9) throws(BaselineMismatchError) -> [VersionComparison] {
    guard let reference = versions.first else { return [] }
    var results: [VersionComparison] = []
    for candidate in versions.dropFirst() {
        var tagPolicy = policy
        let listed = Set(policy.tagTolerances.map(\.tag))
        let tags = Set(reference.fixtures.flatMap(\.tags)).union(candidate.fixtures.flatMap(\.tags)).subtracting(listed)
        let perTag: [ComparedMetric: Tolerance] = Dictionary(uniqueKeysWithValues: [ComparedMetric.precision, .recall, .f1, .countError]
            .map { ($0, policy.tolerance($0)) })
        tagPolicy.tagTolerances = (policy.tagTolerances + tags.map { (tag: $0, tolerances: perTag) }).sorted { $0.tag < $1.tag }
        let comparison = try compareWithBaseline(reference, candidate, policy: tagPolicy, compareTimings: compareTimings,
                                                 allowDatasetChange: allowDatasetChange)
        let byPath = Dictionary(candidate.fixtures.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        var f1 = WinLossTally(), count = WinLossTally()
        var changes: [FixtureChange] = []
        for a in reference.fixtures where a.isScored {
            guard let b = byPath[a.path], b.isScored else { continue }
            let change = FixtureChange(path: a.path, tags: a.tags, referenceF1: a.f1, candidateF1: b.f1,
                                       referenceCountError: a.absRelCountError, candidateCountError: b.absRelCountError,
                                       referencePlacement: a.registration, candidatePlacement: b.registration)
            tally(&f1, change.f1Change, tieTolerance)
            if let d = change.countErrorChange { tally(&count, -d, tieTolerance) }
            changes.append(change)
        }
        changes.sort { x, y in
            x.magnitude != y.magnitude ? x.magnitude > y.magnitude : Array(x.path.utf8).lexicographicallyPrecedes(Array(y.path.utf8))
        }
        results.append(VersionComparison(reference: reference.source, candidate: candidate.source, comparison: comparison,
                                         f1: f1, countError: count, changes: changes))
    }
    return results
}

/// Counts `gain` (positive = the candidate is better) as a win, loss or tie.
private func tally(_ t: inout WinLossTally, _ gain: Double, _ tie: Double) {
    if gain > tie { t.wins += 1 } else if gain < -tie { t.losses += 1 } else { t.ties += 1 }
}
