#include "ckernels.h"

#include <immintrin.h>

// Rows 0..7 of the 8 x 8 block at `s` (row stride `sw`) written as the columns of the block
// at `d` (row stride `dw`): unpacks pair neighbouring rows, shuffles gather four, and the
// 128-bit halves swap last.
__attribute__((target("avx")))
static inline void transpose8(const float *s, long sw, float *d, long dw) {
    __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + sw), r2 = _mm256_loadu_ps(s + 2 * sw),
           r3 = _mm256_loadu_ps(s + 3 * sw), r4 = _mm256_loadu_ps(s + 4 * sw), r5 = _mm256_loadu_ps(s + 5 * sw),
           r6 = _mm256_loadu_ps(s + 6 * sw), r7 = _mm256_loadu_ps(s + 7 * sw);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(d + dw, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(d + 2 * dw, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(d + 3 * dw, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(d + 4 * dw, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(d + 5 * dw, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(d + 6 * dw, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(d + 7 * dw, _mm256_permute2f128_ps(u3, u7, 0x31));
}

// Tiles of 32 x 32 keep both the rows read and the rows written in the cache; whole 8 x 8
// blocks go through registers, the ragged right and bottom edges one sample at a time.
__attribute__((target("avx")))
void ck_transpose_avx(const float *restrict src, float *restrict dst, long width, long height) {
    const long tile = 32;
    for (long ty = 0; ty < height; ty += tile) {
        long y_end = ty + tile < height ? ty + tile : height;
        for (long tx = 0; tx < width; tx += tile) {
            long x_end = tx + tile < width ? tx + tile : width;
            long y = ty;
            for (; y + 8 <= y_end; y += 8) {
                long x = tx;
                for (; x + 8 <= x_end; x += 8) transpose8(src + y * width + x, width, dst + x * height + y, height);
                for (long yy = y; yy < y + 8; yy++)
                    for (long xx = x; xx < x_end; xx++) dst[xx * height + yy] = src[yy * width + xx];
            }
            for (; y < y_end; y++)
                for (long x = tx; x < x_end; x++) dst[x * height + y] = src[y * width + x];
        }
    }
}
