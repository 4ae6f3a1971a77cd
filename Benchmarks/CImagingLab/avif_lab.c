// The AVIF study's encoder: the service's YUV image and writer (CAVIF) with the AV1 encoder, tiling and
// codec-specific options the study varies, and the time each stage took.
#include "cimaginglab.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <avif/avif.h>

#include "cavif.h"

static int64_t thread_cpu_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

// Hands each "key=value" of `options` to the encoder; returns AVIF_RESULT_INVALID_ARGUMENT for a malformed pair.
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

int bd_lab_avif_encode(const uint8_t *rgb, int width, int height, bd_lab_avif_settings *settings, uint8_t **out,
                       size_t *out_length, char *message, size_t message_size) {
    *out = NULL;
    *out_length = 0;
    if (settings->codec < 0 || settings->codec > 2) {
        snprintf(message, message_size, "%s", avifResultToString(AVIF_RESULT_INVALID_ARGUMENT));
        return -1;
    }
    int64_t started = thread_cpu_ns();
    avifImage *image = bd_avif_image(rgb, width, height, settings->full_chroma, message, message_size);
    if (image == NULL) {
        return -1;
    }
    int64_t converted = thread_cpu_ns();
    settings->convert_ns = converted - started;
    avifEncoder *encoder = avifEncoderCreate();
    int status = -1;
    if (encoder == NULL) {
        snprintf(message, message_size, "%s", avifResultToString(AVIF_RESULT_OUT_OF_MEMORY));
    } else if (set_options(encoder, settings->options) != AVIF_RESULT_OK) {
        snprintf(message, message_size, "%s", avifResultToString(AVIF_RESULT_INVALID_ARGUMENT));
    } else {
        encoder->codecChoice = codecs[settings->codec];
        encoder->maxThreads = 1;
        encoder->speed = settings->speed;
        encoder->minQuantizer = settings->quantizer;
        encoder->maxQuantizer = settings->quantizer;
        encoder->tileRowsLog2 = settings->tile_rows_log2;
        encoder->tileColsLog2 = settings->tile_cols_log2;
        status = bd_avif_write(encoder, image, out, out_length, message, message_size);
        settings->encode_ns = thread_cpu_ns() - converted;
    }
    if (encoder != NULL) avifEncoderDestroy(encoder);
    avifImageDestroy(image);
    return status;
}
