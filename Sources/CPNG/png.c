// The PNG decoder (libpng behind setjmp: libpng longjmps on error) and Backdrop's PNG writer: rows blended, filtered
// Up or Paeth and compressed by scanline_deflate.c, or by libdeflate at level 1 (the fallback switch, and what the
// writer hands textures to).
#include "cpng.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "png_filters.h"
#include "scanline_deflate.h"
#include <png.h>

#include "cpixels.h"

void bd_png_free(void *bytes) {
    free(bytes);
}

typedef struct {
    char *error;
    size_t error_length;
} bd_png_errors;

static void on_png_error(png_structp png, png_const_charp message) {
    bd_png_errors *errors = (bd_png_errors *)png_get_error_ptr(png);
    if (errors != NULL && errors->error != NULL && errors->error_length > 0) {
        snprintf(errors->error, errors->error_length, "%s", message);
    }
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void set_error(char *error, size_t error_length, const char *message) {
    if (error != NULL && error_length > 0) {
        snprintf(error, error_length, "%s", message);
    }
}

// MARK: - decode

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
} bd_png_reader;

static void read_from_memory(png_structp png, png_bytep out, png_size_t count) {
    bd_png_reader *reader = (bd_png_reader *)png_get_io_ptr(png);
    if (count > reader->length - reader->offset) {
        png_error(png, "PNG data ended early");
    }
    memcpy(out, reader->data + reader->offset, count);
    reader->offset += count;
}

int bd_png_decode(const uint8_t *data, size_t length, uint64_t max_pixels, bd_png_buffer *out, int *width, int *height,
                  char *error, size_t error_length) {
    out->bytes = NULL;
    out->length = 0;
    if (length < 8 || png_sig_cmp(data, 0, 8) != 0) {
        set_error(error, error_length, "not a PNG file");
        return -1;
    }
    bd_png_errors errors = {error, error_length};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &errors, on_png_error, on_png_warning);
    if (png == NULL) {
        set_error(error, error_length, "out of memory");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        if (info == NULL) {
            set_error(error, error_length, "out of memory");
        }
        free(pixels);
        free(rows);
        png_destroy_read_struct(&png, info != NULL ? &info : NULL, NULL);
        return -1;
    }
    bd_png_reader reader = {data, length, 0};
    png_set_read_fn(png, &reader, read_from_memory);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_chunk_cache_max(png, 128);            // ancillary chunks kept (text, sPLT, ...)
    png_set_chunk_malloc_max(png, 8 * 1024 * 1024); // bytes one chunk may allocate
    png_read_info(png, info);

    png_uint_32 w = png_get_image_width(png, info);
    png_uint_32 h = png_get_image_height(png, info);
    if ((uint64_t)w * (uint64_t)h > max_pixels) {
        char message[128];
        snprintf(message, sizeof(message), "PNG is %ux%u, over the limit of %llu pixels", (unsigned)w, (unsigned)h,
                 (unsigned long long)max_pixels);
        set_error(error, error_length, message);
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    int color = png_get_color_type(png, info);
    int depth = png_get_bit_depth(png, info);
    if (color == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(png);
    }
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) {
        png_set_expand_gray_1_2_4_to_8(png);
    }
    if (depth == 16) {
        png_set_strip_16(png);
    }
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) {
        png_set_gray_to_rgb(png);
    }
    // tRNS expands to an alpha channel, which is then dropped with every other alpha channel.
    png_set_strip_alpha(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_channels(png, info) != 3 || png_get_bit_depth(png, info) != 8) {
        png_error(png, "unsupported PNG pixel layout");
    }
    size_t stride = (size_t)w * 3;
    pixels = malloc(stride * h);
    rows = malloc(sizeof(png_bytep) * h);
    if (pixels == NULL || rows == NULL) {
        png_error(png, "out of memory");
    }
    for (png_uint_32 y = 0; y < h; y++) {
        rows[y] = pixels + stride * y;
    }
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    out->bytes = pixels;
    out->length = stride * h;
    *width = (int)w;
    *height = (int)h;
    return 0;
}

// MARK: - encode

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

// Writes a chunk whose data is already in place after its 8-byte header; returns the chunk's total size.
static size_t finish_chunk(uint8_t *chunk, const char type[4], size_t data_length) {
    put_u32(chunk, (uint32_t)data_length);
    memcpy(chunk + 4, type, 4);
    uint32_t crc = libdeflate_crc32(0, chunk + 4, data_length + 4);
    put_u32(chunk + 8 + data_length, crc);
    return data_length + 12;
}

void bd_png_write_head(uint8_t *png, int width, int height) {
    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    memcpy(png, signature, 8);
    uint8_t *ihdr = png + 8;
    put_u32(ihdr + 8, (uint32_t)width);
    put_u32(ihdr + 12, (uint32_t)height);
    ihdr[16] = 8;  // bit depth
    ihdr[17] = 2;  // colour type RGB
    ihdr[18] = 0;  // deflate
    ihdr[19] = 0;  // adaptive filtering
    ihdr[20] = 0;  // no interlace
    finish_chunk(ihdr, "IHDR", 13);
}

size_t bd_png_write_tail(uint8_t *png, size_t idat_length) {
    size_t offset = BD_PNG_HEAD_LENGTH - 8;
    offset += finish_chunk(png + offset, "IDAT", idat_length);
    offset += finish_chunk(png + offset, "IEND", 0);
    return offset;
}

// One level-1 compressor per thread: allocating one costs more than compressing a small image.
static __thread struct libdeflate_compressor *cached_compressor = NULL;

static struct libdeflate_compressor *level_one_compressor(void) {
    if (cached_compressor == NULL) {
        cached_compressor = libdeflate_alloc_compressor(1);
    }
    return cached_compressor;
}

// Per-thread scratch: the filtered rows and the encoded file. Reused across encodes so that a render does not
// pay for fresh pages each time; buffers over the cap are released after use.
typedef struct {
    uint8_t *bytes;
    size_t capacity;
} bd_scratch;

static __thread bd_scratch scratch_filtered = {NULL, 0};
static __thread bd_scratch scratch_encoded = {NULL, 0};
static __thread bd_scratch scratch_texture = {NULL, 0};
static const size_t scratch_keep_limit = 16u << 20;

static uint8_t *scratch_get(bd_scratch *scratch, size_t size) {
    if (scratch->capacity >= size) {
        return scratch->bytes;
    }
    free(scratch->bytes);
    scratch->bytes = malloc(size);
    scratch->capacity = scratch->bytes != NULL ? size : 0;
    return scratch->bytes;
}

static void scratch_trim(bd_scratch *scratch) {
    if (scratch->capacity > scratch_keep_limit) {
        free(scratch->bytes);
        scratch->bytes = NULL;
        scratch->capacity = 0;
    }
}

// Compresses `filtered` into `idat` (room for `bound` bytes) as `deflate` says; returns the length, 0 on failure.
// The scanline deflate hands its rows to libdeflate too, and the smaller stream is kept:
// - when its probe says that a 32nd of its output or more went where long repeats lie at distances it does not try
//   (textures: lines, checks, tiles, dither);
// - when it wrote 5.5 bits a byte or more (textures resampled to another size repeat in stretches too short for the
//   probe, and leave it that dense; the most detailed photo renders measured stay under 5.2);
// - when it wrote under a 16th of a bit a byte (stripes, flat colour: libdeflate is quick there);
// - when the rows are small enough (64 KiB) for that to cost next to nothing.
// The effect alone (`smooth`: blur 1, an enlarged blur whose rows repeat at other distances too) goes to libdeflate
// only: up to a fifth smaller than the scanline deflate's, for about a fifth more time.
static size_t compress(const uint8_t *filtered, size_t length, size_t row_bytes, bd_png_deflate deflate, int smooth,
                       struct libdeflate_compressor *compressor, uint8_t *idat, size_t bound) {
    if (deflate == BD_PNG_DEFLATE_LIBDEFLATE || smooth) {
        return libdeflate_zlib_compress(compressor, filtered, length, idat, bound);
    }
    bd_scanline_report report;
    size_t compressed = bd_scanline_deflate(filtered, length, row_bytes, 3, BD_SCANLINE_VECTOR, idat, &report);
    int small = length <= (64u << 10), blind = report.blind_bits * 32 >= (uint64_t)compressed * 8;
    int dense = (uint64_t)compressed * 16 >= (uint64_t)length * 11;  // 5.5 bits a byte or more
    int sparse = (uint64_t)compressed * 128 < (uint64_t)length;        // under a 16th of a bit a byte
    if (compressed == 0 || !(small || blind || dense || sparse)) {
        return compressed;
    }
    size_t other_bound = libdeflate_zlib_compress_bound(compressor, length);
    uint8_t *other = scratch_get(&scratch_texture, other_bound);
    size_t other_length = other != NULL ? libdeflate_zlib_compress(compressor, filtered, length, other, other_bound) : 0;
    if (other_length != 0 && other_length < compressed) {
        memcpy(idat, other, other_length);
        compressed = other_length;
    }
    scratch_trim(&scratch_texture);
    return compressed;
}

int bd_png_encode_rows(const uint8_t *rgb, bd_enlarger *effect_rows, uint32_t weight, int width, int height,
                       bd_png_deflate deflate, bd_png_buffer *out, char *error, size_t error_length) {
    out->bytes = NULL;
    out->length = 0;
    if (width <= 0 || height <= 0 || weight > BD_BLEND_ONE ||
        (deflate != BD_PNG_DEFLATE_SCANLINE && deflate != BD_PNG_DEFLATE_LIBDEFLATE)) {
        set_error(error, error_length, "invalid PNG encode parameters");
        return -1;
    }
    struct libdeflate_compressor *compressor = level_one_compressor();
    if (compressor == NULL) {
        set_error(error, error_length, "cannot create libdeflate compressor");
        return -1;
    }
    size_t stride = (size_t)width * 3;
    size_t filtered_length = (stride + 1) * (size_t)height;
    int blending = effect_rows != NULL && weight != 0;
    uint8_t *filtered = scratch_get(&scratch_filtered, filtered_length);
    // Two blended rows (this one and the one above), an effect row, and a candidate row for choosing the filter.
    uint8_t *rows = malloc(stride * 3 + stride + 1);
    if (filtered == NULL || rows == NULL) {
        free(rows);
        set_error(error, error_length, "out of memory");
        return -1;
    }
    uint8_t *effect_row = rows + stride * 2, *candidate = rows + stride * 3;
    for (int y = 0; y < height; y++) {
        const uint8_t *row = rgb + stride * (size_t)y;
        const uint8_t *previous = y > 0 ? row - stride : NULL;
        if (blending) {
            uint8_t *current = rows + stride * (size_t)(y & 1);
            if (weight == BD_BLEND_ONE) {
                bd_enlarge_row(effect_rows, (size_t)y, current);
            } else {
                bd_enlarge_row(effect_rows, (size_t)y, effect_row);
                bd_blend(row, effect_row, weight, stride, current);
            }
            row = current;
            previous = y > 0 ? rows + stride * (size_t)((y + 1) & 1) : NULL;
        }
        bd_png_filter_up_or_paeth(row, previous, stride, filtered + (stride + 1) * (size_t)y, candidate);
    }
    free(rows);

    size_t scanline_bound = bd_scanline_deflate_bound(filtered_length);
    size_t libdeflate_bound = libdeflate_zlib_compress_bound(compressor, filtered_length);
    size_t bound = scanline_bound > libdeflate_bound ? scanline_bound : libdeflate_bound;
    uint8_t *png = scratch_get(&scratch_encoded, BD_PNG_HEAD_LENGTH + bound + BD_PNG_TAIL_LENGTH);
    if (png == NULL) {
        scratch_trim(&scratch_filtered);
        set_error(error, error_length, "out of memory");
        return -1;
    }
    bd_png_write_head(png, width, height);
    int smooth = effect_rows != NULL && weight == BD_BLEND_ONE;
    size_t compressed = compress(filtered, filtered_length, stride + 1, deflate, smooth, compressor,
                                 png + BD_PNG_HEAD_LENGTH, bound);
    scratch_trim(&scratch_filtered);
    if (compressed == 0 || compressed > 0x7fffffffu) {
        scratch_trim(&scratch_encoded);
        set_error(error, error_length, "could not compress the image");
        return -1;
    }
    out->bytes = png;
    out->length = bd_png_write_tail(png, compressed);
    return 0;
}
