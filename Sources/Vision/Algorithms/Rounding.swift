/// `Int(v.rounded())` (half away from zero) without the libm `roundf` call, for hot loops.
///
/// Adding the largest float below one half, with v's sign, and truncating gives the same
/// integer for every finite `v` in Int's range: the sum reaches the next integer exactly when
/// v's fraction is at least one half (checked exhaustively for |v| < 2^24; above that every
/// float is an integer and the sum rounds back to it). Traps like `Int(_:)` on NaN.
@inline(__always)
func roundedHalfAway(_ v: Float) -> Int {
    Int(v + Float(signOf: v, magnitudeOf: Float(0.5).nextDown))
}
