#ifndef BACKDROP_CAVIF_H
#define BACKDROP_CAVIF_H

#include <stddef.h>
#include <stdint.h>

/// How an image is encoded. `codec` 0 is libaom, 1 rav1e, 2 SVT-AV1 (libavif's codec choices); `options` is NULL or
/// "key=value" pairs separated by spaces, passed to the codec as libavif's codec-specific options (for libaom, any
/// option `aomenc` takes by its long name). On return, `convert_ns` and `encode_ns` hold the thread CPU time the RGB to
/// YUV conversion and the encode took.
typedef struct {
    int quantizer;      // 0 (best) to 63
    int speed;          // 0 (slowest) to 10
    int full_chroma;    // 4:4:4 instead of 4:2:0
    int codec;
    int tile_rows_log2;
    int tile_cols_log2;
    const char *options;
    int64_t convert_ns;
    int64_t encode_ns;
} bd_avif_settings;

/// Encodes `rgb` (width * height * 3 bytes) as an 8-bit AVIF in one thread. On success returns 0 and sets `*out`
/// (free it with `bd_avif_free`) and `*out_length`; on failure returns -1 with libavif's message.
int bd_avif_encode(const uint8_t *rgb, int width, int height, bd_avif_settings *settings, uint8_t **out,
                   size_t *out_length, char *message, size_t message_size);
void bd_avif_free(uint8_t *bytes);

#endif
