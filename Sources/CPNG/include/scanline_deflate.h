// Backdrop's zlib-stream compressor for PNG's filtered scanlines (see scanline_deflate.c).
#ifndef BD_SCANLINE_DEFLATE_H
#define BD_SCANLINE_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

/// How matches are looked for: 32 bytes a step in SSE2 lanes where the build has them (else as BD_SCANLINE_SCALAR),
/// or a byte at a time. Both write the same stream.
typedef enum {
    BD_SCANLINE_VECTOR = 0,
    BD_SCANLINE_SCALAR = 1,
} bd_scanline_search;

/// What a compression wrote, for the PNG writer's fallback and the tests.
typedef struct {
    uint64_t length_codes[29];    // matches coded with each length code (symbols 257-285)
    uint64_t distance_codes[30];  // and each distance code
    uint64_t coded_blocks, stored_blocks;
    uint64_t full_blocks;         // blocks ended by the symbol limit rather than the input
    uint64_t blind_bits;          // an estimate of the bits spent on stretches that repeat only at distances the
                                  // search does not try (where a general matcher such as libdeflate's does better)
} bd_scanline_report;

/// The most bytes bd_scanline_deflate can write for `length` input bytes.
size_t bd_scanline_deflate_bound(size_t length);

/// Compresses `length` bytes of filtered scanlines, each `row_bytes` long (filter byte included) with `pixel_bytes`
/// bytes a pixel, into a zlib stream at `out` (at least bd_scanline_deflate_bound(length) bytes). Returns the stream's
/// length, or 0 when working memory could not be had or `length` is 4 GiB or more.
size_t bd_scanline_deflate(const uint8_t *in, size_t length, size_t row_bytes, size_t pixel_bytes,
                           bd_scanline_search search, uint8_t *out, bd_scanline_report *report);

/// RFC 1951's codes as the compressor writes them: the symbol (257-285) of a match length 3-258, or the code (0-29)
/// of a distance 1-32768, with its extra bits' count and value; -1 outside those ranges.
int bd_deflate_length_code(unsigned length, unsigned *extra_bits, unsigned *extra_value);
int bd_deflate_distance_code(unsigned distance, unsigned *extra_bits, unsigned *extra_value);

#endif
