import CKernels

/// The plane with rows and columns swapped, in 32x32 tiles so both sides stay cache-friendly.
/// Every output sample is written once, so the output is not zeroed first.
public func transposed(_ plane: Plane) -> Plane {
    transposed(plane, wide: wideConvolution)
}

/// `transposed`; `wide` moves 8 x 8 blocks through AVX registers (`ck_transpose_avx`, where
/// the CPU runs AVX) instead of one sample at a time, for the tests that compare the two.
func transposed(_ plane: Plane, wide: Bool) -> Plane {
    let w = plane.width, h = plane.height
    let tile = 32
    return Plane(width: h, height: w) { dst in
        plane.data.withUnsafeBufferPointer { src in
            if wide {
                ck_transpose_avx(src.baseAddress!, dst, w, h)
                return
            }
            var ty = 0
            while ty < h {
                var tx = 0
                let yEnd = min(ty + tile, h)
                while tx < w {
                    let xEnd = min(tx + tile, w)
                    for y in ty..<yEnd {
                        for x in tx..<xEnd { dst[x &* h &+ y] = src[y &* w &+ x] }
                    }
                    tx += tile
                }
                ty += tile
            }
        }
    }
}
