// ImageDetail's sums (cpixels.h): eight pixels a step in SSE2 lanes where it is, one at a time for the rest of a row
// and elsewhere; both give the same sums, which QualityModel's fitted tables were made from.
#include "cpixels.h"

#include <stdlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Luma R + 2G + B (0 to 1020).
static inline int luma(const uint8_t *p) { return p[0] + 2 * p[1] + p[2]; }

// The differences of pixels [from, to) of `row` with their right neighbour and the pixel `below`, one at a time.
static void row_differences(const uint8_t *row, const uint8_t *below, size_t from, size_t to, uint64_t *luma_sum,
                            uint64_t *chroma_sum) {
    for (size_t x = from; x < to; x++) {
        const uint8_t *p = row + x * 3;
        const uint8_t *b = below + x * 3;
        int here = luma(p);
        *luma_sum += (uint64_t)(abs(luma(p + 3) - here) + abs(luma(b) - here));
        int red = p[0] - p[1];
        int blue = p[2] - p[1];
        *chroma_sum += (uint64_t)(abs(p[3] - p[4] - red) + abs(p[5] - p[4] - blue) + abs(b[0] - b[1] - red) +
                                  abs(b[2] - b[1] - blue));
    }
}

// Whether the 8x8 block at `p` (rows `stride` apart) varies: its luma's variance over 1,600 (a standard deviation of
// 10 on a 0-255 scale), 64 x sum(x^2) - sum(x)^2 > 1,600 x 64^2.
static int busy(uint64_t sum, uint64_t squares) { return 64 * squares - sum * sum > (uint64_t)1600 * 64 * 64; }

static int busy_block(const uint8_t *p, size_t stride) {
    uint64_t sum = 0, squares = 0;
    for (int y = 0; y < 8; y++, p += stride) {
        for (int x = 0; x < 8; x++) {
            uint64_t value = (uint64_t)luma(p + 3 * x);
            sum += value;
            squares += value * value;
        }
    }
    return busy(sum, squares);
}

#if defined(__SSE2__)
// Eight pixels (24 bytes) a step, as three vectors of eight bytes widened to 16 bits. At byte offset i of a row,
// S(i) = b[i] + 2b[i+1] + b[i+2] is a pixel's luma where i is its first byte, and C(i) = b[i] - b[i+1] its R - G there
// and G - B one byte on (whose differences are those of B - G): each is computed at every byte, all in vector lanes, and
// kept only where it stands for what is measured.
static const int16_t luma_lanes[3][8] = {
    {-1, 0, 0, -1, 0, 0, -1, 0}, {0, -1, 0, 0, -1, 0, 0, -1}, {0, 0, -1, 0, 0, -1, 0, 0}};
static const int16_t chroma_lanes[3][8] = {
    {-1, -1, 0, -1, -1, 0, -1, -1}, {0, -1, -1, 0, -1, -1, 0, -1}, {-1, 0, -1, -1, 0, -1, -1, 0}};

static inline __m128i widened(const uint8_t *p) {
    return _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)p), _mm_setzero_si128());
}

static inline __m128i magnitude(__m128i v) { return _mm_max_epi16(v, _mm_sub_epi16(_mm_setzero_si128(), v)); }

// The sum of four non-negative 32-bit lanes.
static inline uint64_t lanes32_total(__m128i v32) {
    int32_t lanes[4];
    _mm_storeu_si128((__m128i *)lanes, v32);
    return (uint64_t)lanes[0] + (uint64_t)lanes[1] + (uint64_t)lanes[2] + (uint64_t)lanes[3];
}

// The sum of eight 16-bit lanes: pairs summed into 32-bit lanes (pmaddwd by ones), then those.
static inline uint64_t lanes_total(__m128i v16) { return lanes32_total(_mm_madd_epi16(v16, _mm_set1_epi16(1))); }

// Pixels [0, count) of `row` (count + 1 of them readable) against their right neighbour and the pixel `below`;
// returns where it stopped, for the pixels left to row_differences.
static size_t row_differences_vector(const uint8_t *row, const uint8_t *below, size_t count, uint64_t *luma_sum,
                                     uint64_t *chroma_sum) {
    size_t x = 0;
    // A step reads bytes up to 3x + 16 + 5 + 8 of the row: within pixels [0, count + 1) while x + 10 < count + 1.
    for (; x + 11 <= count; x += 8) {
        __m128i l = _mm_setzero_si128(), c = _mm_setzero_si128();
        for (int part = 0; part < 3; part++) {
            const uint8_t *p = row + 3 * x + 8 * part, *q = below + 3 * x + 8 * part;
            __m128i b0 = widened(p), b1 = widened(p + 1), b2 = widened(p + 2);
            __m128i b3 = widened(p + 3), b4 = widened(p + 4), b5 = widened(p + 5);
            __m128i q0 = widened(q), q1 = widened(q + 1), q2 = widened(q + 2);
            __m128i here = _mm_add_epi16(_mm_add_epi16(b0, b1), _mm_add_epi16(b1, b2));
            __m128i right = _mm_add_epi16(_mm_add_epi16(b3, b4), _mm_add_epi16(b4, b5));
            __m128i down = _mm_add_epi16(_mm_add_epi16(q0, q1), _mm_add_epi16(q1, q2));
            __m128i colour = _mm_sub_epi16(b0, b1);
            __m128i luma_step = _mm_add_epi16(magnitude(_mm_sub_epi16(right, here)), magnitude(_mm_sub_epi16(down, here)));
            __m128i chroma_step = _mm_add_epi16(magnitude(_mm_sub_epi16(_mm_sub_epi16(b3, b4), colour)),
                                                magnitude(_mm_sub_epi16(_mm_sub_epi16(q0, q1), colour)));
            // At most 2 x 1,020 and 2 x 510 a lane a part: three parts fit 16 bits.
            l = _mm_add_epi16(l, _mm_and_si128(luma_step, _mm_loadu_si128((const __m128i *)luma_lanes[part])));
            c = _mm_add_epi16(c, _mm_and_si128(chroma_step, _mm_loadu_si128((const __m128i *)chroma_lanes[part])));
        }
        *luma_sum += lanes_total(l);
        *chroma_sum += lanes_total(c);
    }
    return x;
}

// Whether each of the 8x8 blocks from pixel 0 of `p` on (rows `stride` apart) is busy, while a block's reads (bytes up
// to 3 x left + 16 + 2 + 8) stay within `width` pixels; returns the pixels done.
static size_t busy_blocks_vector(const uint8_t *p, size_t stride, size_t width, bd_detail_sums *sums) {
    size_t left = 0;
    for (; left + 10 <= width; left += 8) {
        __m128i total = _mm_setzero_si128(), squares = _mm_setzero_si128();
        for (int y = 0; y < 8; y++) {
            const uint8_t *row = p + y * stride + left * 3;
            for (int part = 0; part < 3; part++) {
                const uint8_t *b = row + 8 * part;
                __m128i b0 = widened(b), b1 = widened(b + 1), b2 = widened(b + 2);
                __m128i s = _mm_and_si128(_mm_add_epi16(_mm_add_epi16(b0, b1), _mm_add_epi16(b1, b2)),
                                          _mm_loadu_si128((const __m128i *)luma_lanes[part]));
                // A lane gains at most one luma a part: 24 x 1,020 in 16 bits; squares in pairs, 48 x 1,020^2 in 32.
                total = _mm_add_epi16(total, s);
                squares = _mm_add_epi32(squares, _mm_madd_epi16(s, s));
            }
        }
        sums->busy += (uint64_t)busy(lanes_total(total), lanes32_total(squares));
        sums->blocks += 1;
    }
    return left;
}
#endif

static void gradients(const uint8_t *rgb, size_t width, size_t height, size_t step, bd_detail_sums *sums) {
    size_t stride = width * 3;
    for (size_t y = 0; y + 1 < height; y += step) {
        const uint8_t *row = rgb + y * stride;
        size_t done = 0;
#if defined(__SSE2__)
        done = row_differences_vector(row, row + stride, width - 1, &sums->luma, &sums->chroma);
#endif
        row_differences(row, row + stride, done, width - 1, &sums->luma, &sums->chroma);
        sums->differences += (width - 1) * 2;
    }
}

static void blocks(const uint8_t *rgb, size_t width, size_t height, size_t step, bd_detail_sums *sums) {
    size_t stride = width * 3;
    for (size_t top = 0; top + 8 <= height; top += 8 * step) {
        const uint8_t *band = rgb + top * stride;
        size_t left = 0;
#if defined(__SSE2__)
        left = busy_blocks_vector(band, stride, width, sums);
#endif
        for (; left + 8 <= width; left += 8) {
            sums->busy += (uint64_t)busy_block(band + left * 3, stride);
            sums->blocks += 1;
        }
    }
}

void bd_detail(const uint8_t *rgb, size_t width, size_t height, size_t step, bd_detail_sums *sums) {
    *sums = (bd_detail_sums){0, 0, 0, 0, 0};
    if (width < 2 || height < 2 || step == 0) {
        return;
    }
    gradients(rgb, width, height, step, sums);
    blocks(rgb, width, height, step, sums);
}
