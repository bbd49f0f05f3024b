/// k-th smallest element (0-based) by quickselect; reorders `values`. nil when empty.
public func selectKth(_ values: inout [Float], _ k: Int) -> Float? {
    guard !values.isEmpty else { return nil }
    return values.withUnsafeMutableBufferPointer { selectKth($0, k) }
}

/// k-th smallest element (0-based, clamped) of a non-empty buffer by quickselect, in place.
@inline(__always)
func selectKth(_ v: UnsafeMutableBufferPointer<Float>, _ k: Int) -> Float {
    let k = min(max(k, 0), v.count - 1)
    var lo = 0, hi = v.count - 1
        while lo < hi {
            // Median of three pivot keeps sorted inputs linear.
            let mid = lo + (hi - lo) / 2
            if v[mid] < v[lo] { v.swapAt(mid, lo) }
            if v[hi] < v[lo] { v.swapAt(hi, lo) }
            if v[hi] < v[mid] { v.swapAt(hi, mid) }
            let pivot = v[mid]
            var i = lo, j = hi
            while i <= j {
                while v[i] < pivot { i += 1 }
                while v[j] > pivot { j -= 1 }
                if i <= j { v.swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
    return v[k]
}

/// Median of |x| over every `stride`-th sample: the MAD of a zero-centred signal.
///
/// - Parameters:
///   - scratch: reusable buffer (avoids an allocation per call).
public func medianAbsolute(_ plane: Plane, stride: Int, scratch: inout [Float]) -> Float {
    quantileAbsolute(plane, 0.5, stride: stride, scratch: &scratch)
}

/// Robust standard deviation of a zero-centred signal from the 25th percentile of |x|
/// (|x| of a normal variable has its 25th percentile at 0.3186 sigma). Unlike the MAD it stays
/// right while up to three quarters of the samples are signal rather than noise (a dense image).
public func robustNoise(_ plane: Plane, stride: Int, scratch: inout [Float]) -> Float {
    quantileAbsolute(plane, 0.25, stride: stride, scratch: &scratch) / 0.3186
}

/// Robust standard deviation of a zero-centred signal from samples of its magnitude |x|: their
/// 25th percentile over 0.3186 (as `robustNoise`); 0 without samples. The magnitudes are
/// non-negative: one histogram pass instead of quickselect.
func sigmaFromMagnitudes(_ magnitudes: [Float]) -> Float {
    guard !magnitudes.isEmpty else { return 0 }
    var bucket: [Float] = []
    return magnitudes.withUnsafeBufferPointer { selectKthNonNegative($0, $0.count / 4, scratch: &bucket) } / 0.3186
}

/// The q-quantile (0 ... 1) of |x| over every `stride`-th sample.
public func quantileAbsolute(_ plane: Plane, _ q: Double, stride: Int, scratch: inout [Float]) -> Float {
    scratch.removeAll(keepingCapacity: true)
    plane.data.withUnsafeBufferPointer { d in
        var i = 0
        while i < d.count {
            scratch.append(abs(d[i]))
            i += max(1, stride)
        }
    }
    guard !scratch.isEmpty else { return 0 }
    let k = Int(Double(scratch.count - 1) * min(1, max(0, q)))
    var bucket: [Float] = []
    return scratch.withUnsafeBufferPointer { selectKthNonNegative($0, k, scratch: &bucket) }
}

/// Largest buffer `selectKthByRank` handles; longer ones go to quickselect.
let rankSelectLimit = 64

/// k-th smallest element (0-based, clamped) of a short non-empty buffer, by rank counting:
/// the answer is the element with fewer than k + 1 elements below it and more than k at or
/// below it. Same value as `selectKth` (the k-th order statistic is unique), but branch-free
/// comparisons in SIMD instead of quickselect's unpredictable partition branches: about 4x
/// faster on the ~24-sample blocks of `lineMedian`. The buffer is not reordered. Buffers longer
/// than `rankSelectLimit` or holding a NaN (no order) go to `selectKth`.
func selectKthByRank(_ v: UnsafeMutableBufferPointer<Float>, _ k: Int) -> Float {
    let n = v.count
    guard n <= rankSelectLimit, n > 0 else { return selectKth(v, k) }
    let k = min(max(k, 0), n - 1)
    typealias V = SIMD4<Float>
    // Padded with +infinity to whole vectors: never below a finite candidate, and when the
    // candidate is +infinity itself the over-count of "at or below" cannot change the answer
    // (at most k elements are below it, so the k-th is +infinity).
    var lanes = (V(), V(), V(), V(), V(), V(), V(), V(), V(), V(), V(), V(), V(), V(), V(), V())
    let chunks = (n + 3) / 4
    return withUnsafeMutableBytes(of: &lanes) { raw -> Float in
        let p = raw.baseAddress!.assumingMemoryBound(to: Float.self)
        var hasNaN = false
        for i in 0..<n {
            p[i] = v[i]
            hasNaN = hasNaN || v[i].isNaN
        }
        if hasNaN { return selectKth(v, k) }
        for i in n..<(chunks * 4) { p[i] = .infinity }
        let q = raw.baseAddress!.assumingMemoryBound(to: V.self)
        for i in 0..<n {
            let x = V(repeating: p[i])
            var below = SIMD4<Int32>(), atOrBelow = SIMD4<Int32>()
            for c in 0..<chunks {
                let chunk = q[c]
                // A true mask lane is -1.
                below &-= unsafeBitCast(chunk .< x, to: SIMD4<Int32>.self)
                atOrBelow &-= unsafeBitCast(chunk .<= x, to: SIMD4<Int32>.self)
            }
            let lo = Int(below.wrappedSum()), hi = Int(atOrBelow.wrappedSum())
            if lo <= k && k < hi { return p[i] }
        }
        return selectKth(v, k)
    }
}

/// k-th smallest (0-based, clamped) of a non-empty buffer of non-negative floats, by one
/// histogram pass over their bit patterns (which sort like the values when the sign bit is
/// clear) and a quickselect inside the one bucket that holds rank k: a few cheap passes
/// instead of quickselect's mispredicted partitions over the whole buffer. Same value as
/// `selectKth`; a buffer with a negative value or a NaN goes to `selectKth`. The buffer is not
/// reordered.
///
/// - Parameter scratch: reusable storage for the bucket's elements.
func selectKthNonNegative(_ v: UnsafeBufferPointer<Float>, _ k: Int, scratch: inout [Float]) -> Float {
    var counts: [Int32] = []
    return selectKthNonNegative(v, k, scratch: &scratch, counts: &counts)
}

/// `selectKthNonNegative` with the histogram's storage (`counts`) kept by the caller too, for
/// callers that select in thousands of small buffers.
func selectKthNonNegative(_ v: UnsafeBufferPointer<Float>, _ k: Int, scratch: inout [Float],
                          counts: inout [Int32]) -> Float {
    let n = v.count
    let k = min(max(k, 0), n - 1)
    let (lowest, highest) = bitPatternRange(v)
    // Any sign bit set (a negative value, -0 or a negative NaN) or a positive NaN.
    guard highest <= Float.infinity.bitPattern else {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: v)
        return selectKth(&scratch, k) ?? 0
    }
    let span = highest &- lowest
    if span == 0 { return v[0] }
    // About eight elements per bucket, 64 ... 2048 buckets: zeroing and walking the histogram
    // then costs no more than the pass that fills it (a vote window holds a few thousand
    // magnitudes), and the bucket that holds rank k stays small.
    let bucketBits = max(6, min(11, (Int.bitWidth - n.leadingZeroBitCount) - 3))
    let buckets = 1 << bucketBits
    let shift = max(0, (32 - span.leadingZeroBitCount) - bucketBits)
    // Four histograms, filled by turns and summed: neighbouring values mostly share a bucket,
    // and one histogram would make each increment wait for the previous one's store.
    if counts.count < 4 << bucketBits {
        counts = [Int32](repeating: 0, count: 4 << 11)
    } else {
        counts.withUnsafeMutableBufferPointer { $0.baseAddress!.update(repeating: 0, count: 4 << bucketBits) }
    }
    counts.withUnsafeMutableBufferPointer { c in
        let c0 = c.baseAddress!, c1 = c0 + buckets, c2 = c1 + buckets, c3 = c2 + buckets
        let bits = UInt32(shift)
        @inline(__always) func index(_ x: Float) -> Int { Int((x.bitPattern &- lowest) &>> bits) }
        var i = 0
        while i &+ 4 <= n {
            c0[index(v[i])] &+= 1
            c1[index(v[i &+ 1])] &+= 1
            c2[index(v[i &+ 2])] &+= 1
            c3[index(v[i &+ 3])] &+= 1
            i &+= 4
        }
        while i < n {
            c0[index(v[i])] &+= 1
            i &+= 1
        }
        for b in 0..<buckets { c0[b] = c0[b] &+ c1[b] &+ c2[b] &+ c3[b] }
    }
    var bucket = 0, before = 0
    while before + Int(counts[bucket]) <= k {
        before += Int(counts[bucket])
        bucket += 1
    }
    // The bucket's elements, in order: every element is written at the next free place and
    // the place advances only for the bucket's (no branch to mispredict), so the storage
    // takes one element more than the whole buffer.
    let size = Int(counts[bucket])
    if scratch.count < n + 1 { scratch = [Float](repeating: 0, count: n + 1) }
    return scratch.withUnsafeMutableBufferPointer { out in
        var m = 0
        let target = UInt32(bucket), bits = UInt32(shift)
        typealias U = SIMD4<UInt32>
        let lowestV = U(repeating: lowest), targetV = U(repeating: target), bitsV = U(repeating: bits)
        let o = out.baseAddress!, raw = UnsafeRawPointer(v.baseAddress!)
        var i = 0
        while i &+ 4 <= n {
            let chunk = raw.loadUnaligned(fromByteOffset: i &* 4, as: U.self)
            // A true mask lane is all ones: & 1 makes it the step.
            let step = unsafeBitCast(((chunk &- lowestV) &>> bitsV) .== targetV, to: SIMD4<Int32>.self) & 1
            for lane in 0..<4 {
                o[m] = Float(bitPattern: chunk[lane])
                m &+= Int(step[lane])
            }
            i &+= 4
        }
        while i < n {
            let x = v[i]
            o[m] = x
            m &+= (x.bitPattern &- lowest) &>> bits == target ? 1 : 0
            i &+= 1
        }
        let inBucket = UnsafeMutableBufferPointer(rebasing: out[0..<size])
        // Non-negative and no NaN: the order statistic is one value, whichever way it is found.
        return size <= rankSelectLimit ? selectKthByRank(inBucket, k - before) : selectKth(inBucket, k - before)
    }
}

/// Smallest and largest bit pattern of a buffer, four lanes at a time.
private func bitPatternRange(_ v: UnsafeBufferPointer<Float>) -> (lowest: UInt32, highest: UInt32) {
    typealias U = SIMD4<UInt32>
    var low = U(repeating: .max), high = U(repeating: 0)
    let n = v.count
    var i = 0
    if let p = v.baseAddress {
        let raw = UnsafeRawPointer(p)
        while i &+ 4 <= n {
            let chunk = raw.loadUnaligned(fromByteOffset: i &* 4, as: U.self)
            low = pointwiseMin(low, chunk)
            high = pointwiseMax(high, chunk)
            i &+= 4
        }
    }
    var lowest = low.min(), highest = high.max()
    while i < n {
        let b = v[i].bitPattern
        lowest = min(lowest, b)
        highest = max(highest, b)
        i &+= 1
    }
    return (lowest, highest)
}
