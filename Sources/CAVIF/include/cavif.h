#ifndef BACKDROP_CAVIF_H
#define BACKDROP_CAVIF_H

#include <stddef.h>
#include <stdint.h>

struct avifImage;
struct avifEncoder;

/// Encodes `rgb` (width * height * 3 bytes) as an 8-bit 4:2:0 AVIF with libaom in one thread, at `quantizer` 0 (best)
/// to 63 and `speed` 0 (slowest) to 10, as libavif 0.11 would. With `shown_rgb` (width * height * 3 bytes), also
/// writes there the picture every AV1 decoder will show, converted to RGB as bd_avif_decode converts it: libaom's
/// reconstruction, the same pixels as a read-back without the decode. On success returns 0 and sets `*out` (free it
/// with `bd_avif_free`) and `*out_length`; 1 likewise when the file was written but `shown_rgb` could not be (with a
/// message); on failure returns -1 with a message.
int bd_avif_encode(const uint8_t *rgb, int width, int height, int quantizer, int speed, uint8_t *shown_rgb,
                   uint8_t **out, size_t *out_length, char *message, size_t message_size);
void bd_avif_free(uint8_t *bytes);

/// The size an AVIF's header says it is: 0, or -1 when it cannot be parsed.
int bd_avif_size(const uint8_t *data, size_t length, int *width, int *height);

/// Decodes an AVIF into `rgb` (width * height * 3 bytes) in one thread, as bd_avif_encode's YUV maps back: the
/// read-back of what it wrote, for the fidelity check. Returns 0, or -1 with a message (libavif's, or a size that
/// differs).
int bd_avif_decode(const uint8_t *data, size_t length, uint8_t *rgb, int width, int height, char *message,
                   size_t message_size);

/// The YUV image made from `rgb` as bd_avif_encode makes it (full range, BT.601 matrix, sRGB; 4:4:4 with
/// `full_chroma`), NULL with a message on failure; and `image` written by libavif's own `encoder` (configured by the
/// caller): the bench's study of other encoders and settings, and the tests' reference for bd_avif_encode's files.
struct avifImage *bd_avif_image(const uint8_t *rgb, int width, int height, int full_chroma, char *message,
                                size_t message_size);
/// `image` as RGB into `rgb` (width * height * 3 bytes), as libavif converts: what bd_avif_decode gives, and what
/// bd_avif_encode's `shown_rgb` is made with. Returns 0, or -1 with libavif's message.
int bd_avif_rgb(const struct avifImage *image, uint8_t *rgb, char *message, size_t message_size);
int bd_avif_write(struct avifEncoder *encoder, const struct avifImage *image, uint8_t **out, size_t *out_length,
                  char *message, size_t message_size);

#endif
