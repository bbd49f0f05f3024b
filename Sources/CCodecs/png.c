// PNG decode/encode with libpng's low-level API and explicit transforms, so every colour type
// and bit depth lands in one 8-bit RGB layout with no gamma or alpha compositing applied.
#include "ccodecs.h"
#include "internal.h"
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// State shared with libpng's callbacks through the error/io pointers.
typedef struct {
    const uint8_t *data;
    size_t size;
    size_t position;
    int hit_end;        // the reader was asked for bytes past the end: truncation
    int out_of_memory;
    char message[CC_MESSAGE_CAPACITY];
} png_read_context;

static void cc_png_error(png_structp png, png_const_charp text) {
    png_read_context *context = png_get_error_ptr(png);
    if (context != NULL) {
        // The reader has already stored a clearer message for truncation.
        if (!context->hit_end) cc_set_message(context->message, sizeof context->message, text);
        if (text != NULL && (strstr(text, "Out of memory") != NULL || strstr(text, "out of memory") != NULL))
            context->out_of_memory = 1;
    }
    png_longjmp(png, 1);
}

static void cc_png_warning(png_structp png, png_const_charp text) {
    // Benign: ancillary-chunk problems. libpng's default would print to stderr.
    (void)png;
    (void)text;
}

static void cc_png_read_memory(png_structp png, png_bytep out, size_t count) {
    png_read_context *context = png_get_io_ptr(png);
    if (count > context->size - context->position) {
        context->hit_end = 1;
        char text[CC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "file truncated: needed %zu bytes at offset %zu of %zu",
                 count, context->position, context->size);
        cc_set_message(context->message, sizeof context->message, text);
        png_error(png, text);
    }
    memcpy(out, context->data + context->position, count);
    context->position += count;
}

static int cc_png_color(int color_type) {
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return CC_COLOR_GRAY;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return CC_COLOR_GRAY_ALPHA;
    case PNG_COLOR_TYPE_PALETTE: return CC_COLOR_PALETTE;
    case PNG_COLOR_TYPE_RGB: return CC_COLOR_RGB;
    case PNG_COLOR_TYPE_RGB_ALPHA: return CC_COLOR_RGBA;
    default: return CC_COLOR_UNKNOWN;
    }
}

static uint32_t cc_png_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/// Walks the chunk headers up to IEND and reports the first chunk other than IDAT whose length
/// field runs past the end of the input. libpng allocates such a chunk's claimed length before
/// reading it (and only warns when the length is over its chunk_malloc_max), so a 100-byte
/// file could make it allocate 2 GB. IDAT is streamed by libpng and left to it. Returns 1 and
/// fills `message` for such a chunk, else 0.
static int cc_png_find_overlong_chunk(const uint8_t *data, size_t size, char *message, size_t capacity) {
    size_t offset = 8;
    while (size - offset >= 8) {
        uint32_t length = cc_png_be32(data + offset);
        const uint8_t *type = data + offset + 4;
        size_t remaining = size - offset - 8;
        int is_idat = memcmp(type, "IDAT", 4) == 0;
        if (!is_idat && (size_t)length > remaining) {
            char name[5];
            for (int i = 0; i < 4; i++) name[i] = (type[i] >= 0x20 && type[i] < 0x7F) ? (char)type[i] : '?';
            name[4] = '\0';
            char text[CC_MESSAGE_CAPACITY];
            snprintf(text, sizeof text, "file truncated: chunk %s at byte %zu claims %u bytes, but only %zu remain",
                     name, offset, (unsigned)length, remaining);
            cc_set_message(message, capacity, text);
            return 1;
        }
        if (memcmp(type, "IEND", 4) == 0 || (size_t)length > remaining || remaining - length < 4) return 0;
        offset += 12 + (size_t)length;
    }
    return 0;
}

/// Smallest per-chunk allocation cap (bytes); small files still get room for inflated
/// metadata such as an ICC profile.
#define CC_PNG_MIN_CHUNK_LIMIT ((size_t)1 << 20)

/// Reads the header, checks the limit and, when `out` is non-NULL, decodes into it.
static int cc_png_run(const uint8_t *data, size_t size, uint64_t max_pixels,
                      uint8_t *out, size_t out_capacity, cc_info *info,
                      char *message, size_t message_capacity) {
    memset(info, 0, sizeof *info);
    info->format = CC_FORMAT_PNG;
    if (data == NULL || size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        cc_set_message(message, message_capacity, "not a PNG (signature mismatch)");
        return CC_ERR_NOT_FORMAT;
    }
    if (cc_png_find_overlong_chunk(data, size, message, message_capacity)) return CC_ERR_TRUNCATED;
    png_read_context context;
    memset(&context, 0, sizeof context);
    context.data = data;
    context.size = size;

    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context,
                                             cc_png_error, cc_png_warning);
    if (png == NULL) {
        cc_set_message(message, message_capacity, "out of memory creating the PNG reader");
        return CC_ERR_NO_MEMORY;
    }
    png_infop png_info = png_create_info_struct(png);
    if (png_info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        cc_set_message(message, message_capacity, "out of memory creating the PNG reader");
        return CC_ERR_NO_MEMORY;
    }
    // png and png_info are not modified after setjmp, so they survive the longjmp intact.
    if (setjmp(png_jmpbuf(png))) {
        int status = context.hit_end ? CC_ERR_TRUNCATED
                   : context.out_of_memory ? CC_ERR_NO_MEMORY : CC_ERR_CORRUPT;
        cc_set_message(message, message_capacity, context.message);
        png_destroy_read_struct(&png, &png_info, NULL);
        return status;
    }
    png_set_read_fn(png, &context, cc_png_read_memory);
    // Our pixel limit decides what is too large, not libpng's default 1M x 1M.
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    // Bounds inflated zTXt/iTXt/iCCP data (over the cap libpng skips the chunk with a
    // warning); lengths past the end of the input were refused above.
    png_set_chunk_malloc_max(png, size < CC_PNG_MIN_CHUNK_LIMIT ? CC_PNG_MIN_CHUNK_LIMIT : size);
    png_read_info(png, png_info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, png_info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    int has_trns = png_get_valid(png, png_info, PNG_INFO_tRNS) != 0;
    info->width = width;
    info->height = height;
    info->bit_depth = bit_depth;
    info->color = cc_png_color(color_type);
    info->channels = png_get_channels(png, png_info);
    info->interlaced = interlace != PNG_INTERLACE_NONE;
    info->has_transparency = has_trns || (color_type & PNG_COLOR_MASK_ALPHA) != 0;

    if (width == 0 || height == 0 || cc_pixel_count(width, height) > max_pixels) {
        char text[CC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "PNG is %ux%u, over the limit of %llu pixels",
                 (unsigned)width, (unsigned)height, (unsigned long long)max_pixels);
        cc_set_message(message, message_capacity, text);
        png_destroy_read_struct(&png, &png_info, NULL);
        return CC_ERR_TOO_LARGE;
    }
    if (out == NULL) {
        png_destroy_read_struct(&png, &png_info, NULL);
        return CC_OK;
    }
    size_t stride = (size_t)width * 3;
    if (cc_pixel_count(width, height) > out_capacity / 3) {
        cc_set_message(message, message_capacity, "output buffer smaller than width*height*3");
        png_destroy_read_struct(&png, &png_info, NULL);
        return CC_ERR_ARGUMENT;
    }

    if (bit_depth == 16) png_set_scale_16(png);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if ((color_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
    // tRNS becomes an alpha channel through the palette expansion; drop every alpha channel
    // without compositing so colour values stay exactly what the file holds.
    if ((color_type & PNG_COLOR_MASK_ALPHA) != 0 || has_trns) png_set_strip_alpha(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, png_info);

    if (png_get_rowbytes(png, png_info) != stride || png_get_bit_depth(png, png_info) != 8
        || png_get_channels(png, png_info) != 3) {
        cc_set_message(message, message_capacity, "libpng transforms did not yield 8-bit RGB");
        png_destroy_read_struct(&png, &png_info, NULL);
        return CC_ERR_UNSUPPORTED;
    }
    // With interlace handling each pass writes its own pixels into the full rows, so decoding
    // straight into the caller's buffer needs no row-pointer array or staging copy.
    for (int pass = 0; pass < passes; pass++) {
        uint8_t *row = out;
        for (png_uint_32 y = 0; y < height; y++, row += stride) png_read_row(png, row, NULL);
    }
    // Reads to IEND so a file cut after the pixel data is still reported as truncated.
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &png_info, NULL);
    return CC_OK;
}

int cc_png_read_info(const uint8_t *data, size_t size, cc_info *info,
                     char *message, size_t message_capacity) {
    return cc_png_run(data, size, UINT64_MAX, NULL, 0, info, message, message_capacity);
}

int cc_png_decode_rgb8(const uint8_t *data, size_t size, uint64_t max_pixels,
                       uint8_t *out, size_t out_capacity, cc_info *info,
                       char *message, size_t message_capacity) {
    if (out == NULL) {
        cc_set_message(message, message_capacity, "no output buffer");
        return CC_ERR_ARGUMENT;
    }
    return cc_png_run(data, size, max_pixels, out, out_capacity, info, message, message_capacity);
}

typedef struct {
    cc_buffer buffer;
    int out_of_memory;
    char message[CC_MESSAGE_CAPACITY];
} png_write_context;

static void cc_png_write_error(png_structp png, png_const_charp text) {
    png_write_context *context = png_get_error_ptr(png);
    if (context != NULL) cc_set_message(context->message, sizeof context->message, text);
    png_longjmp(png, 1);
}

static void cc_png_write_memory(png_structp png, png_bytep bytes, size_t count) {
    png_write_context *context = png_get_io_ptr(png);
    if (!cc_buffer_reserve(&context->buffer, count)) {
        context->out_of_memory = 1;
        png_error(png, "out of memory growing the PNG output buffer");
    }
    memcpy(context->buffer.data + context->buffer.size, bytes, count);
    context->buffer.size += count;
}

static void cc_png_flush_memory(png_structp png) { (void)png; }

int cc_png_encode_rgb8(const uint8_t *pixels, uint32_t width, uint32_t height,
                       int compression_level, uint8_t **out, size_t *out_size,
                       char *message, size_t message_capacity) {
    if (out == NULL || out_size == NULL || pixels == NULL) {
        cc_set_message(message, message_capacity, "missing buffer argument");
        return CC_ERR_ARGUMENT;
    }
    *out = NULL;
    *out_size = 0;
    if (width == 0 || height == 0 || width > 0x7fffffffu || height > 0x7fffffffu
        || compression_level < 0 || compression_level > 9) {
        cc_set_message(message, message_capacity,
                       "PNG needs 1...2^31-1 pixels per side and compression level 0...9");
        return CC_ERR_ARGUMENT;
    }
    png_write_context context;
    memset(&context, 0, sizeof context);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context,
                                              cc_png_write_error, cc_png_warning);
    if (png == NULL) {
        cc_set_message(message, message_capacity, "out of memory creating the PNG writer");
        return CC_ERR_NO_MEMORY;
    }
    png_infop png_info = png_create_info_struct(png);
    if (png_info == NULL) {
        png_destroy_write_struct(&png, NULL);
        cc_set_message(message, message_capacity, "out of memory creating the PNG writer");
        return CC_ERR_NO_MEMORY;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(context.buffer.data);
        png_destroy_write_struct(&png, &png_info);
        cc_set_message(message, message_capacity, context.message);
        return context.out_of_memory ? CC_ERR_NO_MEMORY : CC_ERR_ENCODE;
    }
    png_set_write_fn(png, &context, cc_png_write_memory, cc_png_flush_memory);
    png_set_IHDR(png, png_info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, compression_level);
    png_write_info(png, png_info);
    size_t stride = (size_t)width * 3;
    const uint8_t *row = pixels;
    for (uint32_t y = 0; y < height; y++, row += stride) png_write_row(png, row);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &png_info);
    *out = context.buffer.data;
    *out_size = context.buffer.size;
    return CC_OK;
}
