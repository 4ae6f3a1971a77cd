#ifndef BACKDROP_CPNG_H
#define BACKDROP_CPNG_H

#include <stddef.h>
#include <stdint.h>

#include "cpixels.h"
#include "png_filters.h"
#include "scanline_deflate.h"

/// Bytes handed to the caller: decoded pixels, freed with `bd_png_free`, or an encoded file, which lives in the
/// calling thread's scratch space until that thread's next encode.
typedef struct {
    uint8_t *bytes;
    size_t length;
} bd_png_buffer;

/// Decodes any PNG (every colour type and bit depth, palette, tRNS, interlaced) to RGB8; alpha is dropped.
/// Refuses images over `max_pixels` before allocating them; ancillary chunks are capped in count and size.
/// Returns 0 with `out` holding width * height * 3 bytes, or -1 with a message in `error`.
int bd_png_decode(const uint8_t *data, size_t length, uint64_t max_pixels, bd_png_buffer *out, int *width, int *height,
                  char *error, size_t error_length);

/// What compresses the filtered rows of bd_png_encode_rows.
typedef enum {
    /// Backdrop's scanline deflate (matches looked for at the byte before, the pixel before and the pixel above),
    /// which hands textures it is blind to to libdeflate and keeps the smaller stream.
    BD_PNG_DEFLATE_SCANLINE = 0,
    /// libdeflate at level 1.
    BD_PNG_DEFLATE_LIBDEFLATE = 1,
} bd_png_deflate;

/// Encodes RGB8 as a PNG whose rows are filtered Up or Paeth (png_filters.h) and compressed in one pass by `deflate`.
/// With `effect_rows` (an effect enlarged row by row, cpixels.h), each row is first mixed with the effect's by
/// bd_blend (weight 0...BD_BLEND_ONE), so neither a blended image nor the enlarged effect is ever stored whole.
/// Scratch memory is kept per thread.
int bd_png_encode_rows(const uint8_t *rgb, bd_enlarger *effect_rows, uint32_t weight, int width, int height,
                       bd_png_deflate deflate, bd_png_buffer *out, char *error, size_t error_length);

/// The PNG around a zlib stream, for writers of other rows (the bench's): bd_png_write_head writes the signature,
/// IHDR (RGB8, not interlaced) and IDAT's header, BD_PNG_HEAD_LENGTH bytes, after which the stream goes;
/// bd_png_write_tail then closes IDAT and writes IEND after a stream of `idat_length` bytes, and returns the file's
/// length (the stream and BD_PNG_HEAD_LENGTH + BD_PNG_TAIL_LENGTH bytes).
#define BD_PNG_HEAD_LENGTH (8 + 25 + 8)
#define BD_PNG_TAIL_LENGTH (4 + 12)
void bd_png_write_head(uint8_t *png, int width, int height);
size_t bd_png_write_tail(uint8_t *png, size_t idat_length);

void bd_png_free(void *bytes);

#endif
