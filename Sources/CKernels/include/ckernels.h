#ifndef CKERNELS_H
#define CKERNELS_H

/// 1 when this CPU (and OS) runs AVX instructions, so `ck_convolve_row_avx` may be called.
int ck_has_avx(void);

/// One output row of a separable convolution pass, eight lanes wide (AVX, no fused
/// multiply-add): out[x] = k[0] s_0[x] + k[1] s_1[x] + ... + k[taps - 1] s_{taps-1}[x] for
/// x in 0 ..< count, the taps added in that order, starting from 0 (0 + k[0] s_0[x]) when
/// `from_zero` is nonzero, else from the first product. Every lane does the same IEEE single
/// operations in the same order as a scalar loop would, so the results are that loop's.
///
/// - sources: `taps` pointers, each to at least `count` floats.
/// Only call when `ck_has_avx()` returned 1.
void ck_convolve_row_avx(const float *weights, const float *const *sources, int taps, float *out,
                         long count, int from_zero);

#endif
