/// Offset from the middle of three equally spaced samples `a`, `b`, `c` to the vertex of the
/// parabola through them, in steps, within half a step either way; 0 where they do not curve
/// upwards (no minimum between them).
func parabolaMinimumOffset(_ a: Double, _ b: Double, _ c: Double) -> Double {
    let curvature = a - 2 * b + c
    guard curvature > 0 else { return 0 }
    return min(0.5, max(-0.5, 0.5 * (a - c) / curvature))
}

/// Offset from the middle of three equally spaced samples `a`, `b`, `c` to the vertex of the
/// parabola through them where they curve downwards (a peak), in steps, within half a step
/// either way; 0 where they do not.
func parabolaMaximumOffset(_ a: Double, _ b: Double, _ c: Double) -> Double {
    let curvature = a - 2 * b + c
    guard curvature < 0 else { return 0 }
    return max(-0.5, min(0.5, 0.5 * (a - c) / curvature))
}
