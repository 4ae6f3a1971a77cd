#ifndef BACKDROP_AVIF_CONTAINER_H
#define BACKDROP_AVIF_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

/// `obus`, the AV1 OBUs of one still picture as libaom wrote them (8-bit 4:2:0, full range, BT.709 primaries, sRGB
/// transfer, BT.601 matrix), in an AVIF file of `width` x `height`, as libavif 0.11 writes one. Returns 0 and sets
/// `*out` (malloc'd) and `*out_length`; -1 when `obus` holds no reduced still-picture sequence header, -2 out of memory.
int bd_avif_container(const uint8_t *obus, size_t length, int width, int height, uint8_t **out, size_t *out_length);

#endif
