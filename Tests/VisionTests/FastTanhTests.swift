import Foundation
import Testing
@testable import Vision

/// `fastTanh` stands in for libm's tanh in `saturate`: it must stay within a few units in the
/// last place everywhere, keep tanh's symmetry and limits, and pass non-finite input through
/// the way the contrast map needs (NaN stays NaN, infinities saturate).
@Suite("Fast tanh")
struct FastTanhTests {
    @Test func staysWithinFourTenthsOfAMillionthOfTanh() {
        var worst = 0.0
        var x: Float = -12
        while x <= 12 {
            worst = max(worst, abs(Double(fastTanh(x)) - tanh(Double(x))))
            x += 0.000_37
        }
        #expect(worst < 4e-7)
    }

    @Test func isOddExactAtZeroAndSaturates() {
        for x: Float in [1e-30, 1e-5, 3.9e-4, 4e-4, 0.1, 0.5, 1, 2.5, 5, 7.9, 8, 50] {
            #expect(fastTanh(-x) == -fastTanh(x))
        }
        #expect(fastTanh(0) == 0)
        #expect(fastTanh(1e-5) == 1e-5)
        #expect(fastTanh(Float.infinity) == 1)
        #expect(fastTanh(-Float.infinity) == -1)
        #expect(fastTanh(Float.nan).isNaN)
    }

    @Test func saturateMatchesCapTimesTanhOnEveryLaneAndTheTail() {
        // 8k + 5 samples: the vector body and the scalar tail.
        var plane = Plane(width: 13, height: 3)
        for i in 0..<plane.count { plane.data[i] = Float(i - 19) * 0.07 }
        let cap = 0.4
        let out = saturate(plane, cap: cap)
        for i in 0..<plane.count {
            let expected = cap * tanh(Double(plane.data[i]) / cap)
            #expect(abs(Double(out.data[i]) - expected) < 4e-7)
        }
        #expect(saturate(plane, cap: 0).data == plane.data)
        #expect(saturate(Plane(width: 0, height: 0), cap: cap).count == 0)
    }
}
