import Testing
@testable import Harness

@Suite("Statistics")
struct StatisticsTests {
    func close(_ a: Double?, _ b: Double, _ tol: Double = 1e-9) -> Bool {
        guard let a else { return false }
        return (a - b).magnitude <= tol
    }

    @Test func meanMedianPercentiles() {
        #expect(Statistics.mean([]) == nil && Statistics.median([]) == nil)
        #expect(Statistics.mean([1, 2, 3, 6]) == 3)
        #expect(Statistics.median([5, 1, 3]) == 3)
        #expect(Statistics.median([4, 1, 3, 2]) == 2.5)
        // numpy.percentile([3,1,4,1,5,9,2,6], [0,10,25,50,90,99,100]) (linear):
        let sorted = [3.0, 1, 4, 1, 5, 9, 2, 6].sorted()
        let expected: [(Double, Double)] = [(0, 1), (10, 1), (25, 1.75), (50, 3.5), (90, 6.9), (99, 8.79), (100, 9)]
        for (p, v) in expected { #expect(close(Statistics.percentile(sorted: sorted, p), v)) }
        #expect(Statistics.percentile(sorted: [7], 90) == 7)
        #expect(Statistics.percentile(sorted: [], 50) == nil)
    }

    @Test func summary() throws {
        let s = try #require(SampleSummary([4, 1, 3, 2]))
        #expect(s.count == 4 && s.min == 1 && s.max == 4 && s.mean == 2.5 && s.median == 2.5 && s.sum == 10)
        #expect(close(s.p90, 3.7))
        #expect(SampleSummary([]) == nil)
    }

    @Test func madAndRobustZ() {
        // x = [1, 2, 3, 4, 100]: median 3, MAD 1.
        let x: [Double] = [1, 2, 3, 4, 100]
        #expect(Statistics.medianAbsoluteDeviation(x) == 1)
        let z = Statistics.robustZScores(x)
        for (a, b) in zip(z, [-1.349, -0.6745, 0, 0.6745, 65.4265]) { #expect(close(a, b)) }
        #expect(Statistics.outlierIndices(x) == [4])
        #expect(Statistics.outlierIndices(x, cut: 1) == [0, 4])
        // MAD 0 -> every z is 0, no outliers.
        #expect(Statistics.robustZScores([5, 5, 5, 9]) == [0, 0, 0, 0])
        #expect(Statistics.outlierIndices([5, 5, 5, 900]).isEmpty)
        #expect(Statistics.robustZScores([]).isEmpty)
    }

    @Test func mannWhitneyMatchesScipy() throws {
        // scipy.stats.mannwhitneyu(x, y, method="asymptotic", use_continuity=True)
        let a = try #require(MannWhitney.test([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]))
        #expect(a.u == 0 && close(a.z, -2.5067182457620487) && close(a.pValue, 0.012185780355344818))
        let b = try #require(MannWhitney.test([1, 2, 2, 3], [2, 3, 4, 5]))
        #expect(b.u == 2.5 && close(b.pValue, 0.1366582477381475))
        let c = try #require(MannWhitney.test([1.5, 2.5, 2.5, 4, 7, 7], [2.5, 3, 7, 9, 9, 10, 11]))
        #expect(c.u == 8 && close(c.pValue, 0.07057406795683314))
        let same = try #require(MannWhitney.test([3, 3, 3], [3, 3]))
        #expect(same.z == 0 && same.pValue == 1)
        #expect(MannWhitney.test([], [1]) == nil)
    }

    @Test func seededGeneratorIsDeterministicAndUniform() {
        var a = SplitMix64(seed: 1), b = SplitMix64(seed: 1)
        #expect((0..<10).map { _ in a.next() } == (0..<10).map { _ in b.next() })
        // First SplitMix64 output for seed 0 (reference implementation): 0xE220A8397B1DCDAF.
        var zero = SplitMix64(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
        var r = SplitMix64(seed: 9)
        var histogram = [Int](repeating: 0, count: 5)
        for _ in 0..<50_000 { histogram[r.nextIndex(below: 5)] += 1 }
        #expect(histogram.allSatisfy { abs($0 - 10_000) < 400 })
    }

    @Test func pairedBootstrap() throws {
        // b = a + 1 exactly: every resample's difference is 1, so the interval is [1, 1].
        let a: [Double] = (0..<30).map { Double($0 % 7) }
        let shifted = a.map { $0 + 1 }
        let exact = try #require(Bootstrap.pairedMeanDifference(a, shifted))
        #expect(exact.estimate == 1 && exact.lower == 1 && exact.upper == 1 && exact.resamples == 2000)
        // Noisy differences centred near 0.5: the interval contains the estimate and is
        // reproducible for a seed, different for another.
        var rng = SplitMix64(seed: 5)
        let noisy = a.map { $0 + 0.5 + Double(rng.nextIndex(below: 1000)) / 1000 - 0.5 }
        let i1 = try #require(Bootstrap.pairedMeanDifference(a, noisy, seed: 11))
        let i2 = try #require(Bootstrap.pairedMeanDifference(a, noisy, seed: 11))
        let i3 = try #require(Bootstrap.pairedMeanDifference(a, noisy, seed: 12))
        #expect(i1 == i2 && i1 != i3)
        #expect(i1.lower < i1.estimate && i1.estimate < i1.upper)
        #expect(i1.lower > 0.3 && i1.upper < 0.7)
        #expect(Bootstrap.pairedMeanDifference([1], [1, 2]) == nil)
        #expect(Bootstrap.pairedMeanDifference([], []) == nil)
    }
}
