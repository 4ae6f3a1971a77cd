// WebP and AVIF decoding for the tests and the benchmark only (see ctestdecoders.h).
#include "ctestdecoders.h"

#include <stdlib.h>

#include <avif/avif.h>
#include <webp/decode.h>

uint8_t *bd_webp_decode_rgb(const uint8_t *data, size_t length, int *width, int *height) {
    return WebPDecodeRGB(data, length, width, height);
}

void bd_decoded_webp_free(uint8_t *pixels) {
    WebPFree(pixels);
}

void bd_decoded_avif_free(uint8_t *pixels) {
    free(pixels);
}

uint8_t *bd_avif_decode_rgb(const uint8_t *data, size_t length, int *width, int *height) {
    avifDecoder *decoder = avifDecoderCreate();
    avifImage *image = avifImageCreateEmpty();
    uint8_t *pixels = NULL;
    if (decoder != NULL && image != NULL && avifDecoderReadMemory(decoder, image, data, length) == AVIF_RESULT_OK) {
        avifRGBImage rgb;
        avifRGBImageSetDefaults(&rgb, image);
        rgb.format = AVIF_RGB_FORMAT_RGB;
        rgb.depth = 8;
        rgb.rowBytes = image->width * 3;
        pixels = malloc((size_t)rgb.rowBytes * image->height);
        rgb.pixels = pixels;
        if (pixels != NULL && avifImageYUVToRGB(image, &rgb) == AVIF_RESULT_OK) {
            *width = (int)image->width;
            *height = (int)image->height;
        } else {
            free(pixels);
            pixels = NULL;
        }
    }
    if (image != NULL) avifImageDestroy(image);
    if (decoder != NULL) avifDecoderDestroy(decoder);
    return pixels;
}
