// libwebp's advanced encoding API: it reports errors through WebPPicture.error_code and never exits.
#include "cwebp.h"

#include <stdio.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/encode.h>

static const char *describe(WebPEncodingError code) {
    switch (code) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory for the bitstream";
    case VP8_ENC_ERROR_NULL_PARAMETER: return "missing parameter";
    case VP8_ENC_ERROR_INVALID_CONFIGURATION: return "invalid configuration";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "picture too large for WebP (at most 16383 pixels a side)";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW: return "partition 0 overflow";
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "partition overflow";
    case VP8_ENC_ERROR_BAD_WRITE: return "write failed";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "file too big";
    default: return "encoding failed";
    }
}

int bd_webp_encode(const uint8_t *rgb, int width, int height, float quality, int method, int lossless,
                   uint8_t **out, size_t *out_length, char *message, size_t message_size) {
    *out = NULL;
    *out_length = 0;
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
        snprintf(message, message_size, "libwebp version mismatch");
        return -1;
    }
    config.quality = quality;
    config.method = method;
    config.lossless = lossless ? 1 : 0;
    config.thread_level = 0;
    if (!WebPValidateConfig(&config)) {
        snprintf(message, message_size, "invalid WebP settings (quality %.0f, method %d)", quality, method);
        return -1;
    }
    picture.use_argb = lossless ? 1 : 0;
    picture.width = width;
    picture.height = height;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    if (!WebPPictureImportRGB(&picture, rgb, width * 3)) {
        snprintf(message, message_size, "%s", describe(picture.error_code));
        WebPPictureFree(&picture);
        WebPMemoryWriterClear(&writer);
        return -1;
    }
    int ok = WebPEncode(&config, &picture);
    WebPEncodingError code = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        snprintf(message, message_size, "%s", describe(code));
        WebPMemoryWriterClear(&writer);
        return -1;
    }
    *out = writer.mem;
    *out_length = writer.size;
    return 0;
}

void bd_webp_free(uint8_t *bytes) {
    WebPFree(bytes);
}

int bd_webp_size(const uint8_t *data, size_t length, int *width, int *height) {
    return WebPGetInfo(data, length, width, height) ? 0 : -1;
}

int bd_webp_decode(const uint8_t *data, size_t length, uint8_t *rgb, int width, int height, char *message,
                   size_t message_size) {
    int found_width = 0;
    int found_height = 0;
    if (!WebPGetInfo(data, length, &found_width, &found_height) || found_width != width || found_height != height) {
        snprintf(message, message_size, "not a WebP of %dx%d", width, height);
        return -1;
    }
    size_t size = (size_t)width * (size_t)height * 3;
    if (WebPDecodeRGBInto(data, length, rgb, size, width * 3) == NULL) {
        snprintf(message, message_size, "the WebP could not be decoded");
        return -1;
    }
    return 0;
}
