#ifndef BACKDROP_CWEBP_H
#define BACKDROP_CWEBP_H

#include <stddef.h>
#include <stdint.h>

/// Encodes `rgb` (width * height * 3 bytes) as WebP: lossy at `quality` (0-100) with `method` (0 fastest - 6 best),
/// or lossless when `lossless` (quality then sets the effort). One thread. On success returns 0 and sets `*out` (free it with `bd_webp_free`) and `*out_length`; on
/// failure returns -1 with a message.
int bd_webp_encode(const uint8_t *rgb, int width, int height, float quality, int method, int lossless,
                   uint8_t **out, size_t *out_length, char *message, size_t message_size);
void bd_webp_free(uint8_t *bytes);

/// The size a WebP says it is: 0, or -1 when it is not a WebP.
int bd_webp_size(const uint8_t *data, size_t length, int *width, int *height);

/// Decodes a WebP into `rgb` (width * height * 3 bytes): the read-back of what bd_webp_encode wrote, for the fidelity
/// check. Returns 0, or -1 with a message when it is not a WebP of that size.
int bd_webp_decode(const uint8_t *data, size_t length, uint8_t *rgb, int width, int height, char *message,
                   size_t message_size);

#endif
