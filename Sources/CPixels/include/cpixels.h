// Pixel loops shared by the encoders' C writers and the Swift side, so that each is written once.
#ifndef CPIXELS_H
#define CPIXELS_H

#include <stddef.h>
#include <stdint.h>

// The effect's full share in bd_blend's fixed point: weights run from 0 (all sharp) to 256 (all effect).
#define BD_BLEND_ONE 256u

// out[i] = (sharp[i] * (256 - weight) + effect[i] * weight + 128) >> 8, for weight in 0...256. Every sum fits 16 bits,
// so the loop runs in 16-bit vector lanes; `out` may be `sharp` or `effect`.
void bd_blend(const uint8_t *sharp, const uint8_t *effect, uint32_t weight, size_t length, uint8_t *out);

// out[i] = a[i] + (b[i] - a[i]) * t, rounded to the nearest byte and clamped to 0...255: one row of a vertical linear
// interpolation between two rows of floats, in vector lanes.
void bd_lerp_to_bytes(const float *a, const float *b, float t, size_t length, uint8_t *out);

#endif
