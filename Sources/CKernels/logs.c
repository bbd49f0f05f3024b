#include "ckernels.h"

#include <stdint.h>
#include <string.h>

// Separate multiplies and adds: the vectorised loop and its scalar remainder then round alike
// (a contraction into FMA in one of them only would make neighbouring pixels differ).
#pragma clang fp contract(off)

static inline float log_one(float v, float floor) {
    // `v < floor` rather than fmaxf: NaN stays NaN (its comparison is false).
    float x = v < floor ? floor : v;
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    // Mantissa in [1, 2), exponent unbiased; above sqrt(2) take half and one power of two
    // more, so that f = m - 1 lies in [sqrt(1/2) - 1, sqrt(2) - 1].
    uint32_t mbits = (bits & 0x007fffffu) | 0x3f800000u;
    float m;
    memcpy(&m, &mbits, sizeof m);
    float e = (float)(int32_t)((bits >> 23) & 0xffu) - 127.0f;
    int high = m > 1.41421356f;
    m = high ? m * 0.5f : m;
    e = high ? e + 1.0f : e;
    float f = m - 1.0f;
    float z = f * f;
    // Cephes logf: log(1 + f) = f - z / 2 + f z P(f), P of degree 8.
    float p = 7.0376836292e-2f;
    p = p * f - 1.1514610310e-1f;
    p = p * f + 1.1676998740e-1f;
    p = p * f - 1.2420140846e-1f;
    p = p * f + 1.4249322787e-1f;
    p = p * f - 1.6668057665e-1f;
    p = p * f + 2.0000714765e-1f;
    p = p * f - 2.4999993993e-1f;
    p = p * f + 3.3333331174e-1f;
    float y = p * f * z;
    // ln 2 in two parts: 0.693359375 has few mantissa bits, so e times it is exact.
    y = y + e * -2.12194440e-4f;
    y = y - 0.5f * z;
    float r = f + y;
    r = r + e * 0.693359375f;
    // +infinity and NaN (exponent field all ones) come back as they were.
    return (bits & 0x7f800000u) == 0x7f800000u ? x : r;
}

void ck_log_floor(const float *in, float *out, long count, float floor) {
    for (long i = 0; i < count; i++) out[i] = log_one(in[i], floor);
}
