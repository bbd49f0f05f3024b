/// Labels of 8-connected foreground regions: 0 = background, 1 ... count = components,
/// numbered in raster order of their first pixel (deterministic).
public struct ComponentLabels: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var labels: [Int32]
    public var count: Int
}

/// Two-pass connected-component labelling with union-find, 8-connectivity.
///
/// - Parameter mask: foreground flags, `width * height`, row-major.
public func connectedComponents(mask: [Bool], width: Int, height: Int) -> ComponentLabels {
    let n = width * height
    guard n > 0, mask.count == n else { return ComponentLabels(width: width, height: height, labels: [], count: 0) }
    var labels = [Int32](repeating: 0, count: n)
    var parent: [Int32] = [0]
    func find(_ a: Int32) -> Int32 {
        var r = a
        while parent[Int(r)] != r { r = parent[Int(r)] }
        var c = a
        while parent[Int(c)] != r { let next = parent[Int(c)]; parent[Int(c)] = r; c = next }
        return r
    }
    func union(_ a: Int32, _ b: Int32) {
        let ra = find(a), rb = find(b)
        if ra != rb { parent[Int(max(ra, rb))] = min(ra, rb) }
    }
    for y in 0..<height {
        for x in 0..<width {
            let i = y * width + x
            guard mask[i] else { continue }
            var label: Int32 = 0
            // Already-visited neighbours: W, NW, N, NE.
            let neighbours = [(x - 1, y), (x - 1, y - 1), (x, y - 1), (x + 1, y - 1)]
            for (nx, ny) in neighbours where nx >= 0 && ny >= 0 && nx < width {
                let l = labels[ny * width + nx]
                if l == 0 { continue }
                if label == 0 { label = l } else { union(label, l) }
            }
            if label == 0 {
                label = Int32(parent.count)
                parent.append(label)
            }
            labels[i] = label
        }
    }
    // Compact roots to 1 ... count in order of first appearance.
    var remap = [Int32](repeating: 0, count: parent.count)
    var next: Int32 = 0
    for i in 0..<n where labels[i] != 0 {
        let root = find(labels[i])
        if remap[Int(root)] == 0 {
            next += 1
            remap[Int(root)] = next
        }
        labels[i] = remap[Int(root)]
    }
    return ComponentLabels(width: width, height: height, labels: labels, count: Int(next))
}
