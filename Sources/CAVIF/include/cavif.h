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

#endif
