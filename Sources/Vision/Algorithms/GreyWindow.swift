import Imaging

/// Grey values R + 2G + B (integers 0 ... 1020, exact in Float) of a window of an image, row
/// by row, into `grey` (`width * height` values). The window must lie inside the image.
///
/// The full-resolution boundary kernels (`voteCentre`, `boundaryRadius`) take their Sobel
/// gradients from these values; every Sobel sum of them is an exact integer, so any order of
/// summation gives the same bits.
func readGreyWindow(_ image: Image, x0: Int, y0: Int, width: Int, height: Int,
                    into grey: UnsafeMutablePointer<Float>) {
    let w = image.width
    image.pixels.withUnsafeBufferPointer { px in
        guard let base = px.baseAddress else { return }
        for yy in 0..<height {
            let row = base + ((y0 &+ yy) &* w &+ x0) &* 3
            let out = grey + yy &* width
            for xx in 0..<width {
                let p = row + xx &* 3
                out[xx] = Float(Int32(p[0]) &+ 2 &* Int32(p[1]) &+ Int32(p[2]))
            }
        }
    }
}

/// Sobel x and y derivatives of row `yy + 1` of a grey window `width` values wide (the
/// window's one-pixel border excluded): `width - 2` values each into `gx` and `gy`.
@inline(__always)
func sobelRow(_ grey: UnsafePointer<Float>, width: Int, row yy: Int,
              gx: UnsafeMutablePointer<Float>, gy: UnsafeMutablePointer<Float>) {
    sobelRow(grey, width: width, row: yy, columns: 0..<(width - 2), gx: gx, gy: gy)
}

/// `sobelRow` for the interior columns `columns` only (0 ... width - 3): `gx[xx]` and
/// `gy[xx]` for xx in that range, the rest left untouched.
@inline(__always)
func sobelRow(_ grey: UnsafePointer<Float>, width: Int, row yy: Int, columns: Range<Int>,
              gx: UnsafeMutablePointer<Float>, gy: UnsafeMutablePointer<Float>) {
    let up = grey + yy &* width, mid = up + width, down = mid + width
    for xx in columns {
        gx[xx] = (up[xx &+ 2] + 2 * mid[xx &+ 2] + down[xx &+ 2]) - (up[xx] + 2 * mid[xx] + down[xx])
        gy[xx] = (down[xx] + 2 * down[xx &+ 1] + down[xx &+ 2]) - (up[xx] + 2 * up[xx &+ 1] + up[xx &+ 2])
    }
}
