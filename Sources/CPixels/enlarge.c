#include "cpixels.h"

static void widen(const bd_enlarger *e, size_t row, float *out) {
    const float *v = e->values + row * e->reduced_width * 3;
    for (size_t x = 0; x < e->full_width; x++) {
        const float *a = v + e->left[x], *b = v + e->right[x];
        float t = e->fx[x];
        out[3 * x] = a[0] + (b[0] - a[0]) * t;
        out[3 * x + 1] = a[1] + (b[1] - a[1]) * t;
        out[3 * x + 2] = a[2] + (b[2] - a[2]) * t;
    }
}

void bd_enlarge_row(bd_enlarger *e, size_t y, uint8_t *out) {
    int64_t above = e->row_above[y], below = e->row_below[y];
    if (e->upper_row != above) {
        if (e->lower_row == above) {
            float *rows = e->upper;
            e->upper = e->lower;
            e->lower = rows;
            e->lower_row = e->upper_row;
            e->upper_row = above;
        } else {
            widen(e, (size_t)above, e->upper);
            e->upper_row = above;
        }
    }
    if (e->lower_row != below) {
        widen(e, (size_t)below, e->lower);
        e->lower_row = below;
    }
    bd_lerp_to_bytes(e->upper, e->lower, e->fy[y], e->full_width * 3, out);
}
