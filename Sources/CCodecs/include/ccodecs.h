#ifndef CCODECS_H
#define CCODECS_H
// PNG and JPEG decoding/encoding behind a setjmp boundary: libpng and libjpeg report fatal
// errors with longjmp, which must never cross Swift frames. Every function here sets its own
// setjmp, runs the library to completion or failure, releases everything it allocated and
// returns a status code plus the library's message copied into a caller buffer.

#include <stddef.h>
#include <stdint.h>

/// Status codes returned by every cc_* function.
enum {
    CC_OK = 0,
    CC_ERR_NOT_FORMAT = 1,   ///< the signature does not belong to the requested format
    CC_ERR_TOO_LARGE = 2,    ///< width * height exceeds the caller's pixel limit (nothing allocated)
    CC_ERR_TRUNCATED = 3,    ///< the data ended before the image did
    CC_ERR_CORRUPT = 4,      ///< the library rejected the data (message says why)
    CC_ERR_NO_MEMORY = 5,
    CC_ERR_ARGUMENT = 6,     ///< a caller argument was invalid (e.g. output buffer too small)
    CC_ERR_UNSUPPORTED = 7,  ///< valid file, but a kind this decoder cannot convert to RGB
    CC_ERR_ENCODE = 8,       ///< the encoder failed
};

enum { CC_FORMAT_PNG = 1, CC_FORMAT_JPEG = 2 };

/// Colour model as stored in the file.
enum {
    CC_COLOR_UNKNOWN = 0,
    CC_COLOR_GRAY = 1,
    CC_COLOR_GRAY_ALPHA = 2,
    CC_COLOR_PALETTE = 3,
    CC_COLOR_RGB = 4,
    CC_COLOR_RGBA = 5,
    CC_COLOR_YCBCR = 6,
    CC_COLOR_CMYK = 7,
    CC_COLOR_YCCK = 8,
};

/// Suggested size of the message buffer callers pass in (libjpeg's JMSG_LENGTH_MAX is 200).
#define CC_MESSAGE_CAPACITY 256

/// What a file's header says.
typedef struct {
    int format;            ///< CC_FORMAT_*
    uint32_t width;        ///< pixels
    uint32_t height;       ///< pixels
    int bit_depth;         ///< bits per sample as stored (PNG 1..16, JPEG data precision)
    int color;             ///< CC_COLOR_*
    int channels;          ///< samples per pixel as stored (palette: 1)
    int interlaced;        ///< PNG Adam7 or progressive JPEG
    int has_transparency;  ///< PNG alpha channel or tRNS chunk (always 0 for JPEG)
    int adobe_inverted;    ///< JPEG CMYK/YCCK with an Adobe marker: samples stored inverted
} cc_info;

/// Reads only the header of a PNG held in memory.
int cc_png_read_info(const uint8_t *data, size_t size, cc_info *info,
                     char *message, size_t message_capacity);

/// Decodes a PNG of any colour type and bit depth to 8-bit RGB, straight into `out`
/// (rows top to bottom, width * 3 bytes each). `max_pixels` is checked after the header and
/// before decoding; `out_capacity` must be at least width * height * 3. `info` is filled
/// whenever the header was read, also on later failure.
int cc_png_decode_rgb8(const uint8_t *data, size_t size, uint64_t max_pixels,
                       uint8_t *out, size_t out_capacity, cc_info *info,
                       char *message, size_t message_capacity);

/// Reads only the header (up to the first scan) of a JPEG held in memory.
int cc_jpeg_read_info(const uint8_t *data, size_t size, cc_info *info,
                      char *message, size_t message_capacity);

/// Decodes a baseline/progressive grey, YCbCr, RGB, CMYK or YCCK JPEG to 8-bit RGB straight
/// into `out`. With `strict` nonzero, data that libjpeg only warns about (scan data ending
/// early, corrupt entropy-coded data) is an error instead of a grey-filled image.
int cc_jpeg_decode_rgb8(const uint8_t *data, size_t size, uint64_t max_pixels, int strict,
                        uint8_t *out, size_t out_capacity, cc_info *info,
                        char *message, size_t message_capacity);

/// Encodes 8-bit RGB as a non-interlaced PNG. `compression_level` is zlib's 0...9.
/// On success `*out` is a malloc'd buffer of `*out_size` bytes that the caller frees with cc_free.
int cc_png_encode_rgb8(const uint8_t *pixels, uint32_t width, uint32_t height,
                       int compression_level, uint8_t **out, size_t *out_size,
                       char *message, size_t message_capacity);

/// JPEG encoder settings. The input is interleaved 8-bit samples, `components` per pixel.
typedef struct {
    int components;    ///< 1 grey, 3 RGB, 4 CMYK (samples written as given)
    int quality;       ///< 1...100
    int progressive;   ///< nonzero: progressive scan script
    int colorspace;    ///< CC_COLOR_* stored in the file; 0: the library default for the input
    int adobe_marker;  ///< -1 library default, 0 omit, 1 write
    int full_chroma;   ///< nonzero: no chroma subsampling (4:4:4)
} cc_jpeg_encode_options;

/// Encodes interleaved samples as JPEG. Output as for cc_png_encode_rgb8.
int cc_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                   const cc_jpeg_encode_options *options, uint8_t **out, size_t *out_size,
                   char *message, size_t message_capacity);

/// Frees a buffer returned by an encoder.
void cc_free(void *pointer);

/// Benchmark references: decode with the libraries' plainest APIs (libpng's simplified
/// png_image_* API, a bare libjpeg scanline loop) into a malloc'd RGB buffer returned in `*out`
/// (free with cc_free). Returns CC_OK or an error code; no messages.
int cc_reference_png_decode(const uint8_t *data, size_t size, uint8_t **out,
                            uint32_t *width, uint32_t *height);
int cc_reference_jpeg_decode(const uint8_t *data, size_t size, uint8_t **out,
                             uint32_t *width, uint32_t *height);

#endif
