import Foundation
import Testing
@testable import Vision

/// `logPlane` (`ck_log_floor`) stands in for libm's log: every boundary test and the contrast
/// map read its output, so it must stay within a unit or two in the last place wherever a
/// flattened luminance can lie, and keep the floor and the special values.
struct FastLogTests {
    private func logs(_ values: [Float]) -> [Float] {
        logPlane(Plane(width: values.count, height: 1, data: values)!).data
    }

    @Test func staysWithinTwoUnitsInTheLastPlace() {
        var values: [Float] = []
        var x: Float = 1e-4
        while x < 1e6 { values.append(x); x = x.nextUp * 1.0007 }
        // Around 1, where the result is tiny and an absolute error would hide a relative one.
        values += (-3000...3000).map { 1 + Float($0) * 1e-6 }
        let out = logs(values)
        var worst = 0.0
        for (v, l) in zip(values, out) {
            let exact = log(Double(v))
            worst = max(worst, abs(Double(l) - exact) / Double(max(Float(exact).ulp, .leastNormalMagnitude)))
        }
        #expect(worst <= 2, "worst error \(worst) units in the last place")
    }

    @Test func floorsAndKeepsSpecialValues() {
        let out = logs([0, -1, 1e-6, 1e-4, 1, .infinity, .nan, 2])
        let floor = Float(log(1e-4))
        #expect(out[0] == out[3] && out[1] == out[3] && out[2] == out[3])
        #expect(abs(out[3] - floor) <= 2 * floor.ulp)
        #expect(out[4] == 0)
        #expect(out[5] == .infinity)
        #expect(out[6].isNaN)
        #expect(abs(Double(out[7]) - log(2.0)) <= Double(Float(log(2.0)).ulp))
    }

    /// The vector loop and its scalar remainder give one sample the same value.
    @Test func aSampleDoesNotDependOnItsPlaceInTheRow() {
        let value: Float = 0.8371
        for count in 1...40 {
            let out = logs([Float](repeating: value, count: count))
            #expect(Set(out).count == 1, "\(count) samples")
            #expect(out[0] == logs([value])[0])
        }
    }
}
