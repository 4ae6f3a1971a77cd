// A zlib-stream compressor for PNG's filtered scanlines (see scanline_deflate.c).
#ifndef BD_SCANLINE_DEFLATE_H
#define BD_SCANLINE_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

// The most bytes bd_scanline_deflate can write for `length` input bytes.
size_t bd_scanline_deflate_bound(size_t length);

// Compresses `length` bytes of filtered scanlines, each `row_bytes` long (filter byte included) with `pixel_bytes`
// bytes a pixel, into a zlib stream at `out` (at least bd_scanline_deflate_bound(length) bytes). Returns the stream's
// length, or 0 when working memory could not be had.
size_t bd_scanline_deflate(const uint8_t *in, size_t length, size_t row_bytes, size_t pixel_bytes, uint8_t *out);

#endif
