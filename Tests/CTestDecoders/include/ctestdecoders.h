#pragma once
#include <stddef.h>
#include <stdint.h>

// Decoders for the formats Backdrop only encodes, so that the tests and the benchmark can read back what it wrote.
// Not part of the service.

/// Decodes WebP `data` to RGB: returns the pixels (free with `bd_decoded_webp_free`) and sets the size, or NULL.
uint8_t *bd_webp_decode_rgb(const uint8_t *data, size_t length, int *width, int *height);
void bd_decoded_webp_free(uint8_t *pixels);

/// Decodes AVIF `data` to RGB (8 bits): returns the pixels (free with `bd_decoded_avif_free`) and sets the size, or NULL.
uint8_t *bd_avif_decode_rgb(const uint8_t *data, size_t length, int *width, int *height);
void bd_decoded_avif_free(uint8_t *pixels);
