// JPEG decode/encode with libjpeg(-turbo). Fatal errors longjmp back to the entry function;
// selected warnings (scan data cut short or corrupt) become errors in strict mode.
#include "ccodecs.h"
#include "internal.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

/// libjpeg error manager extended with the jump target and what went wrong.
typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int strict;
    int truncated;      // the data ran out (libjpeg's JWRN_JPEG_EOF), strict or not
    char message[JMSG_LENGTH_MAX];
} jpeg_error_context;

static void cc_jpeg_error_exit(j_common_ptr cinfo) {
    jpeg_error_context *context = (jpeg_error_context *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, context->message);
    longjmp(context->jump, 1);
}

static void cc_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

/// Most scans accepted in a progressive JPEG. Encoders write about 10; libjpeg runs every scan
/// over the whole coefficient buffer and only warns about repeated ones, so a small file of
/// thousands of scans costs minutes of CPU (about 2 ms per scan and megapixel here).
#define CC_JPEG_MAX_SCANS 200

/// Progress monitor that stops a decode with too many scans.
typedef struct {
    struct jpeg_progress_mgr pub;
    jpeg_error_context *errors;
} jpeg_scan_limit;

static void cc_jpeg_check_scans(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    jpeg_scan_limit *limit = (jpeg_scan_limit *)cinfo->progress;
    if (((j_decompress_ptr)cinfo)->input_scan_number > CC_JPEG_MAX_SCANS) {
        snprintf(limit->errors->message, sizeof limit->errors->message,
                 "more than %d scans in a progressive JPEG", CC_JPEG_MAX_SCANS);
        limit->errors->truncated = 0;
        longjmp(limit->errors->jump, 1);
    }
}

/// Warnings that mean the decoded pixels are not what the file should hold: libjpeg fills
/// the missing or unreadable blocks and carries on.
static int cc_jpeg_is_damage_warning(int code) {
    return code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE
        || code == JWRN_MUST_RESYNC;
}

static void cc_jpeg_emit_message(j_common_ptr cinfo, int level) {
    jpeg_error_context *context = (jpeg_error_context *)cinfo->err;
    if (level >= 0) return;  // trace messages
    // A lenient decode that still fails later (e.g. the header was cut) is a truncation too.
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) context->truncated = 1;
    if (context->strict && cc_jpeg_is_damage_warning(cinfo->err->msg_code)) {
        (*cinfo->err->format_message)(cinfo, context->message);
        longjmp(context->jump, 1);
    }
    cinfo->err->num_warnings++;
}

static void cc_jpeg_install_errors(jpeg_error_context *context, int strict) {
    jpeg_std_error(&context->pub);
    context->pub.error_exit = cc_jpeg_error_exit;
    context->pub.emit_message = cc_jpeg_emit_message;
    context->pub.output_message = cc_jpeg_output_message;
    context->strict = strict;
    context->truncated = 0;
    context->message[0] = '\0';
}

static int cc_jpeg_color(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return CC_COLOR_GRAY;
    case JCS_YCbCr: return CC_COLOR_YCBCR;
    case JCS_RGB: return CC_COLOR_RGB;
    case JCS_CMYK: return CC_COLOR_CMYK;
    case JCS_YCCK: return CC_COLOR_YCCK;
    default: return CC_COLOR_UNKNOWN;
    }
}

/// (a * b) / 255 rounded, for a, b in 0...255.
static inline uint8_t cc_mul255(unsigned a, unsigned b) {
    unsigned t = a * b + 128;
    return (uint8_t)((t + (t >> 8)) >> 8);
}

/// CMYK row to RGB. Adobe files store 255 - ink, so the stored value already is the
/// "remaining light" factor; plain CMYK files store ink amounts.
static void cc_cmyk_row_to_rgb(const uint8_t *cmyk, uint8_t *rgb, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++, cmyk += 4, rgb += 3) {
        unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        rgb[0] = cc_mul255(c, k);
        rgb[1] = cc_mul255(m, k);
        rgb[2] = cc_mul255(y, k);
    }
}

static int cc_jpeg_run(const uint8_t *data, size_t size, uint64_t max_pixels, int strict,
                       uint8_t *out, size_t out_capacity, cc_info *info,
                       char *message, size_t message_capacity) {
    memset(info, 0, sizeof *info);
    info->format = CC_FORMAT_JPEG;
    if (data == NULL || size < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF) {
        cc_set_message(message, message_capacity, "not a JPEG (no SOI marker)");
        return CC_ERR_NOT_FORMAT;
    }
    struct jpeg_decompress_struct cinfo;
    jpeg_error_context errors;
    // Changed after setjmp and needed on the error path, hence volatile.
    uint8_t *volatile cmyk_row = NULL;
    memset(&cinfo, 0, sizeof cinfo);
    cc_jpeg_install_errors(&errors, strict);
    cinfo.err = &errors.pub;
    jpeg_scan_limit scan_limit;
    memset(&scan_limit, 0, sizeof scan_limit);
    scan_limit.pub.progress_monitor = cc_jpeg_check_scans;
    scan_limit.errors = &errors;
    if (setjmp(errors.jump)) {
        // A 12- or 16-bit JPEG (or a coding process the library lacks) is valid, just not
        // decodable by this 8-bit build: unsupported, not corrupt.
        int code = errors.pub.msg_code;
        int status = errors.truncated ? CC_ERR_TRUNCATED
                   : code == JERR_OUT_OF_MEMORY ? CC_ERR_NO_MEMORY
                   : (code == JERR_BAD_PRECISION || code == JERR_NOTIMPL) ? CC_ERR_UNSUPPORTED : CC_ERR_CORRUPT;
        cc_set_message(message, message_capacity, errors.message);
        free(cmyk_row);
        jpeg_destroy_decompress(&cinfo);
        return status;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &scan_limit.pub;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK) {
        cc_set_message(message, message_capacity, "JPEG holds tables only, no image");
        jpeg_destroy_decompress(&cinfo);
        return CC_ERR_CORRUPT;
    }
    uint32_t width = cinfo.image_width, height = cinfo.image_height;
    info->width = width;
    info->height = height;
    info->bit_depth = cinfo.data_precision;
    info->color = cc_jpeg_color(cinfo.jpeg_color_space);
    info->channels = cinfo.num_components;
    info->interlaced = cinfo.progressive_mode != 0;
    info->adobe_inverted = cinfo.saw_Adobe_marker
        && (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK);

    if (width == 0 || height == 0 || cc_pixel_count(width, height) > max_pixels) {
        char text[CC_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "JPEG is %ux%u, over the limit of %llu pixels",
                 (unsigned)width, (unsigned)height, (unsigned long long)max_pixels);
        cc_set_message(message, message_capacity, text);
        jpeg_destroy_decompress(&cinfo);
        return CC_ERR_TOO_LARGE;
    }
    if (out == NULL) {
        jpeg_destroy_decompress(&cinfo);
        return CC_OK;
    }
    if (cc_pixel_count(width, height) > out_capacity / 3) {
        cc_set_message(message, message_capacity, "output buffer smaller than width*height*3");
        jpeg_destroy_decompress(&cinfo);
        return CC_ERR_ARGUMENT;
    }
    int cmyk = 0;
    switch (cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: case JCS_YCbCr: case JCS_RGB:
        cinfo.out_color_space = JCS_RGB;
        break;
    case JCS_CMYK: case JCS_YCCK:
        // libjpeg turns YCCK into CMYK; CMYK to RGB is ours.
        cinfo.out_color_space = JCS_CMYK;
        cmyk = 1;
        break;
    default:
        cc_set_message(message, message_capacity, "JPEG colour space cannot be converted to RGB");
        jpeg_destroy_decompress(&cinfo);
        return CC_ERR_UNSUPPORTED;
    }
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_width != width || cinfo.output_height != height
        || cinfo.output_components != (cmyk ? 4 : 3)) {
        cc_set_message(message, message_capacity, "libjpeg output does not match the header");
        jpeg_destroy_decompress(&cinfo);
        return CC_ERR_UNSUPPORTED;
    }
    size_t stride = (size_t)width * 3;
    if (cmyk) {
        cmyk_row = malloc((size_t)width * 4);
        if (cmyk_row == NULL) {
            cc_set_message(message, message_capacity, "out of memory for a CMYK row");
            jpeg_destroy_decompress(&cinfo);
            return CC_ERR_NO_MEMORY;
        }
    }
    while (cinfo.output_scanline < height) {
        uint8_t *destination = out + (size_t)cinfo.output_scanline * stride;
        JSAMPROW rows[1] = { cmyk ? cmyk_row : destination };
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) {
            // Only a suspending data source returns 0 rows; ours never suspends.
            cc_set_message(message, message_capacity, "libjpeg returned no scanline");
            free(cmyk_row);
            jpeg_destroy_decompress(&cinfo);
            return CC_ERR_CORRUPT;
        }
        if (cmyk) cc_cmyk_row_to_rgb(cmyk_row, destination, width, cinfo.saw_Adobe_marker);
    }
    jpeg_finish_decompress(&cinfo);
    free(cmyk_row);
    jpeg_destroy_decompress(&cinfo);
    return CC_OK;
}

int cc_jpeg_read_info(const uint8_t *data, size_t size, cc_info *info,
                      char *message, size_t message_capacity) {
    return cc_jpeg_run(data, size, UINT64_MAX, 1, NULL, 0, info, message, message_capacity);
}

int cc_jpeg_decode_rgb8(const uint8_t *data, size_t size, uint64_t max_pixels, int strict,
                        uint8_t *out, size_t out_capacity, cc_info *info,
                        char *message, size_t message_capacity) {
    if (out == NULL) {
        cc_set_message(message, message_capacity, "no output buffer");
        return CC_ERR_ARGUMENT;
    }
    return cc_jpeg_run(data, size, max_pixels, strict, out, out_capacity, info,
                       message, message_capacity);
}

/// Destination manager writing into a growable malloc'd buffer that we own (so the error
/// path can free it), rather than jpeg_mem_dest's internally managed one.
typedef struct {
    struct jpeg_destination_mgr pub;
    cc_buffer buffer;
} jpeg_memory_destination;

static void cc_jpeg_out_of_memory(j_compress_ptr cinfo) {
    cinfo->err->msg_code = JERR_OUT_OF_MEMORY;
    (*cinfo->err->error_exit)((j_common_ptr)cinfo);
}

static void cc_jpeg_init_destination(j_compress_ptr cinfo) {
    jpeg_memory_destination *destination = (jpeg_memory_destination *)cinfo->dest;
    if (!cc_buffer_reserve(&destination->buffer, 65536)) cc_jpeg_out_of_memory(cinfo);
    destination->pub.next_output_byte = destination->buffer.data;
    destination->pub.free_in_buffer = destination->buffer.capacity;
}

static boolean cc_jpeg_empty_output(j_compress_ptr cinfo) {
    jpeg_memory_destination *destination = (jpeg_memory_destination *)cinfo->dest;
    // libjpeg calls this when the whole free space is used up.
    destination->buffer.size = destination->buffer.capacity;
    if (!cc_buffer_reserve(&destination->buffer, destination->buffer.capacity))
        cc_jpeg_out_of_memory(cinfo);
    destination->pub.next_output_byte = destination->buffer.data + destination->buffer.size;
    destination->pub.free_in_buffer = destination->buffer.capacity - destination->buffer.size;
    return TRUE;
}

static void cc_jpeg_term_destination(j_compress_ptr cinfo) {
    jpeg_memory_destination *destination = (jpeg_memory_destination *)cinfo->dest;
    destination->buffer.size = destination->buffer.capacity - destination->pub.free_in_buffer;
}

static J_COLOR_SPACE cc_jpeg_space_for(int color) {
    switch (color) {
    case CC_COLOR_GRAY: return JCS_GRAYSCALE;
    case CC_COLOR_YCBCR: return JCS_YCbCr;
    case CC_COLOR_RGB: return JCS_RGB;
    case CC_COLOR_CMYK: return JCS_CMYK;
    case CC_COLOR_YCCK: return JCS_YCCK;
    default: return JCS_UNKNOWN;
    }
}

int cc_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                   const cc_jpeg_encode_options *options, uint8_t **out, size_t *out_size,
                   char *message, size_t message_capacity) {
    if (out == NULL || out_size == NULL || pixels == NULL || options == NULL) {
        cc_set_message(message, message_capacity, "missing buffer argument");
        return CC_ERR_ARGUMENT;
    }
    *out = NULL;
    *out_size = 0;
    int components = options->components;
    if (width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION
        || (components != 1 && components != 3 && components != 4)
        || options->quality < 1 || options->quality > 100) {
        cc_set_message(message, message_capacity,
                       "JPEG needs 1...65500 pixels per side, 1, 3 or 4 components, quality 1...100");
        return CC_ERR_ARGUMENT;
    }
    struct jpeg_compress_struct cinfo;
    jpeg_error_context errors;
    jpeg_memory_destination destination;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&destination, 0, sizeof destination);
    cc_jpeg_install_errors(&errors, 0);
    cinfo.err = &errors.pub;
    if (setjmp(errors.jump)) {
        int status = errors.pub.msg_code == JERR_OUT_OF_MEMORY ? CC_ERR_NO_MEMORY : CC_ERR_ENCODE;
        cc_set_message(message, message_capacity, errors.message);
        free(destination.buffer.data);
        jpeg_destroy_compress(&cinfo);
        return status;
    }
    jpeg_create_compress(&cinfo);
    destination.pub.init_destination = cc_jpeg_init_destination;
    destination.pub.empty_output_buffer = cc_jpeg_empty_output;
    destination.pub.term_destination = cc_jpeg_term_destination;
    cinfo.dest = &destination.pub;
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&cinfo);
    if (options->colorspace != 0) {
        J_COLOR_SPACE space = cc_jpeg_space_for(options->colorspace);
        if (space == JCS_UNKNOWN) {
            cc_set_message(message, message_capacity, "unknown JPEG colour space");
            jpeg_destroy_compress(&cinfo);
            return CC_ERR_ARGUMENT;
        }
        jpeg_set_colorspace(&cinfo, space);
    }
    if (options->adobe_marker >= 0) cinfo.write_Adobe_marker = options->adobe_marker ? TRUE : FALSE;
    jpeg_set_quality(&cinfo, options->quality, TRUE);
    if (options->full_chroma) {
        for (int i = 0; i < cinfo.num_components; i++) {
            cinfo.comp_info[i].h_samp_factor = 1;
            cinfo.comp_info[i].v_samp_factor = 1;
        }
    }
    if (options->progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < height) {
        JSAMPROW rows[1] = { (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride) };
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = destination.buffer.data;
    *out_size = destination.buffer.size;
    return CC_OK;
}
