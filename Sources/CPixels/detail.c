#include "cpixels.h"

#include <stdlib.h>

// Luma R + 2G + B (0 to 1020); the chroma differences R - G and B - G.
static inline int luma(const uint8_t *p) { return p[0] + 2 * p[1] + p[2]; }

static void gradients(const uint8_t *rgb, size_t width, size_t height, size_t step, bd_detail_sums *sums) {
    size_t stride = width * 3;
    for (size_t y = 0; y + 1 < height; y += step) {
        const uint8_t *row = rgb + y * stride;
        const uint8_t *below = row + stride;
        // A pixel adds at most 2 x 1020 of luma and 4 x 510 of chroma: a row of 2,048 fits many times over.
        uint32_t luma_sum = 0;
        uint32_t chroma_sum = 0;
        for (size_t x = 0; x + 1 < width; x++) {
            const uint8_t *p = row + x * 3;
            const uint8_t *b = below + x * 3;
            int here = luma(p);
            luma_sum += (uint32_t)(abs(luma(p + 3) - here) + abs(luma(b) - here));
            int red = p[0] - p[1];
            int blue = p[2] - p[1];
            chroma_sum += (uint32_t)(abs(p[3] - p[4] - red) + abs(p[5] - p[4] - blue) + abs(b[0] - b[1] - red) +
                                     abs(b[2] - b[1] - blue));
        }
        sums->luma += luma_sum;
        sums->chroma += chroma_sum;
        sums->differences += (width - 1) * 2;
    }
}

// An 8x8 block is busy when its luma's variance is over 1,600 (a standard deviation of 10 on a 0-255 scale):
// 64 x sum(x^2) - sum(x)^2 > 1,600 x 64^2.
static void blocks(const uint8_t *rgb, size_t width, size_t height, size_t step, bd_detail_sums *sums) {
    size_t stride = width * 3;
    for (size_t top = 0; top + 8 <= height; top += 8 * step) {
        for (size_t left = 0; left + 8 <= width; left += 8) {
            uint32_t sum = 0;
            uint64_t squares = 0;
            for (size_t y = top; y < top + 8; y++) {
                const uint8_t *p = rgb + y * stride + left * 3;
                uint32_t row_squares = 0;  // at most 8 x 1020^2
                for (size_t x = 0; x < 8; x++, p += 3) {
                    uint32_t value = (uint32_t)luma(p);
                    sum += value;
                    row_squares += value * value;
                }
                squares += row_squares;
            }
            sums->busy += 64 * squares - (uint64_t)sum * sum > (uint64_t)1600 * 64 * 64;
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
