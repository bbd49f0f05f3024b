import Testing
@testable import Vision

/// Block medians through the selection network against the plain version (kept here
/// verbatim): the same bits, including ties, partial blocks, sampled large blocks and the
/// NaN / signed-zero fallback.
@Suite("Block median reference")
struct BlockMedianReferenceTests {
    @Test func selectionNetworkLeavesTheOrderStatistic() {
        var state: UInt64 = 3
        func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
        for count in 1...SelectionNetwork.maxCount {
            for rank in Set([0, count / 2, count - 1]) {
                let network = SelectionNetwork(count: count, rank: rank)
                let wires = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: count)
                defer { wires.deallocate() }
                for trial in 0..<20 {
                    // Lanes 0-3 continuous values, 4-7 only eight levels (many ties).
                    var sets = [[Float]](repeating: [], count: 8)
                    for i in 0..<count {
                        var v = SIMD8<Float>()
                        for l in 0..<8 { v[l] = l < 4 ? next() : (next() * 8).rounded(.down) }
                        if trial == 0 { v = SIMD8(repeating: Float(count - i)) }
                        wires[i] = v
                        for l in 0..<8 { sets[l].append(v[l]) }
                    }
                    let got = network.selectLanes(wires)
                    for l in 0..<8 {
                        #expect(got[l] == sets[l].sorted()[rank], "count \(count) rank \(rank) lane \(l)")
                    }
                }
            }
        }
    }

    @Test func blockMediansMatchReference() {
        let sizes = [(1, 1), (7, 5), (48, 12), (50, 13), (203, 117), (130, 9)]
        for (w, h) in sizes {
            let noise = KernelReferenceTests.noisePlane(width: w, height: h, seed: UInt64(w * h + 1))
            // Quantised copy: many equal values in a block.
            let coarse = noise.map { ($0 * 6).rounded(.down) / 6 }
            for plane in [noise, coarse] {
                for factor in [1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 16] {
                    #expect(KernelReferenceTests.identical(downsampleMedian(plane, factor: factor),
                                                           Self.referenceMedian(plane, factor: factor)),
                            "\(w)x\(h) factor \(factor)")
                }
            }
        }
    }

    /// A block with a NaN, or a zero median from -0 and +0 samples, goes to rank selection.
    @Test func nanAndNegativeZeroMatchReference() {
        var plane = KernelReferenceTests.noisePlane(width: 96, height: 12, seed: 5)
        plane[3, 2] = .nan
        for x in 50..<56 { for y in 0..<6 { plane[x, y] = x % 2 == 0 ? -0.0 : 0 } }
        for factor in [2, 6] {
            let got = downsampleMedian(plane, factor: factor), want = Self.referenceMedian(plane, factor: factor)
            #expect(KernelReferenceTests.identical(got, want), "factor \(factor)")
        }
    }

    static func referenceMedian(_ plane: Plane, factor: Int) -> Plane {
        guard factor > 1, plane.count > 0 else { return plane }
        let w = plane.width, h = plane.height
        let ow = (w + factor - 1) / factor, oh = (h + factor - 1) / factor
        var out = Plane(width: ow, height: oh)
        let step = max(1, factor / 4)
        var block = [Float](repeating: 0, count: factor * factor)
        plane.data.withUnsafeBufferPointer { src in
            out.data.withUnsafeMutableBufferPointer { dst in
                block.withUnsafeMutableBufferPointer { b in
                    for oy in 0..<oh {
                        let y0 = oy * factor, y1 = min(y0 + factor, h)
                        for ox in 0..<ow {
                            let x0 = ox * factor, x1 = min(x0 + factor, w)
                            var n = 0
                            for y in stride(from: y0, to: y1, by: step) {
                                let row = src.baseAddress! + y * w
                                for x in stride(from: x0, to: x1, by: step) {
                                    b[n] = row[x]
                                    n += 1
                                }
                            }
                            dst[oy * ow + ox] = selectKthByRank(UnsafeMutableBufferPointer(rebasing: b[0..<n]), n / 2)
                        }
                    }
                }
            }
        }
        return out
    }
}
