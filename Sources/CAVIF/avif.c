// libavif 0.11 (Debian 12) with libaom: results come back as avifResult codes, never exit().
#include "cavif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avif/avif.h>

int bd_avif_encode(const uint8_t *rgb, int width, int height, int quantizer, int speed, int full_chroma, uint8_t **out,
                   size_t *out_length, char *message, size_t message_size) {
    *out = NULL;
    *out_length = 0;
    avifImage *image = avifImageCreate((uint32_t)width, (uint32_t)height, 8,
                                       full_chroma ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420);
    avifEncoder *encoder = avifEncoderCreate();
    avifRWData output = AVIF_DATA_EMPTY;
    avifResult result = AVIF_RESULT_OUT_OF_MEMORY;
    if (image == NULL || encoder == NULL) {
        goto done;
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
    result = avifImageRGBToYUV(image, &source);
    if (result != AVIF_RESULT_OK) {
        goto done;
    }
    encoder->codecChoice = AVIF_CODEC_CHOICE_AOM;
    encoder->maxThreads = 1;
    encoder->speed = speed;
    encoder->minQuantizer = quantizer;
    encoder->maxQuantizer = quantizer;
    result = avifEncoderWrite(encoder, image, &output);
    if (result == AVIF_RESULT_OK) {
        *out = malloc(output.size);
        if (*out == NULL) {
            result = AVIF_RESULT_OUT_OF_MEMORY;
        } else {
            memcpy(*out, output.data, output.size);
            *out_length = output.size;
        }
    }
done:
    if (result != AVIF_RESULT_OK) {
        const char *detail = encoder != NULL ? encoder->diag.error : "";
        snprintf(message, message_size, "%s%s%s", avifResultToString(result), detail[0] ? ": " : "", detail);
    }
    avifRWDataFree(&output);
    if (encoder != NULL) avifEncoderDestroy(encoder);
    if (image != NULL) avifImageDestroy(image);
    return result == AVIF_RESULT_OK ? 0 : -1;
}

void bd_avif_free(uint8_t *bytes) {
    free(bytes);
}
