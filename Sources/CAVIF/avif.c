// libavif 0.11 (Debian 12): the YUV the encoder (aom_encode.c) is given, the read-back of AVIF files, and the writer
// the bench's study drives; results come back as avifResult codes, never exit().
#include "cavif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avif/avif.h>

static void describe(avifResult result, const avifEncoder *encoder, char *message, size_t message_size) {
    const char *detail = encoder != NULL ? encoder->diag.error : "";
    snprintf(message, message_size, "%s%s%s", avifResultToString(result), detail[0] ? ": " : "", detail);
}

avifImage *bd_avif_image(const uint8_t *rgb, int width, int height, int full_chroma, char *message,
                         size_t message_size) {
    avifImage *image = avifImageCreate((uint32_t)width, (uint32_t)height, 8,
                                       full_chroma ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420);
    if (image == NULL) {
        describe(AVIF_RESULT_OUT_OF_MEMORY, NULL, message, message_size);
        return NULL;
    }
    image->yuvRange = AVIF_RANGE_FULL;
    image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_BT601;
    image->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    image->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    avifRGBImage source;
    avifRGBImageSetDefaults(&source, image);
    source.format = AVIF_RGB_FORMAT_RGB;
    source.depth = 8;
    source.pixels = (uint8_t *)rgb;
    source.rowBytes = (uint32_t)width * 3;
    avifResult result = avifImageRGBToYUV(image, &source);
    if (result != AVIF_RESULT_OK) {
        describe(result, NULL, message, message_size);
        avifImageDestroy(image);
        return NULL;
    }
    return image;
}

int bd_avif_write(avifEncoder *encoder, const avifImage *image, uint8_t **out, size_t *out_length, char *message,
                  size_t message_size) {
    *out = NULL;
    *out_length = 0;
    avifRWData output = AVIF_DATA_EMPTY;
    avifResult result = avifEncoderWrite(encoder, image, &output);
    if (result == AVIF_RESULT_OK) {
        *out = malloc(output.size);
        if (*out == NULL) {
            result = AVIF_RESULT_OUT_OF_MEMORY;
        } else {
            memcpy(*out, output.data, output.size);
            *out_length = output.size;
        }
    }
    if (result != AVIF_RESULT_OK) {
        describe(result, encoder, message, message_size);
    }
    avifRWDataFree(&output);
    return result == AVIF_RESULT_OK ? 0 : -1;
}

int bd_avif_rgb(const avifImage *image, uint8_t *rgb, char *message, size_t message_size) {
    avifRGBImage target;
    avifRGBImageSetDefaults(&target, image);
    target.format = AVIF_RGB_FORMAT_RGB;
    target.depth = 8;
    target.pixels = rgb;
    target.rowBytes = image->width * 3;
    avifResult result = avifImageYUVToRGB(image, &target);
    if (result != AVIF_RESULT_OK) {
        describe(result, NULL, message, message_size);
        return -1;
    }
    return 0;
}

void bd_avif_free(uint8_t *bytes) {
    free(bytes);
}

int bd_avif_size(const uint8_t *data, size_t length, int *width, int *height) {
    avifDecoder *decoder = avifDecoderCreate();
    if (decoder == NULL) {
        return -1;
    }
    int status = -1;
    if (avifDecoderSetIOMemory(decoder, data, length) == AVIF_RESULT_OK && avifDecoderParse(decoder) == AVIF_RESULT_OK) {
        *width = (int)decoder->image->width;
        *height = (int)decoder->image->height;
        status = 0;
    }
    avifDecoderDestroy(decoder);
    return status;
}

int bd_avif_decode(const uint8_t *data, size_t length, uint8_t *rgb, int width, int height, char *message,
                   size_t message_size) {
    avifDecoder *decoder = avifDecoderCreate();
    avifImage *image = avifImageCreateEmpty();
    avifResult result = decoder == NULL || image == NULL ? AVIF_RESULT_OUT_OF_MEMORY : AVIF_RESULT_OK;
    if (result == AVIF_RESULT_OK) {
        decoder->maxThreads = 1;
        result = avifDecoderReadMemory(decoder, image, data, length);
    }
    int status = -1;
    if (result != AVIF_RESULT_OK) {
        describe(result, NULL, message, message_size);
    } else if ((int)image->width != width || (int)image->height != height) {
        snprintf(message, message_size, "not an AVIF of %dx%d", width, height);
    } else {
        status = bd_avif_rgb(image, rgb, message, message_size);
    }
    if (image != NULL) avifImageDestroy(image);
    if (decoder != NULL) avifDecoderDestroy(decoder);
    return status;
}
