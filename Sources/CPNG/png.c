// libpng behind setjmp (libpng longjmps on error), plus a PNG writer that compresses with libdeflate or
// scanline_deflate.c.
#include "cpng.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "row_filter.h"
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

// MARK: - encode with libpng

typedef struct {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
    int failed;
} bd_growable;

static void write_to_memory(png_structp png, png_bytep data, png_size_t count) {
    bd_growable *buffer = (bd_growable *)png_get_io_ptr(png);
    if (buffer->length + count > buffer->capacity) {
        size_t capacity = (buffer->length + count) * 2;
        uint8_t *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) {
            png_error(png, "out of memory");
        }
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, data, count);
    buffer->length += count;
}

static void flush_memory(png_structp png) {
    (void)png;
}

static int libpng_filter_flags(bd_png_filter filter) {
    switch (filter) {
    case BD_PNG_FILTER_NONE: return PNG_FILTER_NONE;
    case BD_PNG_FILTER_SUB: return PNG_FILTER_SUB;
    case BD_PNG_FILTER_UP: return PNG_FILTER_UP;
    case BD_PNG_FILTER_AVERAGE: return PNG_FILTER_AVG;
    case BD_PNG_FILTER_PAETH: return PNG_FILTER_PAETH;
    case BD_PNG_FILTER_UP_OR_PAETH: return PNG_FILTER_UP | PNG_FILTER_PAETH;
    default: return PNG_ALL_FILTERS;
    }
}

int bd_png_encode_libpng(const uint8_t *rgb, int width, int height, int level, bd_png_filter filter, bd_png_buffer *out,
                         char *error, size_t error_length) {
    out->bytes = NULL;
    out->length = 0;
    bd_png_errors errors = {error, error_length};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &errors, on_png_error, on_png_warning);
    if (png == NULL) {
        set_error(error, error_length, "out of memory");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    bd_growable buffer = {NULL, 0, 0, 0};
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        if (info == NULL) {
            set_error(error, error_length, "out of memory");
        }
        free(buffer.bytes);
        png_destroy_write_struct(&png, info != NULL ? &info : NULL);
        return -1;
    }
    buffer.capacity = (size_t)width * (size_t)height + 1024;
    buffer.bytes = malloc(buffer.capacity);
    if (buffer.bytes == NULL) {
        png_error(png, "out of memory");
    }
    png_set_write_fn(png, &buffer, write_to_memory, flush_memory);
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, libpng_filter_flags(filter));
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    size_t stride = (size_t)width * 3;
    for (int y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(rgb + stride * (size_t)y));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    out->bytes = buffer.bytes;
    out->length = buffer.length;
    out->must_free = 1;
    return 0;
}

// MARK: - encode with libdeflate

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

// One compressor per thread and level: allocating one costs more than compressing a small image.
static __thread struct libdeflate_compressor *cached_compressor = NULL;
static __thread int cached_level = -1;

static struct libdeflate_compressor *compressor_for(int level) {
    if (cached_compressor != NULL && cached_level == level) {
        return cached_compressor;
    }
    struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(level);
    if (compressor == NULL) {
        return NULL;
    }
    libdeflate_free_compressor(cached_compressor);
    cached_compressor = compressor;
    cached_level = level;
    return compressor;
}

// Per-thread scratch: the filtered rows and the encoded file. Reused across encodes so that a render does not
// pay for fresh pages each time; buffers over the cap are released after use.
typedef struct {
    uint8_t *bytes;
    size_t capacity;
} bd_scratch;

static __thread bd_scratch scratch_filtered = {NULL, 0};
static __thread bd_scratch scratch_encoded = {NULL, 0};
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

int bd_png_encode_rows(const uint8_t *rgb, const uint8_t *blend_with, bd_enlarger *effect_rows, uint32_t weight,
                       int width, int height, bd_png_deflate deflate, int level, bd_png_filter filter,
                       bd_png_buffer *out, char *error, size_t error_length) {
    out->bytes = NULL;
    out->length = 0;
    out->must_free = 0;
    int scanline = deflate == BD_PNG_DEFLATE_SCANLINE;
    if (width <= 0 || height <= 0 || level < 0 || level > (scanline ? 1 : 12) || weight > BD_BLEND_ONE) {
        set_error(error, error_length, "invalid PNG encode parameters");
        return -1;
    }
    struct libdeflate_compressor *compressor = scanline ? NULL : compressor_for(level);
    if (!scanline && compressor == NULL) {
        set_error(error, error_length, "cannot create libdeflate compressor");
        return -1;
    }
    size_t stride = (size_t)width * 3;
    size_t filtered_length = (stride + 1) * (size_t)height;
    if (blend_with != NULL && effect_rows != NULL) {
        set_error(error, error_length, "one effect at a time");
        return -1;
    }
    if (blend_with != NULL && weight == BD_BLEND_ONE) {
        rgb = blend_with;
        blend_with = NULL;
    }
    int blending = (blend_with != NULL || effect_rows != NULL) && weight != 0;
    uint8_t *filtered = scratch_get(&scratch_filtered, filtered_length);
    // Two blended rows (this one and the one above), an effect row, and four candidate rows for choosing filters.
    uint8_t *rows = malloc(stride * 3 + (stride + 1) * 4);
    if (filtered == NULL || rows == NULL) {
        free(rows);
        set_error(error, error_length, "out of memory");
        return -1;
    }
    uint8_t *effect_row = rows + stride * 2, *candidates = rows + stride * 3;
    for (int y = 0; y < height; y++) {
        const uint8_t *row = rgb + stride * (size_t)y;
        const uint8_t *previous = y > 0 ? row - stride : NULL;
        if (blending) {
            uint8_t *current = rows + stride * (size_t)(y & 1);
            if (effect_rows != NULL && weight == BD_BLEND_ONE) {
                bd_enlarge_row(effect_rows, (size_t)y, current);
            } else {
                const uint8_t *effect = blend_with != NULL ? blend_with + stride * (size_t)y : effect_row;
                if (effect_rows != NULL) {
                    bd_enlarge_row(effect_rows, (size_t)y, effect_row);
                }
                bd_blend(row, effect, weight, stride, current);
            }
            row = current;
            previous = y > 0 ? rows + stride * (size_t)((y + 1) & 1) : NULL;
        }
        bd_filter_row(filter, row, previous, stride, filtered + (stride + 1) * (size_t)y, candidates);
    }
    free(rows);

    size_t bound = scanline ? bd_scanline_deflate_bound(filtered_length)
                            : libdeflate_zlib_compress_bound(compressor, filtered_length);
    uint8_t *png = scratch_get(&scratch_encoded, 8 + 25 + 12 + bound + 12);
    if (png == NULL) {
        scratch_trim(&scratch_filtered);
        set_error(error, error_length, "out of memory");
        return -1;
    }
    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    memcpy(png, signature, 8);
    size_t offset = 8;

    uint8_t *ihdr = png + offset;
    put_u32(ihdr + 8, (uint32_t)width);
    put_u32(ihdr + 12, (uint32_t)height);
    ihdr[16] = 8;  // bit depth
    ihdr[17] = 2;  // colour type RGB
    ihdr[18] = 0;  // deflate
    ihdr[19] = 0;  // adaptive filtering
    ihdr[20] = 0;  // no interlace
    offset += finish_chunk(ihdr, "IHDR", 13);

    uint8_t *idat = png + offset;
    size_t compressed = scanline ? bd_scanline_deflate(filtered, filtered_length, stride + 1, 3, idat + 8)
                                 : libdeflate_zlib_compress(compressor, filtered, filtered_length, idat + 8, bound);
    scratch_trim(&scratch_filtered);
    if (compressed == 0 || compressed > 0x7fffffffu) {
        scratch_trim(&scratch_encoded);
        set_error(error, error_length, "could not compress the image");
        return -1;
    }
    offset += finish_chunk(idat, "IDAT", compressed);
    offset += finish_chunk(png + offset, "IEND", 0);
    out->bytes = png;
    out->length = offset;
    return 0;
}
