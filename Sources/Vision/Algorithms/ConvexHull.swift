import Hemocytometer

/// Convex hull of points (Andrew's monotone chain), counter-clockwise in a y-up frame, without
/// collinear points. Fewer than 3 distinct points are returned as they are.
public func convexHull(_ points: [Point]) -> [Point] {
    let sorted = Set(points).sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    guard sorted.count >= 3 else { return sorted }
    func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    }
    var lower: [Point] = []
    for p in sorted {
        while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
        lower.append(p)
    }
    var upper: [Point] = []
    for p in sorted.reversed() {
        while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
        upper.append(p)
    }
    return Array(lower.dropLast() + upper.dropLast())
}

/// Area of a simple polygon (shoelace formula), always >= 0.
public func polygonArea(_ polygon: [Point]) -> Double {
    guard polygon.count >= 3 else { return 0 }
    var s = 0.0
    for i in polygon.indices {
        let a = polygon[i], b = polygon[(i + 1) % polygon.count]
        s += a.x * b.y - b.x * a.y
    }
    return abs(s) / 2
}
