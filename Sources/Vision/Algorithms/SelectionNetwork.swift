/// A comparator network that leaves the `rank`-th smallest (0-based) of `count` values on wire
/// `rank`: Batcher's odd-even merge sort over the next power of two, with the comparators that
/// touch a padding wire (which would hold +infinity and never move) and those that cannot reach
/// wire `rank` left out (214 comparators for the median of 36).
///
/// A network has no data-dependent branches, so it runs on many independent sets side by side,
/// one per SIMD lane (`selectLanes`): for values without NaN the wire holds exactly the order
/// statistic rank selection returns.
struct SelectionNetwork {
    /// Number of values (wires), 1 ... 64.
    let count: Int
    /// The order statistic left on wire `rank`, 0 ..< `count`.
    let rank: Int
    /// Comparator k orders wires `wires[2k] < wires[2k + 1]` (min to the first).
    let wires: [Int]

    /// Largest `count` built.
    static let maxCount = 64

    /// - Parameters:
    ///   - count: number of values, clamped to 1 ... `maxCount`.
    ///   - rank: 0-based rank of the wanted value, clamped to 0 ..< count.
    init(count: Int, rank: Int) {
        let n = min(max(count, 1), Self.maxCount)
        let k = min(max(rank, 0), n - 1)
        self.count = n
        self.rank = k
        var size = 1
        while size < n { size *= 2 }
        // Batcher's odd-even merge sort, comparators in stage order.
        var all: [(Int, Int)] = []
        var p = 1
        while p < size {
            var step = p
            while step >= 1 {
                var j = step % p
                while j < size - step {
                    for i in 0..<min(step, size - j - step) where (i + j) / (2 * p) == (i + j + step) / (2 * p) {
                        let a = i + j, b = i + j + step
                        if b < n { all.append((a, b)) }
                    }
                    j += 2 * step
                }
                step /= 2
            }
            p *= 2
        }
        // Backwards from the output: a comparator matters when either wire still feeds it.
        var live = [Bool](repeating: false, count: n)
        live[k] = true
        var kept: [(Int, Int)] = []
        for (a, b) in all.reversed() where live[a] || live[b] {
            kept.append((a, b))
            live[a] = true
            live[b] = true
        }
        wires = kept.reversed().flatMap { [$0.0, $0.1] }
    }

    /// Runs the network on `count` vectors at `values` (lane l of every vector is one set) and
    /// returns wire `rank`. The vectors are reordered. No lane may hold a NaN, and a lane must
    /// not hold both -0 and +0 (the sign of the zero returned would then be arbitrary).
    @inline(__always)
    func selectLanes(_ values: UnsafeMutablePointer<SIMD8<Float>>) -> SIMD8<Float> {
        wires.withUnsafeBufferPointer { c in
            var i = 0
            while i < c.count {
                let a = values[c[i]], b = values[c[i &+ 1]]
                // select(b < a, b, a) and select(a < b, b, a): minps and maxps.
                values[c[i]] = a.replacing(with: b, where: b .< a)
                values[c[i &+ 1]] = a.replacing(with: b, where: a .< b)
                i &+= 2
            }
        }
        return values[rank]
    }
}
