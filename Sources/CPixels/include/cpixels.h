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

// A reduced RGB float image enlarged bilinearly one output row at a time (the light effect's last step), so that a
// writer can blend it row by row without the enlarged image ever being stored. The tables say, per output column,
// which two reduced samples (float offsets within a reduced row, 3 a pixel) and how far between them; per output row,
// which two reduced rows and how far between them. `upper` and `lower` are scratch rows of full_width * 3 floats.
typedef struct {
    const float *values;
    size_t reduced_width;
    size_t full_width;
    const uint32_t *left, *right;
    const float *fx;
    const uint32_t *row_above, *row_below;
    const float *fy;
    float *upper, *lower;
    int64_t upper_row, lower_row;  // the reduced rows they hold; -1 for none
} bd_enlarger;

// Writes output row `y` (full_width * 3 bytes) to `out`: each reduced row it needs is widened once and kept while
// the rows below need it, so rows must be asked for top to bottom for that to pay.
void bd_enlarge_row(bd_enlarger *enlarger, size_t y, uint8_t *out);

// The sum of (a[i] - b[i])^2 over `length` bytes (PSNR's numerator): 16 bytes a step where SSE2 is (pmaddwd).
uint64_t bd_squared_error(const uint8_t *a, const uint8_t *b, size_t length);

// What predicts a lossy encoder's error on a picture (ImageDetail): over every `step`th row but the last and every
// column but the last of an RGB image, the sums of |luma(x+1, y) - luma(x, y)| + |luma(x, y+1) - luma(x, y)| (luma =
// R + 2G + B) and the same of R - G and of B - G, and how many differences each sums (per channel); and of the whole
// 8x8 blocks in every `step`th row of blocks, how many and how many are busy (their luma's standard deviation over
// 10 on a 0-255 scale). Eight pixels a step where SSE2 is.
typedef struct {
    uint64_t luma, chroma, differences;
    uint64_t busy, blocks;
} bd_detail_sums;

void bd_detail(const uint8_t *rgb, size_t width, size_t height, size_t step, bd_detail_sums *sums);

#endif
