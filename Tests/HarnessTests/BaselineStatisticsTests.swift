import Testing
@testable import Harness

/// Expected values computed independently with scipy 1.x / numpy (a Python port of SplitMix64
/// and Lemire's bounded draw reproduces the resampling indices; see the test comments).
@Suite struct BaselineStatisticsTests {
    @Test func signTestMatchesScipyBinomtest() {
        // scipy.stats.binomtest(w, w + l, 0.5).pvalue
        let cases: [(Int, Int, Double)] = [(7, 1, 0.0703125), (10, 10, 1.0), (0, 5, 0.0625),
                                           (30, 12, 0.007915897334896727), (3, 0, 0.25)]
        for (w, l, p) in cases {
            #expect(abs(SignTest.pValue(wins: w, losses: l) - p) < 1e-12, "\(w)/\(l)")
            #expect(abs(SignTest.pValue(wins: l, losses: w) - p) < 1e-12, "symmetric \(l)/\(w)")
        }
        #expect(SignTest.pValue(wins: 0, losses: 0) == 1)
        // Large counts stay finite (log space): 600 vs 400 is far from fair.
        let big = SignTest.pValue(wins: 600, losses: 400)
        #expect(big > 0 && big < 1e-9)
    }

    @Test func mannWhitneyWithTiesMatchesScipy() throws {
        // mannwhitneyu(x, y, method="asymptotic", use_continuity=True): U 15, p 0.41895695524741705
        let r = try #require(MannWhitney.test([1.2, 3.4, 3.4, 5.0, 2.2, 7.1, 3.4], [2.0, 3.4, 8.8, 9.1, 4.4, 3.4]))
        #expect(r.u == 15)
        #expect(abs(r.pValue - 0.41895695524741705) < 1e-9)
    }

    @Test func pairedBootstrapOfMicroPrecisionMatchesIndependentComputation() throws {
        // Eight fixtures; micro precision = sum TP / sum (TP + FP) over each resample of fixtures.
        let tpA = [10, 8, 12, 5, 9, 11, 7, 6], fpA = [1, 0, 2, 1, 0, 1, 3, 0]
        let tpB = [9, 8, 10, 5, 7, 11, 6, 6], fpB = [1, 1, 2, 0, 0, 1, 3, 1]
        let a = (0..<8).map { FixtureRecord(path: "f\($0)", status: .scored, detection: DetectionCounts(tp: tpA[$0], fp: fpA[$0], fn: 0)) }
        let b = (0..<8).map { FixtureRecord(path: "f\($0)", status: .scored, detection: DetectionCounts(tp: tpB[$0], fp: fpB[$0], fn: 0)) }
        let result = try #require(Bootstrap.intervalSkippingUndefined(sampleCount: 8, resamples: 2000, confidence: 0.95, seed: 0x5EED) { idx in
            guard let x = ComparedMetric.precision.value(a, indices: idx), let y = ComparedMetric.precision.value(b, indices: idx) else { return nil }
            return y - x
        })
        // numpy: np.percentile(diffs, [2.5, 97.5]) over the same 2000 resamples.
        #expect(abs(result.interval.estimate - -0.021497405485544907) < 1e-12)
        #expect(abs(result.interval.lower - -0.06056166056166057) < 1e-12)
        #expect(abs(result.interval.upper - 0.023765433548403214) < 1e-12)
        #expect(result.skipped == 0)
        #expect(result.interval.resamples == 2000)
    }

    @Test func bootstrapSkipsUndefinedResamplesAndIsDeterministic() throws {
        // Half the units leave the statistic undefined on their own.
        let values: [Double?] = [1, nil, 3, nil, 5, nil]
        let stat: ([Int]) -> Double? = { idx in
            let defined = idx.compactMap { values[$0] }
            return defined.isEmpty ? nil : defined.reduce(0, +) / Double(defined.count)
        }
        let r1 = try #require(Bootstrap.intervalSkippingUndefined(sampleCount: 6, resamples: 3000, seed: 7, statistic: stat))
        let r2 = try #require(Bootstrap.intervalSkippingUndefined(sampleCount: 6, resamples: 3000, seed: 7, statistic: stat))
        #expect(r1.interval == r2.interval)
        #expect(r1.interval.estimate == 3)
        #expect(r1.interval.lower >= 1 && r1.interval.upper <= 5)
        #expect(r1.skipped > 0 && r1.skipped < 3000, "P(no defined unit among 6 draws) = 1/64")
        #expect(Bootstrap.intervalSkippingUndefined(sampleCount: 3, statistic: { _ in nil }) == nil)
    }

    @Test func metricsFromCounts() {
        let r = [FixtureRecord(path: "a", status: .scored, detection: DetectionCounts(tp: 8, fp: 2, fn: 2), predicted: 10, labelled: 10,
                               classKnown: 8, classCorrect: 6),
                 FixtureRecord(path: "b", status: .scored, detection: DetectionCounts(tp: 0, fp: 1, fn: 0), predicted: 1, labelled: 0,
                               blankDetections: 1)]
        #expect(ComparedMetric.precision.value(r, indices: [0, 1]) == 8.0 / 11)
        #expect(ComparedMetric.recall.value(r, indices: [0, 1]) == 0.8)
        #expect(ComparedMetric.f1.value(r, indices: [0, 1]) == 16.0 / 21)
        #expect(ComparedMetric.countError.value(r, indices: [0, 1]) == 0)
        #expect(ComparedMetric.liveDeadAccuracy.value(r, indices: [0, 0]) == 0.75)
        #expect(ComparedMetric.blankDetections.value(r, indices: [1, 1, 0]) == 1)
        #expect(ComparedMetric.blankDetections.value(r, indices: [0]) == nil)
        #expect(ComparedMetric.recall.value(r, indices: [1]) == nil)
    }
}
