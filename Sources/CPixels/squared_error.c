#include "cpixels.h"

uint64_t bd_squared_error(const uint8_t *a, const uint8_t *b, size_t length) {
    uint64_t total = 0;
    // 65,536 squares of at most 255^2 fit a 32-bit lane: the inner loop vectorises, the outer one widens.
    for (size_t start = 0; start < length; start += 65536) {
        size_t end = length - start < 65536 ? length : start + 65536;
        uint32_t block = 0;
        for (size_t i = start; i < end; i++) {
            int32_t difference = (int32_t)a[i] - (int32_t)b[i];
            block += (uint32_t)(difference * difference);
        }
        total += block;
    }
    return total;
}
