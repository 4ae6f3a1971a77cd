#include "cpixels.h"

#include <string.h>

typedef uint8_t bd_u8x16 __attribute__((vector_size(16)));
typedef uint16_t bd_u16x16 __attribute__((vector_size(32)));

static inline uint8_t blend_one(uint8_t sharp, uint8_t effect, uint16_t keep, uint16_t weight) {
    return (uint8_t)((uint16_t)(sharp * keep + effect * weight + 128) >> 8);
}

void bd_blend(const uint8_t *sharp, const uint8_t *effect, uint32_t weight, size_t length, uint8_t *out) {
    const uint16_t w = (uint16_t)(weight > BD_BLEND_ONE ? BD_BLEND_ONE : weight);
    const uint16_t keep = (uint16_t)(BD_BLEND_ONE - w);
    // Sixteen bytes at a time in 16-bit lanes, written out so that no compiler widens them to 32 bits.
    const bd_u16x16 vw = (bd_u16x16){0} + w, vkeep = (bd_u16x16){0} + keep, half = (bd_u16x16){0} + 128;
    size_t i = 0;
    for (; i + 16 <= length; i += 16) {
        bd_u8x16 a, b;
        memcpy(&a, sharp + i, 16);
        memcpy(&b, effect + i, 16);
        bd_u16x16 mixed = __builtin_convertvector(a, bd_u16x16) * vkeep + __builtin_convertvector(b, bd_u16x16) * vw + half;
        bd_u8x16 result = __builtin_convertvector(mixed >> 8, bd_u8x16);
        memcpy(out + i, &result, 16);
    }
    for (; i < length; i++) {
        out[i] = blend_one(sharp[i], effect[i], keep, w);
    }
}
