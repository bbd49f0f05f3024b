#include "ckernels.h"

// Integer sums only: any vector width gives the scalar loop's values exactly.
__attribute__((target("avx2")))
void ck_stain_pairs_avx2(const unsigned char *restrict rgb, long pairs, long *restrict red_green,
                         long *restrict blue, int store) {
    if (store) {
        for (long k = 0; k < pairs; k++) {
            const unsigned char *q = rgb + 6 * k;
            red_green[k] = (long)q[0] + q[1] + q[3] + q[4];
            blue[k] = (long)q[2] + q[5];
        }
        return;
    }
    for (long k = 0; k < pairs; k++) {
        const unsigned char *q = rgb + 6 * k;
        red_green[k] += (long)q[0] + q[1] + q[3] + q[4];
        blue[k] += (long)q[2] + q[5];
    }
}
