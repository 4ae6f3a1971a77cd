#include "cpixels.h"

void bd_lerp_to_bytes(const float *a, const float *b, float t, size_t length, uint8_t *out) {
    for (size_t i = 0; i < length; i++) {
        float value = a[i] + (b[i] - a[i]) * t + 0.5f;
        value = value < 0.0f ? 0.0f : value;
        value = value > 255.0f ? 255.0f : value;
        out[i] = (uint8_t)(int)value;
    }
}
