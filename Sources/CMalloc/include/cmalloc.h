#ifndef CMALLOC_H
#define CMALLOC_H

#include <stddef.h>

/// Sets how glibc malloc keeps memory: no block gets a mapping of its own (`M_MMAP_MAX` 0, so
/// blocks of any size come from a heap), every heap grows by `top_pad` bytes more than it needs
/// and keeps that much free memory (`M_TOP_PAD`: a worker thread's heap is then not unmapped
/// the moment it empties), and free memory at a heap's top is given back to the system only
/// beyond `trim_threshold` bytes (`M_TRIM_THRESHOLD`). Setting them turns glibc's sliding
/// thresholds off. Returns 1 when all three were set; 0 when glibc refused one (a sanitizer's
/// allocator refuses them) or the C library is not glibc.
int cq_set_malloc_policy(size_t top_pad, size_t trim_threshold);

/// Gives the free memory of every malloc arena back to the system (glibc's `malloc_trim(0)`),
/// whatever the trim threshold. Returns 1 when some was released, 0 otherwise (or not glibc).
int cq_release_free_memory(void);

#endif
