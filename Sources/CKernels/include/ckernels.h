#ifndef CKERNELS_H
#define CKERNELS_H

/// 1 when this CPU (and OS) runs AVX instructions.
int ck_has_avx(void);

/// 1 when this CPU (and OS) runs AVX and FMA instructions, so `ck_convolve_row_fma` may be
/// called.
int ck_has_fma(void);

/// One output row of a separable convolution pass, eight lanes wide (AVX with fused
/// multiply-adds): out[x] = k[0] s_0[x] + k[1] s_1[x] + ... + k[taps - 1] s_{taps-1}[x] for
/// x in 0 ..< count, the taps added in that order, each with one rounding (fma(k[t], s_t[x],
/// sum)), starting from 0 (0 + k[0] s_0[x]) when `from_zero` is nonzero, else from the first
/// product. Every lane does the same IEEE single operations in the same order as a scalar
/// loop with fmaf would, so the results are that loop's.
///
/// - sources: `taps` pointers, each to at least `count` floats.
/// Only call when `ck_has_fma()` returned 1.
void ck_convolve_row_fma(const float *weights, const float *const *sources, int taps, float *out,
                         long count, int from_zero);

/// The pixels of a plane's window that face a centre (`RadialEdgeField.evidence`), eight at
/// a time (AVX, no fused multiply-add). Pixel (px, py), x0 <= px <= x1, y0 <= py <= y1, has
/// gx = (p[1] - p[-1]) * 0.5f and gy = (p[w] - p[-w]) * 0.5f; it faces (cx, cy) when
/// g2 = gx gx + gy gy > t2, dist2 = dx dx + dy dy lies in [inner2, outer2] (dx = px - cx,
/// dy = py - cy in double) and along = (gx (float)dx + gy (float)dy) / (float)sqrt(dist2)
/// has along along >= cos2 g2. Rows with dy dy > outer2 are skipped. Every value is the
/// same IEEE operation sequence as the Swift loop's, so the same pixels pass.
///
/// - The window must keep one pixel off every edge (x0 >= 1, x1 <= width - 2, likewise y).
/// - xs, ys, gxs, gys, g2s: room for every pixel of the window; the facing ones are written
///   row by row, left to right.
/// - Returns: the number of facing pixels.
/// Only call when `ck_has_avx()` returned 1.
long ck_facing_edges_avx(const float *plane, long width, long x0, long x1, long y0, long y1, double cx, double cy,
                         double inner2, double outer2, float t2, float cos2, int *xs, int *ys, float *gxs,
                         float *gys, float *g2s);

/// The eight-lane pre-filter of the DoG detector's scan (`detectBlobs`) over one row of a
/// level, x = 1, 9, 17, ... while x + 8 <= width - 1: the pixels that pass the same
/// comparisons as the Swift SIMD loop (threshold, growth from the level below unless a
/// bright spot, local maximum strict on the previous neighbours; for holes the flipped tests
/// and the support floor), as x positions in increasing order. AVX, comparisons only.
///
/// - level, below: the row's first sample in the level and the level below; the level's
///   rows above and below (level -/+ width) are read too.
/// - bright: the bright-spot plane's row, or NULL when the spot rule is off.
/// - support: the hole-support plane's row, or NULL when holes are not sought.
/// - hole_spots: nonzero = a hole need not grow from the level below (`holeSpots`).
/// - peak_xs, hole_xs: room for width samples each.
/// - Returns: the first x the filter did not cover (the caller tests x ..< width - 1).
/// Only call when `ck_has_avx()` returned 1.
long ck_dog_row_avx(const float *level, const float *below, const float *bright, float bright_level,
                    const float *support, float min_support, int hole_spots, long width, float threshold, int *peak_xs,
                    long *peak_count, int *hole_xs, long *hole_count);

/// One row of `boundaryRadius`, eight columns at a time (AVX, no fused multiply-add): for
/// xx in lo ..< hi, the Sobel gradient of grey window pixel (xx + 1, row + 1) (rows `width`
/// apart), and where 0.25 < dist2 = dx2[xx] + dy2 <= limit, g2 > 0 and the gradient points
/// along the ray (along = (gx fdx[xx] + gy fdy) / (float)sqrt(dist2), along^2 >= cos2 g2),
/// |along| dist added to *sum and |along| to *weight, in column order, in double. The same
/// operations in the same order as the Swift loop, so the same sums.
/// Only call when `ck_has_avx()` returned 1.
void ck_radial_row_avx(const float *grey, long width, long row, long lo, long hi, const double *dx2,
                       const float *fdx, double dy2, float fdy, double limit, float cos2, double *sum,
                       double *weight);

/// 1 when this CPU (and OS) runs AVX2 instructions, so `ck_grey_window_avx2` may be called.
int ck_has_avx2(void);

/// `readGreyWindow`: the grey values R + 2G + B (integers 0 ... 1020, exact in float) of the
/// window x0 ..< x0 + width, y0 ..< y0 + height of an 8-bit RGB image `image_width` pixels
/// wide, row by row into `grey`; eight pixels at a time (AVX2 byte shuffles), reading no
/// byte outside the window's rows. The window must lie inside the image.
/// Only call when `ck_has_avx2()` returned 1.
void ck_grey_window_avx2(const unsigned char *rgb, long image_width, long x0, long y0, long width, long height,
                         float *grey);

/// `centreVoteMap`'s votes (AVX2, no fused multiply-add): every pixel (x, y) off the plane's
/// border with g2 = gx gx + gy gy > t2 (gx = (p[1] - p[-1]) * 0.5f, gy = (p[w] - p[-w]) * 0.5f)
/// whose gradient lies within acos(aligned_cos) of none of the `normal_count` unit normals
/// (x, y pairs in `normals`: |nx gx + ny gy| >= aligned_cos sqrtf(g2) rules it out) adds 1 to
/// the bins floor(p +- (inner + s dstep) u), s = 0 ... steps, u = g / sqrtf(g2), p = (x + 0.5,
/// y + 0.5), that lie in the plane; the others to `votes[width * height]`. The same IEEE
/// single operations as the Swift loop, and the counts are integers: the same counts.
/// - votes: width * height + 1 floats; width * height below 2^31.
/// Only call when `ck_has_avx2()` returned 1.
void ck_centre_votes_avx2(const float *plane, long width, long height, float t2, const float *normals,
                          long normal_count, float aligned_cos, float inner, float dstep, long steps, float *votes);

/// Natural logarithm of every sample floored at `floor` (> 0, normal): out[i] =
/// log(max(in[i], floor)), within about one unit in the last place (mantissa reduced to
/// [sqrt(1/2), sqrt(2)), Cephes' logf polynomial, ln 2 in two parts); NaN and +infinity pass
/// through. Plain C the compiler vectorises: every sample takes the same operations, so the
/// result does not depend on where a sample falls in the vector loop. `in` and `out` must not
/// overlap (the compiler's overlap check would send an in-place call down the scalar loop).
void ck_log_floor(const float *in, float *out, long count, float floor);

/// The stain map's block sums at the working scale 2 (`stainPlane`), one image row: for each
/// pair k of horizontally adjacent RGB pixels (bytes 6k ... 6k + 5), red_green[k] += the two
/// reds and two greens, blue[k] += the two blues (with `store` nonzero, = instead of +=: a
/// block's first row, so the sums need no zeroing first). Integer sums, so the same values as
/// the scalar loop; the compiler vectorises the interleaved loads with AVX2.
/// Only call when `ck_has_avx2()` returned 1.
void ck_stain_pairs_avx2(const unsigned char *rgb, long pairs, long *red_green, long *blue, int store);

/// The plane of `height` rows of `width` floats at `src` transposed into `dst` (`width` rows
/// of `height`): dst[x * height + y] = src[y * width + x], eight by eight through AVX
/// registers (values are only moved, so they are the scalar loop's bit for bit).
/// Only call when `ck_has_avx()` returned 1.
void ck_transpose_avx(const float *src, float *dst, long width, long height);

/// The pixel-by-pixel projection of a plane (`ProjectionLayout.scatter`): pixel (x, y) goes
/// to bin k = (long)(bases[y] + along[x]) (single-precision addition, truncation), clamped to
/// -1 ... bins, the guard bins -1 and `bins` taking what rounding puts just outside the
/// profile. Its value, as a double, is added to partial[4 (k + 1) + (x & 3)] and 1 to
/// pixels[4 (k + 1) + (x & 3)]: four partial sums per bin by column, in row-major order, so
/// that the additions are the Swift loop's bit for bit.
///
/// - along: `width` floats, monotone (Float(x) * cos of the normal).
/// - bases: `height` floats, the rows' coordinates.
/// - partial, pixels: 4 (bins + 2) entries each, added to.
/// Plain C: any CPU.
void ck_projection_scatter(const float *plane, long width, long height, const float *along, const float *bases,
                           long bins, double *partial, int *pixels);

#endif
