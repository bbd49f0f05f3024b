// Benchmark baselines: the libraries used as plainly as possible, to measure what the Swift
// API adds on top of them.
#include "ccodecs.h"
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

int cc_reference_png_decode(const uint8_t *data, size_t size, uint8_t **out,
                            uint32_t *width, uint32_t *height) {
    *out = NULL;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return CC_ERR_CORRUPT;
    image.format = PNG_FORMAT_RGB;
    uint8_t *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (pixels == NULL) {
        png_image_free(&image);
        return CC_ERR_NO_MEMORY;
    }
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        free(pixels);
        return CC_ERR_CORRUPT;
    }
    *out = pixels;
    *width = image.width;
    *height = image.height;
    return CC_OK;
}

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} reference_jpeg_errors;

static void reference_jpeg_error_exit(j_common_ptr cinfo) {
    longjmp(((reference_jpeg_errors *)cinfo->err)->jump, 1);
}

int cc_reference_jpeg_decode(const uint8_t *data, size_t size, uint8_t **out,
                             uint32_t *width, uint32_t *height) {
    *out = NULL;
    struct jpeg_decompress_struct cinfo;
    reference_jpeg_errors errors;
    uint8_t *volatile pixels = NULL;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = reference_jpeg_error_exit;
    if (setjmp(errors.jump)) {
        free(pixels);
        jpeg_destroy_decompress(&cinfo);
        return CC_ERR_CORRUPT;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 3;
    pixels = malloc(stride * cinfo.output_height);
    if (pixels == NULL) {
        jpeg_destroy_decompress(&cinfo);
        return CC_ERR_NO_MEMORY;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    *out = pixels;
    *width = cinfo.output_width;
    *height = cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    return CC_OK;
}
