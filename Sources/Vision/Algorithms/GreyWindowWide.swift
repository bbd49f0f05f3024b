import CKernels
import Imaging

/// Whether `greyWindow` uses the AVX2 kernel: checked once per process.
let wideGrey = ck_has_avx2() != 0

/// `readGreyWindow`, eight pixels at a time with `ck_grey_window_avx2` where the CPU has AVX2
/// and `wide` is set (the default target has no byte shuffles): the same integers. Every
/// vote and boundary radius reads a window of the full-resolution image, and converting it
/// one byte at a time was a third of `boundaryRadius` outside its row kernel.
func greyWindow(_ image: Image, x0: Int, y0: Int, width: Int, height: Int, into grey: UnsafeMutablePointer<Float>,
                wide: Bool = wideGrey) {
    guard wide && wideGrey else {
        readGreyWindow(image, x0: x0, y0: y0, width: width, height: height, into: grey)
        return
    }
    image.pixels.withUnsafeBufferPointer { px in
        guard let base = px.baseAddress else { return }
        ck_grey_window_avx2(base, image.width, x0, y0, width, height, grey)
    }
}
