import Testing
@testable import Vision

@Suite("Robust background")
struct RobustBackgroundTests {
    @Test func blockMediansIncludingPartialBlocks() {
        // 5 x 3: blocks of 2 x 2, the last column and row partial.
        let plane = Plane(width: 5, height: 3, data: [1, 9, 2, 2, 7,
                                                      3, 4, 2, 8, 6,
                                                      5, 0, 1, 1, 4])!
        let m = downsampleMedian(plane, factor: 2)
        #expect(m.width == 3 && m.height == 2)
        // {1, 9, 3, 4} -> upper middle 4; {2, 2, 2, 8} -> 2; {7, 6} -> 7; {5, 0} -> 5; {1, 1} -> 1; {4} -> 4.
        #expect(m.data == [4, 2, 7, 5, 1, 4])
        #expect(downsampleMedian(plane, factor: 1) == plane)
    }

    /// Background 0.5 under a bright ruling: 2-pixel lines at twice the background every 40
    /// pixels, both ways (90% of the area is background; a line covers a third of the 6-pixel
    /// blocks it crosses). Between the lines the robust estimate
    /// stays on the background; the mean-based one is lifted by the lines.
    @Test func aBrightRulingDoesNotLiftTheBackground() {
        var plane = Plane(width: 240, height: 200, repeating: 0.5)
        for y in 0..<200 {
            for x in 0..<240 where x % 40 < 2 || y % 40 < 2 { plane[x, y] = 1 }
        }
        let robust = estimateBackground(plane, sigma: 18, robustReference: true)
        let mean = estimateBackground(plane, sigma: 18, robustReference: false)
        for (x, y) in [(102, 102), (142, 62), (62, 142)] {
            #expect(abs(robust[x, y] - 0.5) < 0.004, "robust \(robust[x, y]) at \(x), \(y)")
            #expect(mean[x, y] > 0.51, "mean \(mean[x, y]) at \(x), \(y)")
        }
    }
}
