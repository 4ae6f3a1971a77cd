// The PNG writers the bench compares with the service's: libpng with zlib, and libdeflate at any level or the scanline
// deflate alone, after any of PNG's filters. The filters the service uses (Up, Paeth, Up or Paeth) and the PNG
// container are the service's own (CPNG).
#include "cimaginglab.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <png.h>

#include "cpng.h"

enum { PIXEL = 3 };

void bd_lab_free(void *bytes) {
    free(bytes);
}

static void set_error(char *error, size_t error_length, const char *message) {
    if (error != NULL && error_length > 0) {
        snprintf(error, error_length, "%s", message);
    }
}

// MARK: - filters

static void filter_with(bd_lab_filter filter, const uint8_t *row, const uint8_t *previous, size_t stride,
                        uint8_t *out, uint8_t *scratch) {
    uint8_t *o = out + 1;
    out[0] = (uint8_t)filter;
    switch (filter) {
    case BD_LAB_UP: bd_png_filter_up(row, previous, stride, out); return;
    case BD_LAB_UP_OR_PAETH: bd_png_filter_up_or_paeth(row, previous, stride, out, scratch); return;
    case BD_LAB_PAETH:
        if (previous != NULL) {
            bd_png_filter_paeth(row, previous, stride, out);
            return;
        }
        // No row above: Paeth's predictor is the left neighbour, as Sub's.
        // fallthrough
    case BD_LAB_SUB:
        for (size_t i = 0; i < stride; i++) o[i] = (uint8_t)(row[i] - (i >= PIXEL ? row[i - PIXEL] : 0));
        return;
    case BD_LAB_AVERAGE:
        for (size_t i = 0; i < stride; i++) {
            unsigned left = i >= PIXEL ? row[i - PIXEL] : 0, up = previous != NULL ? previous[i] : 0;
            o[i] = (uint8_t)(row[i] - ((left + up) >> 1));
        }
        return;
    default:
        out[0] = BD_LAB_NONE;
        memcpy(o, row, stride);
        return;
    }
}

// libpng's heuristic: the sum of the residuals' magnitudes.
static uint64_t magnitude_cost(const uint8_t *filtered, size_t stride) {
    uint64_t sum = 0;
    for (size_t i = 1; i <= stride; i++) {
        sum += (uint64_t)(filtered[i] < 128 ? filtered[i] : 256 - filtered[i]);
    }
    return sum;
}

// Filters one row into `out`; `scratch` holds two rows of stride + 1 bytes.
static void filter_row(bd_lab_filter filter, const uint8_t *row, const uint8_t *previous, size_t stride, uint8_t *out,
                       uint8_t *scratch) {
    if (filter != BD_LAB_ADAPTIVE) {
        filter_with(filter, row, previous, stride, out, scratch);
        return;
    }
    filter_with(BD_LAB_NONE, row, previous, stride, out, scratch);
    uint64_t best = magnitude_cost(out, stride);
    for (int f = BD_LAB_SUB; f <= BD_LAB_PAETH; f++) {
        filter_with((bd_lab_filter)f, row, previous, stride, scratch, NULL);
        uint64_t cost = magnitude_cost(scratch, stride);
        if (cost < best) {
            best = cost;
            memcpy(out, scratch, stride + 1);
        }
    }
}

// MARK: - libpng

typedef struct {
    char *error;
    size_t error_length;
    uint8_t *bytes;
    size_t length;
    size_t capacity;
} png_sink;

static void on_png_error(png_structp png, png_const_charp message) {
    png_sink *sink = (png_sink *)png_get_error_ptr(png);
    set_error(sink->error, sink->error_length, message);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void write_to_memory(png_structp png, png_bytep data, png_size_t count) {
    png_sink *sink = (png_sink *)png_get_io_ptr(png);
    if (sink->length + count > sink->capacity) {
        size_t capacity = (sink->length + count) * 2;
        uint8_t *grown = realloc(sink->bytes, capacity);
        if (grown == NULL) {
            png_error(png, "out of memory");
        }
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->length, data, count);
    sink->length += count;
}

static void flush_memory(png_structp png) {
    (void)png;
}

static int libpng_filter_flags(bd_lab_filter filter) {
    switch (filter) {
    case BD_LAB_NONE: return PNG_FILTER_NONE;
    case BD_LAB_SUB: return PNG_FILTER_SUB;
    case BD_LAB_UP: return PNG_FILTER_UP;
    case BD_LAB_AVERAGE: return PNG_FILTER_AVG;
    case BD_LAB_PAETH: return PNG_FILTER_PAETH;
    case BD_LAB_UP_OR_PAETH: return PNG_FILTER_UP | PNG_FILTER_PAETH;
    default: return PNG_ALL_FILTERS;
    }
}

static int encode_libpng(const uint8_t *rgb, int width, int height, int level, bd_lab_filter filter, uint8_t **out,
                         size_t *out_length, char *error, size_t error_length) {
    png_sink sink = {error, error_length, NULL, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_png_error, on_png_warning);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        set_error(error, error_length, "out of memory");
        png_destroy_write_struct(&png, NULL);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        free(sink.bytes);
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_set_write_fn(png, &sink, write_to_memory, flush_memory);
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, libpng_filter_flags(filter));
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(rgb + (size_t)width * PIXEL * (size_t)y));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = sink.bytes;
    *out_length = sink.length;
    return 0;
}

// MARK: - filtered rows compressed in one pass

int bd_lab_png_encode(const uint8_t *rgb, int width, int height, bd_lab_compressor compressor, int level,
                      bd_lab_filter filter, uint8_t **out, size_t *out_length, char *error, size_t error_length) {
    *out = NULL;
    *out_length = 0;
    if (width <= 0 || height <= 0 || level < 0 || level > 12 || (compressor == BD_LAB_LIBPNG && level > 9)) {
        set_error(error, error_length, "invalid PNG encode parameters");
        return -1;
    }
    if (compressor == BD_LAB_LIBPNG) {
        return encode_libpng(rgb, width, height, level, filter, out, out_length, error, error_length);
    }
    size_t stride = (size_t)width * PIXEL, length = (stride + 1) * (size_t)height;
    uint8_t *filtered = malloc(length), *scratch = malloc((stride + 1) * 2);
    struct libdeflate_compressor *deflater = compressor == BD_LAB_LIBDEFLATE ? libdeflate_alloc_compressor(level) : NULL;
    size_t bound = deflater != NULL ? libdeflate_zlib_compress_bound(deflater, length) : bd_scanline_deflate_bound(length);
    uint8_t *png = malloc(BD_PNG_HEAD_LENGTH + bound + BD_PNG_TAIL_LENGTH);
    size_t compressed = 0;
    if (filtered != NULL && scratch != NULL && png != NULL && (deflater != NULL || compressor == BD_LAB_SCANLINE)) {
        for (int y = 0; y < height; y++) {
            const uint8_t *row = rgb + stride * (size_t)y;
            filter_row(filter, row, y > 0 ? row - stride : NULL, stride, filtered + (stride + 1) * (size_t)y, scratch);
        }
        bd_png_write_head(png, width, height);
        bd_scanline_report report;
        compressed = deflater != NULL
                         ? libdeflate_zlib_compress(deflater, filtered, length, png + BD_PNG_HEAD_LENGTH, bound)
                         : bd_scanline_deflate(filtered, length, stride + 1, PIXEL, BD_SCANLINE_VECTOR,
                                               png + BD_PNG_HEAD_LENGTH, &report);
    }
    free(filtered);
    free(scratch);
    libdeflate_free_compressor(deflater);
    if (compressed == 0) {
        free(png);
        set_error(error, error_length, "could not compress the image");
        return -1;
    }
    *out = png;
    *out_length = bd_png_write_tail(png, compressed);
    return 0;
}
