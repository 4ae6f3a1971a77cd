// libavif 0.11 (Debian 12) with libaom: results come back as avifResult codes, never exit().
#include "cavif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <avif/avif.h>

static int64_t thread_cpu_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// Hands each "key=value" of `options` to the encoder; returns AVIF_RESULT_INVALID_ARGUMENT for a malformed pair.
static avifResult set_options(avifEncoder *encoder, const char *options) {
    if (options == NULL) return AVIF_RESULT_OK;
    char pair[256];
    const char *cursor = options;
    while (*cursor) {
        while (*cursor == ' ') cursor++;
        size_t length = strcspn(cursor, " ");
        if (length == 0) break;
        if (length >= sizeof pair) return AVIF_RESULT_INVALID_ARGUMENT;
        memcpy(pair, cursor, length);
        pair[length] = 0;
        cursor += length;
        char *value = strchr(pair, '=');
        if (value == NULL) return AVIF_RESULT_INVALID_ARGUMENT;
        *value++ = 0;
        avifEncoderSetCodecSpecificOption(encoder, pair, value);
    }
    return AVIF_RESULT_OK;
}

static const avifCodecChoice codecs[] = {AVIF_CODEC_CHOICE_AOM, AVIF_CODEC_CHOICE_RAV1E, AVIF_CODEC_CHOICE_SVT};

int bd_avif_encode(const uint8_t *rgb, int width, int height, bd_avif_settings *settings, uint8_t **out,
                   size_t *out_length, char *message, size_t message_size) {
    *out = NULL;
    *out_length = 0;
    if (settings->codec < 0 || settings->codec > 2) {
        snprintf(message, message_size, "%s", avifResultToString(AVIF_RESULT_INVALID_ARGUMENT));
        return -1;
    }
    int64_t started = thread_cpu_ns();
    avifImage *image = avifImageCreate((uint32_t)width, (uint32_t)height, 8,
                                       settings->full_chroma ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420);
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
    int64_t converted = thread_cpu_ns();
    settings->convert_ns = converted - started;
    encoder->codecChoice = codecs[settings->codec];
    encoder->maxThreads = 1;
    encoder->speed = settings->speed;
    encoder->minQuantizer = settings->quantizer;
    encoder->maxQuantizer = settings->quantizer;
    encoder->tileRowsLog2 = settings->tile_rows_log2;
    encoder->tileColsLog2 = settings->tile_cols_log2;
    result = set_options(encoder, settings->options);
    if (result != AVIF_RESULT_OK) {
        goto done;
    }
    result = avifEncoderWrite(encoder, image, &output);
    settings->encode_ns = thread_cpu_ns() - converted;
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
