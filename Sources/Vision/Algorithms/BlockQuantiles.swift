/// The `quantile` of each block of a row, as `lineMedian` splits it: `blocks` blocks, block b
/// covering `lo ..< min(hi, n)` with `lo = round(b * size)`, `hi = max(lo + 1, round((b + 1) *
/// size))`, and rank `Int(Double(count - 1) * quantile)` of its `count` samples.
///
/// Blocks go eight at a time through one `SelectionNetwork` (one block per SIMD lane) built for
/// the row's longest block. A shorter block's rank is the same or one less (the rank never
/// grows by more than one per extra sample), so it is padded up to that length with one -inf
/// (rank one less) or none, and +inf for the rest: the network's order statistic of the padded
/// lane is then exactly the block's own. Lanes with a NaN, a zero result (whose sign the network
/// picks arbitrarily when -0 and +0 meet) and rows of few or over-long blocks go through
/// `selectKthByRank`, so every value is the one it returns, bit for bit.
///
/// Networks are built once per block length and kept for the selector's lifetime (one
/// `lineMedian` call).
struct BlockQuantileSelector {
    /// The block statistic, 0 ... 1.
    let quantile: Double
    /// Networks by block length (index = length), built on first use.
    private var networks: [SelectionNetwork?]
    /// Lane-interleaved samples, `SelectionNetwork.maxCount` wires of eight lanes.
    private var wires: [SIMD8<Float>]

    /// Rows with fewer blocks waste most lanes; rank selection is cheaper there.
    static let minimumBlocks = 3

    /// - Parameter quantile: block statistic, clamped to 0 ... 1.
    init(quantile: Double) {
        self.quantile = min(1, max(0, quantile))
        networks = [SelectionNetwork?](repeating: nil, count: SelectionNetwork.maxCount + 1)
        wires = [SIMD8<Float>](repeating: SIMD8(), count: SelectionNetwork.maxCount)
    }

    /// 0-based rank of `quantile` in a block of `count` samples.
    @inline(__always)
    static func rank(_ count: Int, quantile: Double) -> Int { Int(Double(count - 1) * quantile) }

    /// Writes the quantile of block b of `line[0 ..< n]` to `medians[b]`, b in 0 ..< `blocks`.
    /// - Parameters:
    ///   - line: the row's samples; a block holding a NaN may be reordered (as by
    ///     `selectKthByRank`), others are not.
    ///   - n: number of samples, >= 1.
    ///   - blocks: number of blocks, 1 ... n.
    ///   - size: n / blocks, the nominal block length in samples.
    ///   - medians: output, at least `blocks` long.
    mutating func select(_ line: UnsafeMutableBufferPointer<Float>, n: Int, blocks: Int, size: Double,
                         into medians: UnsafeMutableBufferPointer<Float>) {
        precondition(blocks >= 1 && blocks <= n && n <= line.count && blocks <= medians.count, "block layout")
        let q = quantile
        @inline(__always) func rankOf(_ count: Int) -> Int { Self.rank(count, quantile: q) }
        @inline(__always) func bounds(_ b: Int) -> (lo: Int, end: Int) {
            let lo = Int((Double(b) * size).rounded()), hi = max(lo + 1, Int((Double(b + 1) * size).rounded()))
            return (lo, min(hi, n))
        }
        @inline(__always) func scalar(_ b: Int) -> Float {
            let (lo, end) = bounds(b)
            return selectKthByRank(UnsafeMutableBufferPointer(rebasing: line[lo..<end]), rankOf(end - lo))
        }
        var longest = 0
        for b in 0..<blocks {
            let (lo, end) = bounds(b)
            longest = max(longest, end - lo)
        }
        guard blocks >= Self.minimumBlocks, longest <= SelectionNetwork.maxCount else {
            for b in 0..<blocks { medians[b] = scalar(b) }
            return
        }
        if networks[longest] == nil { networks[longest] = SelectionNetwork(count: longest, rank: rankOf(longest)) }
        guard let network = networks[longest] else { return }
        let width = 8
        wires.withUnsafeMutableBufferPointer { wireBuffer in
            let vectors = wireBuffer.baseAddress!
            let p = UnsafeMutableRawPointer(vectors).assumingMemoryBound(to: Float.self)
            var start = 0
            while start < blocks {
                let lanes = min(width, blocks - start)
                // Lanes whose padding cannot reproduce the block's rank (never, with the
                // rounding above; kept as a guard) go to rank selection.
                var unpadded = SIMD8<Int32>()
                for l in 0..<width {
                    guard l < lanes else {
                        for i in 0..<longest { p[i &* width &+ l] = 0 }
                        continue
                    }
                    let (lo, end) = bounds(start &+ l)
                    let count = end &- lo
                    let below = network.rank &- rankOf(count)
                    if below < 0 || below > longest &- count { unpadded[l] = 1 }
                    let lowPads = max(0, min(below, longest &- count))
                    var i = 0
                    while i < lowPads {
                        p[i &* width &+ l] = -.infinity
                        i &+= 1
                    }
                    for j in lo..<end {
                        p[i &* width &+ l] = line[j]
                        i &+= 1
                    }
                    while i < longest {
                        p[i &* width &+ l] = .infinity
                        i &+= 1
                    }
                }
                var nan = SIMD8<Int32>()
                for i in 0..<longest {
                    let v = vectors[i]
                    nan |= unsafeBitCast(v .!= v, to: SIMD8<Int32>.self)
                }
                let m = network.selectLanes(vectors)
                for l in 0..<lanes {
                    if nan[l] != 0 || unpadded[l] != 0 || m[l] == 0 {
                        medians[start &+ l] = scalar(start &+ l)
                    } else {
                        medians[start &+ l] = m[l]
                    }
                }
                start &+= width
            }
        }
    }
}
