/// Hyperbolic tangent of eight lanes: a rational minimax approximation (odd degree 13 over even
/// degree 6) on x clamped to +-7.9053 (where tanh rounds to +-1 in Float), and x itself below
/// 4e-4 (where tanh x = x in Float); NaN stays NaN. Largest error 3.7e-7 against `tanh` in Double over
/// [-10, 10], about three units in the last place near +-1.
///
/// Why: libm's `tanhf` is a scalar call per sample (about 8 ns); this runs the whole plane in
/// vector registers at a tenth of that, and the contrast map it saturates holds noise far above
/// its error.
@inline(__always)
func fastTanh(_ v: SIMD8<Float>) -> SIMD8<Float> {
    typealias V = SIMD8<Float>
    let limit = V(repeating: 7.905_311_107_635_498)
    // Masked replacement rather than `clamped`, whose pointwiseMin / pointwiseMax were
    // calls here (12 M instructions on a 1920 x 1080 image); same values.
    let x = v.replacing(with: limit, where: v .> limit).replacing(with: -limit, where: v .< -limit)
    let x2 = x * x
    var p = V(repeating: -2.760_768_477_423_55e-16)
    p = p * x2 + 2.000_187_904_824_77e-13
    p = p * x2 - 8.604_671_522_137_35e-11
    p = p * x2 + 5.122_297_090_371_14e-08
    p = p * x2 + 1.485_722_357_179_79e-05
    p = p * x2 + 6.372_619_288_754_36e-04
    p = p * x2 + 4.893_524_558_917_86e-03
    var q = V(repeating: 1.198_258_394_667_02e-06)
    q = q * x2 + 1.185_347_056_866_54e-04
    q = q * x2 + 2.268_434_632_439_00e-03
    q = q * x2 + 4.893_525_185_543_85e-03
    // NaN fails both comparisons of the clamp and would come out as -1: pass it through.
    let small = (v .< 0.0004) .& (v .> -0.0004)
    return (p * x / q).replacing(with: v, where: small .| (v .!= v))
}

/// `fastTanh` of one value (the tail of a plane that is not a multiple of eight long).
@inline(__always)
func fastTanh(_ x: Float) -> Float {
    fastTanh(SIMD8<Float>(repeating: x))[0]
}
