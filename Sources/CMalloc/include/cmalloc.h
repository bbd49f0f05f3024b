#ifndef CMALLOC_H
#define CMALLOC_H

#include <stddef.h>

/// Sets glibc malloc's two thresholds: blocks up to `mmap_threshold` bytes come from the heap
/// instead of fresh mappings, and free memory at the top of a heap is given back to the system
/// only beyond `trim_threshold` bytes. Setting them also turns off glibc's sliding threshold.
/// Returns 1 when both were set; 0 when glibc refused either (mmap_threshold above 32 MiB on
/// 64-bit systems) or the C library is not glibc.
int cq_set_malloc_thresholds(size_t mmap_threshold, size_t trim_threshold);

/// Makes glibc malloc serve every thread from one heap (the main arena, `M_ARENA_MAX` 1) and
/// every block, whatever its size, from that heap (`M_MMAP_MAX` 0: no block gets a mapping
/// of its own), and keeps up to `trim_threshold` bytes of free memory at the heap's top.
/// Returns 1 when all three were set; 0 when glibc refused one or the C library is not glibc.
int cq_set_single_heap(size_t trim_threshold);

/// Gives the free memory of every malloc arena back to the system (glibc's `malloc_trim(0)`),
/// whatever the trim threshold. Returns 1 when some was released, 0 otherwise (or not glibc).
int cq_release_free_memory(void);

#endif
