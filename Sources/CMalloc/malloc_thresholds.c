#include "cmalloc.h"

#include <limits.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int cq_set_malloc_thresholds(size_t mmap_threshold, size_t trim_threshold) {
#if defined(__GLIBC__)
    if (mmap_threshold > INT_MAX || trim_threshold > INT_MAX) return 0;
    // The mmap threshold first: glibc refuses one too large without changing anything, and
    // either threshold set alone is worse than neither (each turns the sliding threshold off).
    if (mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold) != 1) return 0;
    return mallopt(M_TRIM_THRESHOLD, (int)trim_threshold) == 1;
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    return 0;
#endif
}

int cq_set_single_heap(size_t trim_threshold) {
#if defined(__GLIBC__)
    if (trim_threshold > INT_MAX) return 0;
    // The trim threshold first: it also turns the sliding mmap threshold off. Mappings are
    // refused only once the other two are in force, so a refusal leaves at most a larger trim
    // threshold behind.
    if (mallopt(M_TRIM_THRESHOLD, (int)trim_threshold) != 1) return 0;
    if (mallopt(M_ARENA_MAX, 1) != 1) return 0;
    return mallopt(M_MMAP_MAX, 0) == 1;
#else
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
