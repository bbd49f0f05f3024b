import Testing
@testable import Vision

/// The run finder that splits a row or column of the projection into runs of one bin must give
/// the runs a test of every pixel gives: it trusts the line only clear of a bin's edge, and
/// the profile, and the grid found from it, may not depend on that shortcut.
@Suite("Projection runs")
struct ProjectionRunTests {
    typealias Run = (value: Int, start: Int, end: Int)

    /// Bins as `ProjectionLayout.accumulate` computes them: `Int(base + Float(i) * slope)`,
    /// clamped to 0 ... top.
    static func runs(count n: Int, top: Int, base: Float, slope: Float, scan: Bool) -> [Run] {
        let error = 2 * Double(Float(top + 3).ulp)
        let value = { (i: Int) in min(top, max(0, Int(base + Float(i) * slope))) }
        var out: [Run] = []
        if scan {
            guard n > 0 else { return out }
            var a = 0, c = value(0)
            for i in 1..<max(1, n) where value(i) != c {
                out.append((c, a, i))
                a = i
                c = value(i)
            }
            out.append((c, a, n))
        } else {
            forEachRun(count: n, top: top, start: Double(base), slope: Double(slope), error: error, value) {
                out.append(($0, $1, $2))
            }
        }
        return out
    }

    @Test func runFinderGivesTheRunsOfEveryPixel() {
        var sequence = TestSequence(state: 44)
        var cases: [(n: Int, top: Int, base: Float, slope: Float)] = [
            (1, 0, 0, 0), (1, 5, 2.5, 0.7), (40, 60, 0, 0), (40, 60, 10, 0.70710677), (40, 60, 59.5, -0.70710677),
            (300, 200, -20, 0.9), (300, 200, 230, -0.9), (97, 96, 0, 1), (97, 96, 96, -1), (500, 300, 3, 0.001),
        ]
        for _ in 0..<2000 {
            let n = 1 + Int(sequence.next() * 600), top = Int(sequence.next() * 900)
            let slope = Float((sequence.next() * 2 - 1) * (sequence.next() < 0.2 ? 0.05 : 1))
            let base = Float(sequence.next() * Double(top + 40) - 20)
            cases.append((n, top, base, slope))
        }
        for c in cases {
            let scanned = Self.runs(count: c.n, top: c.top, base: c.base, slope: c.slope, scan: true)
            let found = Self.runs(count: c.n, top: c.top, base: c.base, slope: c.slope, scan: false)
            #expect(scanned.elementsEqual(found) { $0 == $1 }, "\(c)")
            // Maximal runs covering 0 ..< n in order.
            #expect(scanned.first?.start == 0 && scanned.last?.end == c.n, "\(c)")
            #expect(zip(scanned, scanned.dropFirst()).allSatisfy { $0.end == $1.start && $0.value != $1.value }, "\(c)")
        }
    }
}
