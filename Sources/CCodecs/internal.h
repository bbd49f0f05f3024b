#ifndef CCODECS_INTERNAL_H
#define CCODECS_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

/// Copies a NUL-terminated message into a caller buffer, truncating safely.
void cc_set_message(char *message, size_t capacity, const char *text);

/// A growable malloc'd byte buffer for the encoders. `size` bytes are in use.
typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
} cc_buffer;

/// Makes room for `extra` more bytes; returns 0 when memory ran out (buffer unchanged).
int cc_buffer_reserve(cc_buffer *buffer, size_t extra);

/// Product of two dimensions without overflow (both are < 2^32).
static inline uint64_t cc_pixel_count(uint32_t width, uint32_t height) {
    return (uint64_t)width * (uint64_t)height;
}
#endif
