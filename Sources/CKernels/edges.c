#include "ckernels.h"

#include <immintrin.h>
#include <math.h>

// Separate multiplies and adds, as the Swift loops do: no contraction into FMA.
#pragma clang fp contract(off)

__attribute__((target("avx")))
long ck_facing_edges_avx(const float *plane, long width, long x0, long x1, long y0, long y1, double cx, double cy,
                         double inner2, double outer2, float t2, float cos2, int *xs, int *ys, float *gxs,
                         float *gys, float *g2s) {
    long n = 0;
    const __m256 half = _mm256_set1_ps(0.5f), t2v = _mm256_set1_ps(t2), cos2v = _mm256_set1_ps(cos2);
    const __m256d inner2v = _mm256_set1_pd(inner2), outer2v = _mm256_set1_pd(outer2), cxv = _mm256_set1_pd(cx);
    const __m256d lanesLow = _mm256_set_pd(3, 2, 1, 0), lanesHigh = _mm256_set_pd(7, 6, 5, 4);
    for (long py = y0; py <= y1; py++) {
        const double dy = (double)py - cy;
        const double dy2 = dy * dy;
        if (!(dy2 <= outer2)) continue;
        const float fdy = (float)dy;
        const __m256d dy2v = _mm256_set1_pd(dy2);
        const __m256 fdyv = _mm256_set1_ps(fdy);
        const float *row = plane + py * width;
        // Only the chord of the outer circle can pass the distance test (a pixel of margin
        // each side covers any rounding of dist2, which still decides).
        const double chord = sqrt(outer2 - dy2);
        const double lowest = floor(cx - chord) - 1, highest = ceil(cx + chord) + 1;
        const long from = lowest > (double)x0 ? (long)lowest : x0;
        const long to = highest < (double)x1 ? (long)highest : x1;
        long px = from;
        for (; px + 8 <= to + 1; px += 8) {
            const float *p = row + px;
            __m256 gx = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(p + 1), _mm256_loadu_ps(p - 1)), half);
            __m256 gy = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(p + width), _mm256_loadu_ps(p - width)), half);
            __m256 g2 = _mm256_add_ps(_mm256_mul_ps(gx, gx), _mm256_mul_ps(gy, gy));
            __m256 strong = _mm256_cmp_ps(g2, t2v, _CMP_GT_OQ);
            if (_mm256_movemask_ps(strong) == 0) continue;
            // Integers below 2^53 are exact in double: px + lane, then minus the centre.
            __m256d base = _mm256_set1_pd((double)px);
            __m256d dxl = _mm256_sub_pd(_mm256_add_pd(base, lanesLow), cxv);
            __m256d dxh = _mm256_sub_pd(_mm256_add_pd(base, lanesHigh), cxv);
            __m256d d2l = _mm256_add_pd(_mm256_mul_pd(dxl, dxl), dy2v);
            __m256d d2h = _mm256_add_pd(_mm256_mul_pd(dxh, dxh), dy2v);
            __m256d inl = _mm256_and_pd(_mm256_cmp_pd(d2l, inner2v, _CMP_GE_OQ), _mm256_cmp_pd(d2l, outer2v, _CMP_LE_OQ));
            __m256d inh = _mm256_and_pd(_mm256_cmp_pd(d2h, inner2v, _CMP_GE_OQ), _mm256_cmp_pd(d2h, outer2v, _CMP_LE_OQ));
            int near = _mm256_movemask_pd(inl) | (_mm256_movemask_pd(inh) << 4);
            int candidates = near & _mm256_movemask_ps(strong);
            if (candidates == 0) continue;
            __m256 dist = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_sqrt_pd(d2h)), _mm256_cvtpd_ps(_mm256_sqrt_pd(d2l)));
            __m256 fdx = _mm256_set_m128(_mm256_cvtpd_ps(dxh), _mm256_cvtpd_ps(dxl));
            __m256 along = _mm256_div_ps(_mm256_add_ps(_mm256_mul_ps(gx, fdx), _mm256_mul_ps(gy, fdyv)), dist);
            __m256 facing = _mm256_cmp_ps(_mm256_mul_ps(along, along), _mm256_mul_ps(cos2v, g2), _CMP_GE_OQ);
            int pass = candidates & _mm256_movemask_ps(facing);
            if (pass == 0) continue;
            float gxa[8], gya[8], g2a[8];
            _mm256_storeu_ps(gxa, gx);
            _mm256_storeu_ps(gya, gy);
            _mm256_storeu_ps(g2a, g2);
            while (pass) {
                int lane = __builtin_ctz(pass);
                pass &= pass - 1;
                xs[n] = (int)(px + lane);
                ys[n] = (int)py;
                gxs[n] = gxa[lane];
                gys[n] = gya[lane];
                g2s[n] = g2a[lane];
                n++;
            }
        }
        for (; px <= to; px++) {
            const float *p = row + px;
            float gx = (p[1] - p[-1]) * 0.5f, gy = (p[width] - p[-width]) * 0.5f;
            float g2 = gx * gx + gy * gy;
            if (!(g2 > t2)) continue;
            double dx = (double)px - cx;
            double dist2 = dx * dx + dy2;
            if (!(dist2 >= inner2 && dist2 <= outer2)) continue;
            float dist = (float)sqrt(dist2);
            float along = (gx * (float)dx + gy * fdy) / dist;
            if (!(along * along >= cos2 * g2)) continue;
            xs[n] = (int)px;
            ys[n] = (int)py;
            gxs[n] = gx;
            gys[n] = gy;
            g2s[n] = g2;
            n++;
        }
    }
    return n;
}

__attribute__((target("avx")))
long ck_dog_row_avx(const float *level, const float *below, const float *bright, float bright_level,
                    const float *support, float min_support, int hole_spots, long width, float threshold, int *peak_xs,
                    long *peak_count, int *hole_xs, long *hole_count) {
    const __m256 t = _mm256_set1_ps(threshold), negative_t = _mm256_set1_ps(-threshold);
    const __m256 spot_level = _mm256_set1_ps(bright_level), s = _mm256_set1_ps(min_support);
    const float *up = level - width, *down = level + width;
    long peaks = 0, holes = 0;
    long x = 1;
    for (; x + 8 <= width - 1; x += 8) {
        __m256 d = _mm256_loadu_ps(level + x), b = _mm256_loadu_ps(below + x);
        __m256 grows = _mm256_cmp_ps(d, b, _CMP_LT_OQ);
        if (bright) grows = _mm256_andnot_ps(_mm256_cmp_ps(_mm256_loadu_ps(bright + x), spot_level, _CMP_GE_OQ), grows);
        int ruled_out = _mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(d, t, _CMP_LT_OQ), grows));
        __m256 left = _mm256_loadu_ps(level + x - 1), right = _mm256_loadu_ps(level + x + 1);
        __m256 ul = _mm256_loadu_ps(up + x - 1), u = _mm256_loadu_ps(up + x), ur = _mm256_loadu_ps(up + x + 1);
        __m256 dl = _mm256_loadu_ps(down + x - 1), dn = _mm256_loadu_ps(down + x), dr = _mm256_loadu_ps(down + x + 1);
        if (ruled_out != 0xff) {
            // Strict on the previous neighbours, non-strict on the next: one peak per plateau.
            __m256 not_peak = _mm256_or_ps(_mm256_cmp_ps(d, left, _CMP_LE_OQ), _mm256_cmp_ps(d, right, _CMP_LT_OQ));
            not_peak = _mm256_or_ps(not_peak, _mm256_or_ps(_mm256_cmp_ps(d, ul, _CMP_LE_OQ), _mm256_cmp_ps(d, u, _CMP_LE_OQ)));
            not_peak = _mm256_or_ps(not_peak, _mm256_or_ps(_mm256_cmp_ps(d, ur, _CMP_LE_OQ), _mm256_cmp_ps(d, dl, _CMP_LT_OQ)));
            not_peak = _mm256_or_ps(not_peak, _mm256_or_ps(_mm256_cmp_ps(d, dn, _CMP_LT_OQ), _mm256_cmp_ps(d, dr, _CMP_LT_OQ)));
            int pass = ~(ruled_out | _mm256_movemask_ps(not_peak)) & 0xff;
            while (pass) {
                peak_xs[peaks++] = (int)(x + __builtin_ctz(pass));
                pass &= pass - 1;
            }
        }
        if (support) {
            __m256 hole_out = _mm256_cmp_ps(d, negative_t, _CMP_GT_OQ);
            if (!hole_spots) hole_out = _mm256_or_ps(hole_out, _mm256_cmp_ps(d, b, _CMP_GT_OQ));
            hole_out = _mm256_or_ps(hole_out, _mm256_cmp_ps(_mm256_loadu_ps(support + x), s, _CMP_LT_OQ));
            int hole_ruled_out = _mm256_movemask_ps(hole_out);
            if (hole_ruled_out != 0xff) {
                __m256 not_hole = _mm256_or_ps(_mm256_cmp_ps(d, left, _CMP_GE_OQ), _mm256_cmp_ps(d, right, _CMP_GT_OQ));
                not_hole = _mm256_or_ps(not_hole, _mm256_or_ps(_mm256_cmp_ps(d, ul, _CMP_GE_OQ), _mm256_cmp_ps(d, u, _CMP_GE_OQ)));
                not_hole = _mm256_or_ps(not_hole, _mm256_or_ps(_mm256_cmp_ps(d, ur, _CMP_GE_OQ), _mm256_cmp_ps(d, dl, _CMP_GT_OQ)));
                not_hole = _mm256_or_ps(not_hole, _mm256_or_ps(_mm256_cmp_ps(d, dn, _CMP_GT_OQ), _mm256_cmp_ps(d, dr, _CMP_GT_OQ)));
                int pass = ~(hole_ruled_out | _mm256_movemask_ps(not_hole)) & 0xff;
                while (pass) {
                    hole_xs[holes++] = (int)(x + __builtin_ctz(pass));
                    pass &= pass - 1;
                }
            }
        }
    }
    *peak_count = peaks;
    *hole_count = holes;
    return x;
}

__attribute__((target("avx")))
void ck_radial_row_avx(const float *grey, long width, long row, long lo, long hi, const double *dx2,
                       const float *fdx, double dy2, float fdy, double limit, float cos2, double *sum,
                       double *weight) {
    const float *up = grey + row * width, *mid = up + width, *down = mid + width;
    const __m256 two = _mm256_set1_ps(2.0f), cos2v = _mm256_set1_ps(cos2), fdyv = _mm256_set1_ps(fdy);
    const __m256 zero = _mm256_setzero_ps();
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256d dy2v = _mm256_set1_pd(dy2), quarter = _mm256_set1_pd(0.25), limitv = _mm256_set1_pd(limit);
    double s = *sum, w = *weight;
    long x = lo;
    for (; x + 8 <= hi; x += 8) {
        __m256 gx = _mm256_sub_ps(
            _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(up + x + 2), _mm256_mul_ps(two, _mm256_loadu_ps(mid + x + 2))),
                          _mm256_loadu_ps(down + x + 2)),
            _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(up + x), _mm256_mul_ps(two, _mm256_loadu_ps(mid + x))),
                          _mm256_loadu_ps(down + x)));
        __m256 gy = _mm256_sub_ps(
            _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(down + x), _mm256_mul_ps(two, _mm256_loadu_ps(down + x + 1))),
                          _mm256_loadu_ps(down + x + 2)),
            _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(up + x), _mm256_mul_ps(two, _mm256_loadu_ps(up + x + 1))),
                          _mm256_loadu_ps(up + x + 2)));
        __m256 g2 = _mm256_add_ps(_mm256_mul_ps(gx, gx), _mm256_mul_ps(gy, gy));
        __m256d d2l = _mm256_add_pd(_mm256_loadu_pd(dx2 + x), dy2v), d2h = _mm256_add_pd(_mm256_loadu_pd(dx2 + x + 4), dy2v);
        int near = _mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(d2l, quarter, _CMP_GT_OQ), _mm256_cmp_pd(d2l, limitv, _CMP_LE_OQ)))
                 | _mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(d2h, quarter, _CMP_GT_OQ), _mm256_cmp_pd(d2h, limitv, _CMP_LE_OQ))) << 4;
        if (near == 0) continue;
        __m128 distl = _mm256_cvtpd_ps(_mm256_sqrt_pd(d2l)), disth = _mm256_cvtpd_ps(_mm256_sqrt_pd(d2h));
        __m256 dist = _mm256_set_m128(disth, distl);
        __m256 along = _mm256_div_ps(_mm256_add_ps(_mm256_mul_ps(gx, _mm256_loadu_ps(fdx + x)), _mm256_mul_ps(gy, fdyv)), dist);
        __m256 aligned = _mm256_and_ps(_mm256_cmp_ps(g2, zero, _CMP_GT_OQ),
                                       _mm256_cmp_ps(_mm256_mul_ps(along, along), _mm256_mul_ps(cos2v, g2), _CMP_GE_OQ));
        int pass = near & _mm256_movemask_ps(aligned);
        if (pass == 0) continue;
        __m256 absolute = _mm256_and_ps(along, magnitude);
        __m256d al = _mm256_cvtps_pd(_mm256_castps256_ps128(absolute)), ah = _mm256_cvtps_pd(_mm256_extractf128_ps(absolute, 1));
        __m256d tl = _mm256_mul_pd(al, _mm256_cvtps_pd(distl)), th = _mm256_mul_pd(ah, _mm256_cvtps_pd(disth));
        double a[8], t[8];
        _mm256_storeu_pd(a, al);
        _mm256_storeu_pd(a + 4, ah);
        _mm256_storeu_pd(t, tl);
        _mm256_storeu_pd(t + 4, th);
        // In column order, as the per-pixel loop adds them.
        while (pass) {
            int lane = __builtin_ctz(pass);
            pass &= pass - 1;
            s += t[lane];
            w += a[lane];
        }
    }
    for (; x < hi; x++) {
        float gx = (up[x + 2] + 2 * mid[x + 2] + down[x + 2]) - (up[x] + 2 * mid[x] + down[x]);
        float gy = (down[x] + 2 * down[x + 1] + down[x + 2]) - (up[x] + 2 * up[x + 1] + up[x + 2]);
        double dist2 = dx2[x] + dy2;
        if (!(dist2 > 0.25 && dist2 <= limit)) continue;
        float g2 = gx * gx + gy * gy;
        if (!(g2 > 0)) continue;
        float dist = (float)sqrt(dist2);
        float along = (gx * fdx[x] + gy * fdy) / dist;
        if (!(along * along >= cos2 * g2)) continue;
        double a = (double)fabsf(along);
        s += a * (double)dist;
        w += a;
    }
    *sum = s;
    *weight = w;
}

int ck_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

__attribute__((target("avx2")))
void ck_grey_window_avx2(const unsigned char *rgb, long image_width, long x0, long y0, long width, long height,
                         float *grey) {
    // Per 128-bit lane, the bytes of four pixels' red, green and blue, each widened to 32
    // bits: the low lane holds pixels 0-3 at bytes 0-11, the high lane pixels 4-7 at 4-15.
    const __m256i red = _mm256_setr_epi8(0, -1, -1, -1, 3, -1, -1, -1, 6, -1, -1, -1, 9, -1, -1, -1,
                                         4, -1, -1, -1, 7, -1, -1, -1, 10, -1, -1, -1, 13, -1, -1, -1);
    const __m256i green = _mm256_setr_epi8(1, -1, -1, -1, 4, -1, -1, -1, 7, -1, -1, -1, 10, -1, -1, -1,
                                           5, -1, -1, -1, 8, -1, -1, -1, 11, -1, -1, -1, 14, -1, -1, -1);
    const __m256i blue = _mm256_setr_epi8(2, -1, -1, -1, 5, -1, -1, -1, 8, -1, -1, -1, 11, -1, -1, -1,
                                          6, -1, -1, -1, 9, -1, -1, -1, 12, -1, -1, -1, 15, -1, -1, -1);
    for (long yy = 0; yy < height; yy++) {
        const unsigned char *row = rgb + ((y0 + yy) * image_width + x0) * 3;
        float *out = grey + yy * width;
        long xx = 0;
        // Bytes 0-15 and 8-23 of eight pixels: nothing past the window's last pixel is read.
        for (; xx + 8 <= width; xx += 8) {
            const unsigned char *p = row + xx * 3;
            __m256i bytes = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
                                                    _mm_loadu_si128((const __m128i *)(p + 8)), 1);
            __m256i r = _mm256_shuffle_epi8(bytes, red), g = _mm256_shuffle_epi8(bytes, green);
            __m256i b = _mm256_shuffle_epi8(bytes, blue);
            __m256i sum = _mm256_add_epi32(_mm256_add_epi32(r, _mm256_slli_epi32(g, 1)), b);
            _mm256_storeu_ps(out + xx, _mm256_cvtepi32_ps(sum));
        }
        for (; xx < width; xx++) {
            const unsigned char *p = row + xx * 3;
            out[xx] = (float)((int)p[0] + 2 * (int)p[1] + (int)p[2]);
        }
    }
}
