/// Marker-controlled watershed by priority flooding (Meyer): every mask pixel reachable from a
/// marker gets the label of the marker whose flood reaches it first, lowest elevation first;
/// ties are broken by insertion order, so the result is deterministic.
///
/// - Parameters:
///   - elevation: the relief (e.g. minus the distance transform so that basins are cell centres).
///   - markers: 0 = unlabelled, > 0 = seed label; same size as `elevation`.
///   - mask: pixels allowed to be flooded.
/// - Returns: labels, 0 outside the mask or unreachable.
public func watershed(elevation: Plane, markers: [Int32], mask: [Bool]) -> [Int32] {
    let w = elevation.width, h = elevation.height, n = w * h
    guard n > 0, markers.count == n, mask.count == n else { return [Int32](repeating: 0, count: max(0, n)) }
    var labels = markers
    var heap = FloodQueue()
    var queued = [Bool](repeating: false, count: n)
    for i in 0..<n where labels[i] > 0 {
        queued[i] = true
        heap.push(elevation.data[i], Int32(i))
    }
    while let (_, index) = heap.pop() {
        let i = Int(index)
        let x = i % w, y = i / w
        let label = labels[i]
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let nx = x + dx, ny = y + dy
            guard nx >= 0, ny >= 0, nx < w, ny < h else { continue }
            let j = ny * w + nx
            guard mask[j], !queued[j] else { continue }
            queued[j] = true
            labels[j] = label
            heap.push(max(elevation.data[j], elevation.data[i]), Int32(j))
        }
    }
    for i in 0..<n where !mask[i] { labels[i] = 0 }
    return labels
}

/// Binary min-heap on (priority, insertion order).
struct FloodQueue {
    private var items: [(p: Float, seq: Int, index: Int32)] = []
    private var counter = 0

    mutating func push(_ p: Float, _ index: Int32) {
        items.append((p, counter, index))
        counter += 1
        var c = items.count - 1
        while c > 0 {
            let parent = (c - 1) / 2
            if less(items[c], items[parent]) { items.swapAt(c, parent); c = parent } else { break }
        }
    }

    mutating func pop() -> (Float, Int32)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var c = 0
            while true {
                let l = 2 * c + 1, r = l + 1
                var m = c
                if l < items.count && less(items[l], items[m]) { m = l }
                if r < items.count && less(items[r], items[m]) { m = r }
                if m == c { break }
                items.swapAt(c, m)
                c = m
            }
        }
        return (top.p, top.index)
    }

    private func less(_ a: (p: Float, seq: Int, index: Int32), _ b: (p: Float, seq: Int, index: Int32)) -> Bool {
        a.p < b.p || (a.p == b.p && a.seq < b.seq)
    }
}
