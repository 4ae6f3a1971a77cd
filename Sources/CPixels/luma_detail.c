#include "cpixels.h"

#include <stdlib.h>

uint64_t bd_luma_detail(const uint8_t *rgb, size_t width, size_t height, size_t step, uint64_t *count) {
    uint64_t total = 0;
    uint64_t differences = 0;
    if (width < 2 || height < 2 || step == 0) {
        *count = 0;
        return 0;
    }
    size_t stride = width * 3;
    for (size_t y = 0; y + 1 < height; y += step) {
        const uint8_t *row = rgb + y * stride;
        const uint8_t *below = row + stride;
        uint32_t sum = 0;  // at most 2 * 1020 a pixel: a row of 2,048 fits many times over
        for (size_t x = 0; x + 1 < width; x++) {
            const uint8_t *p = row + x * 3;
            const uint8_t *b = below + x * 3;
            int here = p[0] + 2 * p[1] + p[2];
            int right = p[3] + 2 * p[4] + p[5];
            int down = b[0] + 2 * b[1] + b[2];
            sum += (uint32_t)(abs(right - here) + abs(down - here));
        }
        total += sum;
        differences += (width - 1) * 2;
    }
    *count = differences;
    return total;
}
