#include "internal.h"
#include "ccodecs.h"
#include <stdlib.h>
#include <string.h>

void cc_set_message(char *message, size_t capacity, const char *text) {
    if (message == NULL || capacity == 0) return;
    if (text == NULL) text = "";
    size_t n = strlen(text);
    if (n >= capacity) n = capacity - 1;
    memcpy(message, text, n);
    message[n] = '\0';
}

int cc_buffer_reserve(cc_buffer *buffer, size_t extra) {
    if (extra <= buffer->capacity - buffer->size) return 1;
    if (extra > SIZE_MAX / 2 - buffer->size) return 0;
    size_t wanted = buffer->size + extra;
    size_t capacity = buffer->capacity < 65536 ? 65536 : buffer->capacity;
    while (capacity < wanted) capacity *= 2;
    uint8_t *grown = realloc(buffer->data, capacity);
    if (grown == NULL) return 0;
    buffer->data = grown;
    buffer->capacity = capacity;
    return 1;
}

void cc_free(void *pointer) { free(pointer); }
