#ifndef BACKDROP_CPNG_H
#define BACKDROP_CPNG_H

#include <stddef.h>
#include <stdint.h>

#include "cpixels.h"

/// PNG row filters. BD_PNG_FILTER_ADAPTIVE picks per row the filter with the smallest sum of absolute values;
/// BD_PNG_FILTER_UP_OR_PAETH picks Up or Paeth per row by what the row would cost the scanline deflate (see
/// row_filter.c): Up where it leaves repeats (gradients, blurred areas), Paeth where it leaves smaller residuals.
typedef enum {
    BD_PNG_FILTER_NONE = 0,
    BD_PNG_FILTER_SUB = 1,
    BD_PNG_FILTER_UP = 2,
    BD_PNG_FILTER_AVERAGE = 3,
    BD_PNG_FILTER_PAETH = 4,
    BD_PNG_FILTER_ADAPTIVE = 5,
    BD_PNG_FILTER_UP_OR_PAETH = 6,
} bd_png_filter;

/// Encoded bytes handed to the caller. When `must_free` is set the caller frees them with `bd_png_free`;
/// otherwise they live in the calling thread's scratch space until that thread's next encode.
typedef struct {
    uint8_t *bytes;
    size_t length;
    int must_free;
} bd_png_buffer;

/// Decodes any PNG (every colour type and bit depth, palette, tRNS, interlaced) to RGB8; alpha is dropped.
/// Refuses images over `max_pixels` before allocating them; ancillary chunks are capped in count and size.
/// Returns 0 with `out` holding width * height * 3 bytes, or -1 with a message in `error`.
int bd_png_decode(const uint8_t *data, size_t length, uint64_t max_pixels, bd_png_buffer *out, int *width, int *height,
                  char *error, size_t error_length);

/// Encodes RGB8 with libpng and zlib.
int bd_png_encode_libpng(const uint8_t *rgb, int width, int height, int level, bd_png_filter filter, bd_png_buffer *out,
                         char *error, size_t error_length);

/// What compresses the filtered rows of bd_png_encode_rows.
typedef enum {
    /// libdeflate at the given level (0-12).
    BD_PNG_DEFLATE_LIBDEFLATE = 0,
    /// Backdrop's scanline deflate (level 1 only): matches looked for at the byte before, the pixel before and the
    /// pixel above.
    BD_PNG_DEFLATE_SCANLINE = 1,
} bd_png_deflate;

/// Encodes RGB8 as a PNG whose filtered rows are compressed in one pass by `deflate`.
/// With an effect, `blend_with` (an image of the same size) or `effect_rows` (enlarged row by row, cpixels.h), each
/// row is first mixed by bd_blend (weight 0...BD_BLEND_ONE), so neither a blended image nor the enlarged effect is
/// ever stored whole. Scratch memory is kept per thread.
int bd_png_encode_rows(const uint8_t *rgb, const uint8_t *blend_with, bd_enlarger *effect_rows, uint32_t weight,
                       int width, int height, bd_png_deflate deflate, int level, bd_png_filter filter,
                       bd_png_buffer *out, char *error, size_t error_length);

void bd_png_free(void *bytes);

#endif
