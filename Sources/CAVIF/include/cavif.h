#ifndef BACKDROP_CAVIF_H
#define BACKDROP_CAVIF_H

#include <stddef.h>
#include <stdint.h>

/// Encodes `rgb` (width * height * 3 bytes) as an 8-bit AVIF with libaom in one thread: quantizer 0 (best) to 63,
/// speed 0 (slowest) to 10, chroma 4:2:0 unless `full_chroma` (4:4:4). On success returns 0 and sets `*out` (free
/// it with `bd_avif_free`) and `*out_length`; on failure returns -1 with libavif's message.
int bd_avif_encode(const uint8_t *rgb, int width, int height, int quantizer, int speed, int full_chroma, uint8_t **out,
                   size_t *out_length, char *message, size_t message_size);
void bd_avif_free(uint8_t *bytes);

/// Decodes AVIF `data` to RGB (8 bits): returns the pixels (free with `bd_avif_free`) and sets the size, or NULL.
uint8_t *bd_avif_decode_rgb(const uint8_t *data, size_t length, int *width, int *height);

#endif
