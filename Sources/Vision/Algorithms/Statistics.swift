/// k-th smallest element (0-based) by quickselect; reorders `values`. nil when empty.
public func selectKth(_ values: inout [Float], _ k: Int) -> Float? {
    guard !values.isEmpty else { return nil }
    let k = min(max(k, 0), values.count - 1)
    return values.withUnsafeMutableBufferPointer { v -> Float in
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
}

/// Median of |x| over every `stride`-th sample: the MAD of a zero-centred signal.
///
/// - Parameters:
///   - scratch: reusable buffer (avoids an allocation per call).
public func medianAbsolute(_ plane: Plane, stride: Int, scratch: inout [Float]) -> Float {
    scratch.removeAll(keepingCapacity: true)
    plane.data.withUnsafeBufferPointer { d in
        var i = 0
        while i < d.count {
            scratch.append(abs(d[i]))
            i += max(1, stride)
        }
    }
    return selectKth(&scratch, scratch.count / 2) ?? 0
}
