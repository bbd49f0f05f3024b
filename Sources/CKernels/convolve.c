#include "ckernels.h"

#include <immintrin.h>
#include <math.h>

// Fused multiply-adds written out (one rounding per tap, as Swift's `addingProduct` and C's
// fmaf), and no other contraction: the kernel, the portable Swift path and the reference
// loop then round alike.
#pragma clang fp contract(off)

int ck_has_avx(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") ? 1 : 0;
}

int ck_has_fma(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") && __builtin_cpu_supports("fma") ? 1 : 0;
}

__attribute__((target("avx,fma")))
void ck_convolve_row_fma(const float *weights, const float *const *sources, int taps, float *out,
                         long count, int from_zero) {
    long x = 0;
    // 64 outputs per step in eight registers, so no output is stored and reloaded per tap,
    // and eight independent sums keep both adders busy through the add's latency (four left
    // them idle a third of the time).
    for (; x + 64 <= count; x += 64) {
        const float *s = sources[0] + x;
        __m256 k = _mm256_set1_ps(weights[0]);
        __m256 a[8];
        for (int j = 0; j < 8; j++) a[j] = _mm256_mul_ps(k, _mm256_loadu_ps(s + 8 * j));
        if (from_zero) {
            __m256 zero = _mm256_setzero_ps();
            for (int j = 0; j < 8; j++) a[j] = _mm256_add_ps(zero, a[j]);
        }
        for (int t = 1; t < taps; t++) {
            s = sources[t] + x;
            k = _mm256_set1_ps(weights[t]);
            for (int j = 0; j < 8; j++) a[j] = _mm256_fmadd_ps(k, _mm256_loadu_ps(s + 8 * j), a[j]);
        }
        for (int j = 0; j < 8; j++) _mm256_storeu_ps(out + x + 8 * j, a[j]);
    }
    for (; x + 32 <= count; x += 32) {
        const float *s = sources[0] + x;
        __m256 k = _mm256_set1_ps(weights[0]);
        __m256 a0 = _mm256_mul_ps(k, _mm256_loadu_ps(s));
        __m256 a1 = _mm256_mul_ps(k, _mm256_loadu_ps(s + 8));
        __m256 a2 = _mm256_mul_ps(k, _mm256_loadu_ps(s + 16));
        __m256 a3 = _mm256_mul_ps(k, _mm256_loadu_ps(s + 24));
        if (from_zero) {
            __m256 zero = _mm256_setzero_ps();
            a0 = _mm256_add_ps(zero, a0);
            a1 = _mm256_add_ps(zero, a1);
            a2 = _mm256_add_ps(zero, a2);
            a3 = _mm256_add_ps(zero, a3);
        }
        for (int t = 1; t < taps; t++) {
            s = sources[t] + x;
            k = _mm256_set1_ps(weights[t]);
            a0 = _mm256_fmadd_ps(k, _mm256_loadu_ps(s), a0);
            a1 = _mm256_fmadd_ps(k, _mm256_loadu_ps(s + 8), a1);
            a2 = _mm256_fmadd_ps(k, _mm256_loadu_ps(s + 16), a2);
            a3 = _mm256_fmadd_ps(k, _mm256_loadu_ps(s + 24), a3);
        }
        _mm256_storeu_ps(out + x, a0);
        _mm256_storeu_ps(out + x + 8, a1);
        _mm256_storeu_ps(out + x + 16, a2);
        _mm256_storeu_ps(out + x + 24, a3);
    }
    for (; x + 8 <= count; x += 8) {
        __m256 a = _mm256_mul_ps(_mm256_set1_ps(weights[0]), _mm256_loadu_ps(sources[0] + x));
        if (from_zero) a = _mm256_add_ps(_mm256_setzero_ps(), a);
        for (int t = 1; t < taps; t++) {
            a = _mm256_fmadd_ps(_mm256_set1_ps(weights[t]), _mm256_loadu_ps(sources[t] + x), a);
        }
        _mm256_storeu_ps(out + x, a);
    }
    for (; x < count; x++) {
        float a = weights[0] * sources[0][x];
        if (from_zero) a = 0.0f + a;
        for (int t = 1; t < taps; t++) a = fmaf(weights[t], sources[t][x], a);
        out[x] = a;
    }
}
