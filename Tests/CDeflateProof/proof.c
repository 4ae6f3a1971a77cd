// The scanline deflate against three decoders, on seeded random inputs built to cross every path: runs, repeats of the
// pixel before and the row above, noise (stored blocks), long stretches of literals (blocks ended by the symbol limit),
// row lengths in every distance code's range and past the window, and the PNG widths the API allows at its edges.
#include "cdeflateproof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "cpng.h"

// SplitMix64: small, seedable, the same on every machine.
static uint64_t next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static size_t below(uint64_t *state, size_t bound) {
    return bound == 0 ? 0 : (size_t)(next(state) % bound);
}

// Fills `out` with stretches of what filtered rows hold: runs of one byte, copies of the pixel before or the row
// above (the repeats the search looks for), copies from anywhere in the window, short noise and long noise.
static void fill(uint64_t *state, uint8_t *out, size_t length, size_t row_bytes, size_t pixel_bytes) {
    size_t i = 0;
    while (i < length) {
        size_t kind = below(state, 6);
        size_t span = 1 + (below(state, 4) == 0 ? below(state, 2000) : below(state, 300));
        span = span < length - i ? span : length - i;
        if (kind == 0) {
            memset(out + i, (int)below(state, 4) * 255 / 3, span);
        } else if (kind <= 3) {
            size_t distance = kind == 1 ? pixel_bytes : kind == 2 ? row_bytes : 1 + below(state, 32768);
            for (size_t k = 0; k < span; k++) {
                out[i + k] = i + k >= distance ? out[i + k - distance] : (uint8_t)next(state);
            }
        } else {
            unsigned mask = kind == 4 ? 0x07 : 0xff;  // small residuals, or anything
            for (size_t k = 0; k < span; k++) out[i + k] = (uint8_t)(next(state) & mask);
        }
        i += span;
    }
}

static void add_report(bd_proof_counts *counts, const bd_scanline_report *report) {
    for (int c = 0; c < 29; c++) counts->length_codes[c] += report->length_codes[c];
    for (int c = 0; c < 30; c++) counts->distance_codes[c] += report->distance_codes[c];
    counts->coded_blocks += report->coded_blocks;
    counts->stored_blocks += report->stored_blocks;
    counts->full_blocks += report->full_blocks;
}

// Inflates a zlib stream with zlib and requires exactly `expected` back.
static int zlib_gives(const uint8_t *stream, size_t length, const uint8_t *expected, size_t expected_length,
                      uint8_t *scratch) {
    uLongf out_length = (uLongf)expected_length + 1;
    if (uncompress(scratch, &out_length, stream, (uLong)length) != Z_OK) return 0;
    return out_length == expected_length && memcmp(scratch, expected, expected_length) == 0;
}

static int libdeflate_gives(struct libdeflate_decompressor *decompressor, const uint8_t *stream, size_t length,
                            const uint8_t *expected, size_t expected_length, uint8_t *scratch) {
    size_t out_length = 0;
    if (libdeflate_zlib_decompress(decompressor, stream, length, scratch, expected_length + 1, &out_length) !=
        LIBDEFLATE_SUCCESS) {
        return 0;
    }
    return out_length == expected_length && memcmp(scratch, expected, expected_length) == 0;
}

static int fail(char *error, size_t error_length, const char *what, uint64_t seed, size_t a, size_t b, size_t c) {
    snprintf(error, error_length, "%s (case seed %llu: %zu, %zu, %zu)", what, (unsigned long long)seed, a, b, c);
    return -1;
}

// Compresses `in` both ways and checks the streams and both decoders. `scratch` holds length + 1 bytes, `out` and
// `other` bd_scanline_deflate_bound(length) each.
static int check_stream(const uint8_t *in, size_t length, size_t row_bytes, size_t pixel_bytes,
                        struct libdeflate_decompressor *decompressor, bd_proof_counts *counts, uint8_t *out,
                        uint8_t *other, uint8_t *scratch, uint64_t seed, char *error, size_t error_length) {
    bd_scanline_report report, scalar_report;
    size_t written = bd_scanline_deflate(in, length, row_bytes, pixel_bytes, BD_SCANLINE_VECTOR, out, &report);
    size_t scalar = bd_scanline_deflate(in, length, row_bytes, pixel_bytes, BD_SCANLINE_SCALAR, other, &scalar_report);
    if (written == 0 || written > bd_scanline_deflate_bound(length)) {
        return fail(error, error_length, "no stream, or one past the bound", seed, length, row_bytes, pixel_bytes);
    }
    if (scalar != written || memcmp(out, other, written) != 0) {
        return fail(error, error_length, "the vector and scalar searches differ", seed, length, row_bytes, pixel_bytes);
    }
    if (!zlib_gives(out, written, in, length, scratch)) {
        return fail(error, error_length, "zlib does not read the input back", seed, length, row_bytes, pixel_bytes);
    }
    if (!libdeflate_gives(decompressor, out, written, in, length, scratch)) {
        return fail(error, error_length, "libdeflate does not read the input back", seed, length, row_bytes,
                    pixel_bytes);
    }
    add_report(counts, &report);
    counts->streams++;
    counts->bytes += length;
    counts->wide_rows += row_bytes > 32768;
    return 0;
}

// Row lengths spread over every distance code's range (1 to 32,768) and past the window, log-uniformly.
static size_t random_row_bytes(uint64_t *state) {
    size_t bits = 1 + below(state, 17);  // 1 to 17 bits: up to 131,071
    return 1 + below(state, (size_t)1 << bits);
}

static int raw_streams(uint64_t seed, int streams, bd_proof_counts *counts, char *error, size_t error_length) {
    enum { MOST = 1 << 18 };
    uint8_t *in = malloc(MOST), *out = malloc(bd_scanline_deflate_bound(MOST)),
            *other = malloc(bd_scanline_deflate_bound(MOST)), *scratch = malloc(MOST + 1);
    struct libdeflate_decompressor *decompressor = libdeflate_alloc_decompressor();
    int status = in && out && other && scratch && decompressor ? 0 : fail(error, error_length, "out of memory", seed, 0, 0, 0);
    for (int n = 0; n < streams && status == 0; n++) {
        uint64_t case_seed = seed ^ ((uint64_t)n << 32), state = case_seed;
        size_t row_bytes = random_row_bytes(&state), pixel_bytes = 1 + below(&state, 4);
        size_t length = below(&state, 8) == 0 ? below(&state, MOST) : below(&state, 40000);
        fill(&state, in, length, row_bytes, pixel_bytes);
        status = check_stream(in, length, row_bytes, pixel_bytes, decompressor, counts, out, other, scratch, case_seed,
                              error, error_length);
    }
    libdeflate_free_decompressor(decompressor);
    free(in);
    free(out);
    free(other);
    free(scratch);
    return status;
}

// MARK: - PNGs

static uint32_t read_u32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int check_png(const uint8_t *rgb, int width, int height, bd_proof_counts *counts, uint64_t seed, char *error,
                     size_t error_length) {
    size_t stride = (size_t)width * 3, filtered_length = (stride + 1) * (size_t)height;
    bd_png_buffer png;
    char message[256] = {0};
    if (bd_png_encode_rows(rgb, NULL, 0, width, height, BD_PNG_DEFLATE_SCANLINE, &png, message, sizeof message) != 0) {
        return fail(error, error_length, message, seed, (size_t)width, (size_t)height, 0);
    }
    // The rows as the writer filters them, and its one IDAT's stream read back by zlib.
    uint8_t *filtered = malloc(filtered_length), *scratch = malloc(filtered_length + 1), *candidate = malloc(stride + 1);
    uint8_t *copy = malloc(png.length);
    int status = filtered && scratch && candidate && copy ? 0 : fail(error, error_length, "out of memory", seed, 0, 0, 0);
    if (status == 0) {
        memcpy(copy, png.bytes, png.length);  // the writer's scratch space, reused by nothing until its next encode
        for (int y = 0; y < height; y++) {
            const uint8_t *row = rgb + stride * (size_t)y;
            bd_png_filter_up_or_paeth(row, y > 0 ? row - stride : NULL, stride, filtered + (stride + 1) * (size_t)y,
                                      candidate);
        }
        size_t idat = read_u32(copy + BD_PNG_HEAD_LENGTH - 8);
        if (BD_PNG_HEAD_LENGTH + idat + BD_PNG_TAIL_LENGTH != png.length ||
            !zlib_gives(copy + BD_PNG_HEAD_LENGTH, idat, filtered, filtered_length, scratch)) {
            status = fail(error, error_length, "zlib does not read the PNG's rows back", seed, (size_t)width,
                          (size_t)height, 0);
        }
    }
    if (status == 0) {
        bd_png_buffer pixels;
        int w = 0, h = 0;
        if (bd_png_decode(copy, png.length, UINT64_MAX, &pixels, &w, &h, message, sizeof message) != 0) {
            status = fail(error, error_length, message, seed, (size_t)width, (size_t)height, 0);
        } else {
            if (w != width || h != height || memcmp(pixels.bytes, rgb, stride * (size_t)height) != 0) {
                status = fail(error, error_length, "libpng does not read the pixels back", seed, (size_t)width,
                              (size_t)height, 0);
            }
            bd_png_free(pixels.bytes);
        }
    }
    free(filtered);
    free(scratch);
    free(candidate);
    free(copy);
    counts->pngs += status == 0;
    counts->bytes += stride * (size_t)height;
    counts->widths[width <= 2048 ? width : 0]++;
    counts->wide_rows += stride + 1 > 32768;
    return status;
}

static int pngs(uint64_t seed, int count, bd_proof_counts *counts, char *error, size_t error_length) {
    static const int edges[] = {2047, 2048, 11000};
    int status = 0;
    for (int n = 0; n < count && status == 0; n++) {
        uint64_t case_seed = seed ^ ((uint64_t)n << 32) ^ 0x504E47, state = case_seed;
        int width = n % 8 == 7 ? edges[(n / 8) % 3] : 1 + (int)below(&state, 70);
        int height = 1 + (int)below(&state, width > 70 ? 6 : 90);
        size_t stride = (size_t)width * 3;
        uint8_t *rgb = malloc(stride * (size_t)height);
        if (rgb == NULL) return fail(error, error_length, "out of memory", case_seed, 0, 0, 0);
        fill(&state, rgb, stride * (size_t)height, stride, 3);
        status = check_png(rgb, width, height, counts, case_seed, error, error_length);
        free(rgb);
    }
    return status;
}

int bd_proof_run(uint64_t seed, int streams, int png_count, bd_proof_counts *counts, char *error,
                 size_t error_length) {
    memset(counts, 0, sizeof *counts);
    if (raw_streams(seed, streams, counts, error, error_length) != 0) return -1;
    return pngs(seed, png_count, counts, error, error_length);
}

int bd_proof_one(const uint8_t *data, size_t length, char *error, size_t error_length) {
    if (length < 3) return 0;
    size_t row_bytes = 1 + ((size_t)data[0] << 8 | data[1]), pixel_bytes = 1 + data[2] % 4;
    data += 3;
    length -= 3;
    size_t bound = bd_scanline_deflate_bound(length);
    uint8_t *out = malloc(bound), *other = malloc(bound), *scratch = malloc(length + 1);
    struct libdeflate_decompressor *decompressor = libdeflate_alloc_decompressor();
    bd_proof_counts counts;
    memset(&counts, 0, sizeof counts);
    int status = out && other && scratch && decompressor
                     ? check_stream(data, length, row_bytes, pixel_bytes, decompressor, &counts, out, other, scratch,
                                    0, error, error_length)
                     : 0;
    libdeflate_free_decompressor(decompressor);
    free(out);
    free(other);
    free(scratch);
    return status;
}
