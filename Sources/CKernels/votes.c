#include "ckernels.h"

#include <immintrin.h>
#include <math.h>

// Separate multiplies and adds, as the Swift loop does: no contraction into FMA.
#pragma clang fp contract(off)

// Votes of one boundary pixel: both ways along its gradient, eight steps at a time; a vote
// outside the plane goes to the spare bin.
__attribute__((target("avx2")))
static inline void cast_votes(long x, long y, float gx, float gy, float g2, const float *normals, long normal_count,
                              float aligned_cos, float inner, float dstep, long steps, long width, float fw, float fh,
                              float *votes, long spare) {
    const float g = sqrtf(g2);
    for (long n = 0; n < normal_count; n++) {
        if (fabsf(normals[2 * n] * gx + normals[2 * n + 1] * gy) >= aligned_cos * g) return;
    }
    const float ux = gx / g, uy = gy / g;
    const __m256 px = _mm256_set1_ps((float)x + 0.5f), py = _mm256_set1_ps((float)y + 0.5f);
    const __m256 uxv = _mm256_set1_ps(ux), uyv = _mm256_set1_ps(uy);
    const __m256 lanes = _mm256_set_ps(7, 6, 5, 4, 3, 2, 1, 0), zero = _mm256_setzero_ps();
    const __m256 fwv = _mm256_set1_ps(fw), fhv = _mm256_set1_ps(fh);
    const __m256i widthv = _mm256_set1_epi32((int)width), sparev = _mm256_set1_epi32((int)spare);
    const __m256 lastv = _mm256_set1_ps((float)steps);
    int bins[16];
    for (long s = 0; s <= steps; s += 8) {
        // (float)s + lane is the exact integer step: dist is inner + (float)step * dstep.
        const __m256 step = _mm256_add_ps(_mm256_set1_ps((float)s), lanes);
        const __m256 dist = _mm256_add_ps(_mm256_set1_ps(inner), _mm256_mul_ps(step, _mm256_set1_ps(dstep)));
        const __m256 valid = _mm256_cmp_ps(step, lastv, _CMP_LE_OQ);
        const __m256 ax = _mm256_mul_ps(dist, uxv), ay = _mm256_mul_ps(dist, uyv);
        // The other way: px + (-dist) ux is px - dist ux exactly.
        const __m256 vxs[2] = {_mm256_add_ps(px, ax), _mm256_sub_ps(px, ax)};
        const __m256 vys[2] = {_mm256_add_ps(py, ay), _mm256_sub_ps(py, ay)};
        for (int way = 0; way < 2; way++) {
            const __m256 vx = vxs[way], vy = vys[way];
            // Truncation is the floor for v >= 0: inside exactly when 0 <= v < size.
            __m256 inside = _mm256_and_ps(_mm256_cmp_ps(vx, zero, _CMP_GE_OQ), _mm256_cmp_ps(vy, zero, _CMP_GE_OQ));
            inside = _mm256_and_ps(inside, _mm256_and_ps(_mm256_cmp_ps(vx, fwv, _CMP_LT_OQ), _mm256_cmp_ps(vy, fhv, _CMP_LT_OQ)));
            inside = _mm256_and_ps(inside, valid);
            const __m256i bin = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(vy), widthv), _mm256_cvttps_epi32(vx));
            const __m256i chosen = _mm256_blendv_epi8(sparev, bin, _mm256_castps_si256(inside));
            _mm256_storeu_si256((__m256i *)(bins + 8 * way), chosen);
        }
        for (int k = 0; k < 16; k++) votes[bins[k]] += 1.0f;
    }
}

__attribute__((target("avx2")))
void ck_centre_votes_avx2(const float *plane, long width, long height, float t2, const float *normals,
                          long normal_count, float aligned_cos, float inner, float dstep, long steps, float *votes) {
    const long spare = width * height;
    const float fw = (float)width, fh = (float)height;
    const __m256 half = _mm256_set1_ps(0.5f), t2v = _mm256_set1_ps(t2);
    for (long y = 1; y < height - 1; y++) {
        const float *row = plane + y * width;
        long x = 1;
        for (; x + 8 <= width - 1; x += 8) {
            const float *p = row + x;
            const __m256 gx = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(p + 1), _mm256_loadu_ps(p - 1)), half);
            const __m256 gy = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(p + width), _mm256_loadu_ps(p - width)), half);
            const __m256 g2 = _mm256_add_ps(_mm256_mul_ps(gx, gx), _mm256_mul_ps(gy, gy));
            int above = _mm256_movemask_ps(_mm256_cmp_ps(g2, t2v, _CMP_GT_OQ));
            if (above == 0) continue;
            float gxa[8], gya[8], g2a[8];
            _mm256_storeu_ps(gxa, gx);
            _mm256_storeu_ps(gya, gy);
            _mm256_storeu_ps(g2a, g2);
            while (above) {
                const int lane = __builtin_ctz(above);
                above &= above - 1;
                cast_votes(x + lane, y, gxa[lane], gya[lane], g2a[lane], normals, normal_count, aligned_cos, inner,
                           dstep, steps, width, fw, fh, votes, spare);
            }
        }
        for (; x < width - 1; x++) {
            const float *p = row + x;
            const float gx = (p[1] - p[-1]) * 0.5f, gy = (p[width] - p[-width]) * 0.5f;
            const float g2 = gx * gx + gy * gy;
            if (g2 > t2) {
                cast_votes(x, y, gx, gy, g2, normals, normal_count, aligned_cos, inner, dstep, steps, width, fw, fh,
                           votes, spare);
            }
        }
    }
}
