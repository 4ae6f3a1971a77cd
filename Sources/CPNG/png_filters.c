// The PNG row filters Backdrop's writer uses (RGB8, three bytes a pixel): Up or Paeth, chosen per row. Paeth and the
// cost estimate run sixteen bytes at a time in vector lanes, written out so that any compiler keeps them vectorised.
// The other filters and libpng's way of choosing are the bench's (Benchmarks/CPNGLab).
#include "png_filters.h"

#include <stdlib.h>
#include <string.h>

enum { PIXEL = 3 };

typedef uint8_t u8x16 __attribute__((vector_size(16)));
typedef int8_t i8x16 __attribute__((vector_size(16)));
typedef int16_t i16x16 __attribute__((vector_size(32)));
typedef uint16_t u16x16 __attribute__((vector_size(32)));

static inline u8x16 load16(const uint8_t *p) {
    u8x16 v;
    memcpy(&v, p, 16);
    return v;
}

static inline uint8_t paeth(int a, int b, int c) {
    int p = a + b - c;
    int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc) {
        return (uint8_t)a;
    }
    return (uint8_t)(pb <= pc ? b : c);
}

// Paeth with a row above: the first pixel's predictor is the byte above (left and upper left are 0).
static void paeth_row(const uint8_t *row, const uint8_t *previous, size_t stride, uint8_t *o) {
    size_t i = 0;
    for (; i < PIXEL && i < stride; i++) {
        o[i] = (uint8_t)(row[i] - previous[i]);
    }
    for (; i + 16 <= stride; i += 16) {
        i16x16 a = __builtin_convertvector(load16(row + i - PIXEL), i16x16);
        i16x16 b = __builtin_convertvector(load16(previous + i), i16x16);
        i16x16 c = __builtin_convertvector(load16(previous + i - PIXEL), i16x16);
        // With p = a + b - c: |p - a| = |b - c|, |p - b| = |a - c|, |p - c| = |a + b - 2c|.
        i16x16 toward_b = b - c, toward_a = a - c, both = toward_b + toward_a;
        i16x16 pa = (toward_b ^ (toward_b >> 15)) - (toward_b >> 15);
        i16x16 pb = (toward_a ^ (toward_a >> 15)) - (toward_a >> 15);
        i16x16 pc = (both ^ (both >> 15)) - (both >> 15);
        i16x16 take_a = (pa <= pb) & (pa <= pc);
        i16x16 take_b = ~take_a & (pb <= pc);
        i16x16 predictor = (a & take_a) | (b & take_b) | (c & ~(take_a | take_b));
        u8x16 filtered = load16(row + i) - __builtin_convertvector(predictor, u8x16);
        memcpy(o + i, &filtered, 16);
    }
    for (; i < stride; i++) {
        o[i] = (uint8_t)(row[i] - paeth(row[i - PIXEL], previous[i], previous[i - PIXEL]));
    }
}

void bd_png_filter_up(const uint8_t *row, const uint8_t *previous, size_t stride, uint8_t *out) {
    out[0] = BD_PNG_FILTER_UP;
    if (previous == NULL) {
        memcpy(out + 1, row, stride);
        return;
    }
    for (size_t i = 0; i < stride; i++) out[1 + i] = (uint8_t)(row[i] - previous[i]);
}

void bd_png_filter_paeth(const uint8_t *row, const uint8_t *previous, size_t stride, uint8_t *out) {
    out[0] = BD_PNG_FILTER_PAETH;
    paeth_row(row, previous, stride, out + 1);
}

static inline unsigned byte_cost(uint8_t x) {
    unsigned magnitude = x < 128 ? x : 256u - x, bits = 0;
    while (magnitude >> bits) bits++;
    return 2 + 2 * bits;
}

// What a filtered row is estimated to cost the scanline deflate: a byte equal to the one a pixel before costs 1 (it is
// likely inside a match), any other 2 plus 2 for each bit of its magnitude (a literal's Huffman code grows with it).
// Sixteen bytes of every 64 are looked at: on the anchor photos' renders that chose as well within 0.2% of the bytes,
// in a quarter of the time.
static uint64_t repeat_cost(const uint8_t *filtered, size_t stride) {
    const uint8_t *o = filtered + 1;
    uint64_t total = 0;
    size_t i = 0;
    for (; i < PIXEL && i < stride; i++) {
        total += byte_cost(o[i]);
    }
    const u8x16 thresholds[8] = {(u8x16){0} + 0, (u8x16){0} + 1, (u8x16){0} + 3, (u8x16){0} + 7,
                                 (u8x16){0} + 15, (u8x16){0} + 31, (u8x16){0} + 63, (u8x16){0} + 127};
    while (i + 16 <= stride) {
        // At most 18 a lane a step: 2,048 steps fit 16-bit lanes.
        u16x16 sums = {0};
        for (int step = 0; step < 2048 && i + 16 <= stride; step++, i += 64) {
            u8x16 x = load16(o + i);
            u8x16 negative = (u8x16)((i8x16)x < 0);
            u8x16 magnitude = (negative & ((u8x16){0} - x)) | (~negative & x);
            u8x16 bits = {0};
            for (int t = 0; t < 8; t++) bits -= (u8x16)(magnitude > thresholds[t]);
            u8x16 repeat = (u8x16)(x == load16(o + i - PIXEL));
            u8x16 cost = (repeat & 1) | (~repeat & (bits + bits + 2));
            sums += __builtin_convertvector(cost, u16x16);
        }
        for (int lane = 0; lane < 16; lane++) total += sums[lane];
    }
    for (; i < stride; i++) {
        total += o[i] == o[i - PIXEL] ? 1 : byte_cost(o[i]);
    }
    return total;
}

void bd_png_filter_up_or_paeth(const uint8_t *row, const uint8_t *previous, size_t stride, uint8_t *out,
                               uint8_t *scratch) {
    bd_png_filter_up(row, previous, stride, out);
    if (previous == NULL) {
        return;
    }
    bd_png_filter_paeth(row, previous, stride, scratch);
    if (repeat_cost(scratch, stride) < repeat_cost(out, stride)) {
        memcpy(out, scratch, stride + 1);
    }
}
