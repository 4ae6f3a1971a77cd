#include "cpixels.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

uint64_t bd_squared_error(const uint8_t *a, const uint8_t *b, size_t length) {
    uint64_t total = 0;
    size_t i = 0;
#if defined(__SSE2__)
    // 16 bytes a step: the differences widened to 16 bits, squared and summed in pairs (pmaddwd) into four 32-bit
    // lanes, each of which gains at most 4 x 255^2 a step; 4,096 steps (64 kB) fit, then the lanes go to 64 bits.
    const __m128i zero = _mm_setzero_si128();
    while (length - i >= 16) {
        size_t steps = (length - i) / 16 < 4096 ? (length - i) / 16 : 4096;
        __m128i lanes = zero;
        for (size_t step = 0; step < steps; step++, i += 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(a + i));
            __m128i y = _mm_loadu_si128((const __m128i *)(b + i));
            __m128i low = _mm_sub_epi16(_mm_unpacklo_epi8(x, zero), _mm_unpacklo_epi8(y, zero));
            __m128i high = _mm_sub_epi16(_mm_unpackhi_epi8(x, zero), _mm_unpackhi_epi8(y, zero));
            lanes = _mm_add_epi32(lanes, _mm_add_epi32(_mm_madd_epi16(low, low), _mm_madd_epi16(high, high)));
        }
        __m128i wide = _mm_add_epi64(_mm_unpacklo_epi32(lanes, zero), _mm_unpackhi_epi32(lanes, zero));
        uint64_t halves[2];
        _mm_storeu_si128((__m128i *)halves, wide);
        total += halves[0] + halves[1];
    }
#endif
    for (; i < length; i++) {
        int32_t difference = (int32_t)a[i] - (int32_t)b[i];
        total += (uint64_t)(difference * difference);
    }
    return total;
}
