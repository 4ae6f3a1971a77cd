// The bench's image encoders: the PNG writers, filters and levels, and the AVIF settings the service does not use,
// kept so that `make bench` compares them with the service's on the same images. The service does not link this.
#ifndef BACKDROP_CIMAGINGLAB_H
#define BACKDROP_CIMAGINGLAB_H

#include <stddef.h>
#include <stdint.h>

/// What compresses a lab PNG's filtered rows.
typedef enum {
    BD_LAB_LIBPNG = 0,      // libpng's writer with zlib at `level` 0-9
    BD_LAB_LIBDEFLATE = 1,  // libdeflate at `level` 0-12
    BD_LAB_SCANLINE = 2,    // Backdrop's scanline deflate alone (no texture fallback); `level` is ignored
} bd_lab_compressor;

/// How a lab PNG's rows are filtered: PNG's five filters, libpng's choice per row by the smallest sum of magnitudes,
/// or the service's Up or Paeth.
typedef enum {
    BD_LAB_NONE = 0,
    BD_LAB_SUB = 1,
    BD_LAB_UP = 2,
    BD_LAB_AVERAGE = 3,
    BD_LAB_PAETH = 4,
    BD_LAB_ADAPTIVE = 5,
    BD_LAB_UP_OR_PAETH = 6,
} bd_lab_filter;

/// Encodes RGB8 as a PNG. Returns 0 with `*out` (free with bd_lab_free) and `*out_length`, or -1 with a message.
int bd_lab_png_encode(const uint8_t *rgb, int width, int height, bd_lab_compressor compressor, int level,
                      bd_lab_filter filter, uint8_t **out, size_t *out_length, char *error, size_t error_length);

/// What the AVIF study varies beside the quantizer and speed: `codec` 0 libaom, 1 rav1e, 2 SVT-AV1; tiling; and
/// libavif's codec-specific "key=value" options separated by spaces (NULL for none). On return, `convert_ns` and
/// `encode_ns` hold the thread CPU time the RGB to YUV conversion and the encode took.
typedef struct {
    int quantizer;
    int speed;
    int full_chroma;
    int codec;
    int tile_rows_log2;
    int tile_cols_log2;
    const char *options;
    int64_t convert_ns;
    int64_t encode_ns;
} bd_lab_avif_settings;

int bd_lab_avif_encode(const uint8_t *rgb, int width, int height, bd_lab_avif_settings *settings, uint8_t **out,
                       size_t *out_length, char *message, size_t message_size);

void bd_lab_free(void *bytes);

#endif
