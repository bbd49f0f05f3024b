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

/// Largest magnitude `roundedHalfAway(_: SIMD4<Float>)` accepts.
let vectorRoundingLimit: Float = 4_000_000

/// Lane-wise `Int(v.rounded())` for |v| < `vectorRoundingLimit`, with no float-to-integer
/// conversion instruction (plain x86-64 has no packed one Swift reaches): the same
/// `v + copysign(0.5.nextDown, v)` as the scalar version, then truncation done with the
/// 1.5 * 2^23 trick (adding it leaves the nearest integer in the low mantissa bits) and a
/// one-step correction towards zero. Same integers as the scalar version in that range.
@inline(__always)
func roundedHalfAway(_ v: SIMD4<Float>) -> SIMD4<Int32> {
    let half = SIMD4<UInt32>(repeating: Float(0.5).nextDown.bitPattern)
    let sign = unsafeBitCast(v, to: SIMD4<UInt32>.self) & SIMD4<UInt32>(repeating: 0x8000_0000)
    let t = v + unsafeBitCast(sign | half, to: SIMD4<Float>.self)
    let magic = SIMD4<Float>(repeating: 12_582_912)
    let shifted = t + magic
    let nearest = shifted - magic
    var i = unsafeBitCast(shifted, to: SIMD4<Int32>.self) &- Int32(bitPattern: Float(12_582_912).bitPattern)
    // A true mask lane is -1.
    i &+= unsafeBitCast((nearest .> t) .& (t .>= 0), to: SIMD4<Int32>.self)
    i &-= unsafeBitCast((nearest .< t) .& (t .< 0), to: SIMD4<Int32>.self)
    return i
}
