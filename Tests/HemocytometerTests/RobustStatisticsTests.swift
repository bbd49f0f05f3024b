import Testing
@testable import Hemocytometer

@Suite("Robust statistics and MAD rule")
struct RobustStatisticsTests {
    @Test func medianOddEvenEmpty() {
        #expect(RobustStatistics.median([3, 1, 2]) == 2)
        #expect(RobustStatistics.median([4, 1, 3, 2]) == 2.5)
        #expect(RobustStatistics.median([7]) == 7)
        #expect(RobustStatistics.median([]) == nil)
    }

    @Test func madKnownValues() {
        // median 2, deviations 1 1 0 0 2 4 7 -> sorted 0 0 1 1 2 4 7 -> MAD 1
        #expect(RobustStatistics.medianAbsoluteDeviation([1, 1, 2, 2, 4, 6, 9]) == 1)
        // even count: median 25, deviations 15 5 5 15 -> MAD 10
        #expect(RobustStatistics.medianAbsoluteDeviation([10, 20, 30, 40]) == 10)
    }

    @Test func robustZKnownValues() throws {
        let z = RobustStatistics.robustZScores([1, 1, 2, 2, 4, 6, 9])
        try #require(z.count == 7)
        #expect(abs(z[6] - 0.6745 * 7) < 1e-12)
        #expect(abs(z[0] + 0.6745) < 1e-12)
        #expect(z[2] == 0)
    }

    @Test("rejects the outlier square and keeps the rest")
    func rejectsOutlier() {
        let verdicts = MADOutlierRule(cut: 2.5).evaluate([50, 52, 48, 150])
        // median 51, deviations 1 1 3 99 -> MAD 2; z(150) = 0.6745 * 99 / 2 = 33.4
        #expect(verdicts.map(\.rejected) == [false, false, false, true])
        #expect(abs(verdicts[3].z - 0.6745 * 99 / 2) < 1e-12)
    }

    @Test("MAD 0 keeps every value")
    func madZeroKeepsAll() {
        let verdicts = MADOutlierRule().evaluate([10, 10, 10, 500])
        #expect(verdicts.allSatisfy { !$0.rejected && $0.z == 0 })
    }

    @Test("the cut is strict: |z| equal to the cut is kept")
    func cutIsStrict() {
        // median 0, MAD 1 for [-1, 0, 0, 1, x] with x chosen so z = 0.6745 * x = cut.
        let cut = 0.6745 * 4
        let verdicts = MADOutlierRule(cut: cut).evaluate([-1, 0, 0, 1, 4])
        #expect(verdicts[4].rejected == false)
        #expect(MADOutlierRule(cut: cut - 1e-9).evaluate([-1, 0, 0, 1, 4])[4].rejected)
    }
}
