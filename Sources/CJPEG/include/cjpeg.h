#ifndef BACKDROP_CJPEG_H
#define BACKDROP_CJPEG_H

#include <stddef.h>
#include <stdint.h>

/// Colour model of the encoded JPEG data.
typedef enum {
    BD_JPEG_GRAY = 0,
    BD_JPEG_YCBCR = 1,
    BD_JPEG_RGB = 2,
    BD_JPEG_CMYK = 3,
    BD_JPEG_YCCK = 4,
    BD_JPEG_OTHER = 5,
} bd_jpeg_color;

typedef struct {
    int width;
    int height;
    int components;
    bd_jpeg_color color;
    int progressive;
    int adobe_marker;
    /// TIFF payload of the first APP1 "Exif" segment (after "Exif\0\0"), or NULL. Owned by the decoder.
    const uint8_t *exif;
    size_t exif_length;
} bd_jpeg_info;

typedef struct bd_jpeg bd_jpeg;

/// Creates a decoder over `data` (not copied: it must outlive the decoder).
/// `max_memory` caps libjpeg's working memory in bytes; `max_scans` caps the SOS markers a file may contain.
bd_jpeg *bd_jpeg_create(const uint8_t *data, size_t length, long max_memory, int max_scans);
void bd_jpeg_destroy(bd_jpeg *decoder);

/// All calls return 0 on success and -1 on failure; `bd_jpeg_error` then says why.
/// Any libjpeg warning (corrupt data, premature end of data) counts as a failure.
int bd_jpeg_read_header(bd_jpeg *decoder, bd_jpeg_info *info);
/// Starts decompression at scale `scale_num`/8 and reports the output size.
int bd_jpeg_start(bd_jpeg *decoder, int scale_num, int *out_width, int *out_height);
/// Decodes every scanline as RGB8 into `rgb` (out_width * out_height * 3 bytes) and finishes the decode.
int bd_jpeg_read_rgb(bd_jpeg *decoder, uint8_t *rgb, size_t length);
const char *bd_jpeg_error(const bd_jpeg *decoder);

/// Encodes `rgb` (width * height * 3 bytes) as a baseline JPEG at `quality` (1-100) with optimised Huffman tables,
/// chroma subsampled 4:2:0 unless `full_chroma` (4:4:4). On success returns 0 and sets `*out` (free it with
/// `bd_jpeg_free`) and `*out_length`; on failure returns -1 with libjpeg's message in `message`.
int bd_jpeg_encode(const uint8_t *rgb, int width, int height, int quality, int full_chroma, uint8_t **out,
                   size_t *out_length, char *message, size_t message_size);
void bd_jpeg_free(uint8_t *bytes);

#endif
