#include "cmalloc.h"

#include <limits.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int cq_set_malloc_policy(size_t top_pad, size_t trim_threshold) {
#if defined(__GLIBC__)
    if (top_pad > INT_MAX || trim_threshold > INT_MAX) return 0;
    // The trim threshold first: setting it turns glibc's sliding thresholds off. A refusal
    // part-way leaves the settings before it in force (glibc refuses none of these values).
    if (mallopt(M_TRIM_THRESHOLD, (int)trim_threshold) != 1) return 0;
    if (mallopt(M_TOP_PAD, (int)top_pad) != 1) return 0;
    return mallopt(M_MMAP_MAX, 0) == 1;
#else
    (void)top_pad;
    (void)trim_threshold;
    return 0;
#endif
}

int cq_release_free_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
