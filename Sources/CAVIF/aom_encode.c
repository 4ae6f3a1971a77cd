// AVIF encoded with libaom directly, at the settings libavif 0.11 gives it for one image (all-intra, constant
// quantizer, SSIM tuning): the same file libavif writes (the tests hold the two byte for byte), and with it the picture
// as every AV1 decoder will show it, libaom's reconstruction (AV1 decoding is exact), which libavif does not expose.
#include "cavif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <aom/aom_encoder.h>
#include <aom/aomcx.h>
#include <avif/avif.h>

#include "avif_container.h"

typedef struct {
    uint8_t *bytes;
    size_t length;
} obus;

static int append(obus *collected, const aom_codec_cx_pkt_t *packet) {
    uint8_t *grown = realloc(collected->bytes, collected->length + packet->data.frame.sz);
    if (grown == NULL) return -1;
    memcpy(grown + collected->length, packet->data.frame.buf, packet->data.frame.sz);
    collected->bytes = grown;
    collected->length += packet->data.frame.sz;
    return 0;
}

/// Every frame packet the encoder has ready, appended; 1 when there was one, 0 when none, -1 out of memory.
static int drain(aom_codec_ctx_t *codec, obus *collected) {
    aom_codec_iter_t iterator = NULL;
    const aom_codec_cx_pkt_t *packet;
    int found = 0;
    while ((packet = aom_codec_get_cx_data(codec, &iterator)) != NULL) {
        if (packet->kind != AOM_CODEC_CX_FRAME_PKT) continue;
        if (append(collected, packet) != 0) return -1;
        found = 1;
    }
    return found;
}

/// The encoder set as libavif 0.11 sets it for a single 8-bit 4:2:0 image without alpha.
static aom_codec_err_t configure(aom_codec_ctx_t *codec, const avifImage *image, int quantizer, int speed) {
    aom_codec_enc_cfg_t config;
    aom_codec_err_t error = aom_codec_enc_config_default(aom_codec_av1_cx(), &config, AOM_USAGE_ALL_INTRA);
    if (error != AOM_CODEC_OK) return error;
    config.rc_end_usage = AOM_Q;
    config.g_profile = 0;
    config.g_bit_depth = AOM_BITS_8;
    config.g_input_bit_depth = 8;
    config.g_w = image->width;
    config.g_h = image->height;
    config.g_limit = 1;  // one frame: a still picture with a reduced sequence header
    config.g_lag_in_frames = 0;
    config.kf_mode = AOM_KF_DISABLED;
    config.kf_max_dist = 0;
    config.rc_min_quantizer = (unsigned)quantizer;
    config.rc_max_quantizer = (unsigned)quantizer;
    error = aom_codec_enc_init(codec, aom_codec_av1_cx(), &config, 0);
    if (error != AOM_CODEC_OK) return error;
    if ((error = aom_codec_control(codec, AV1E_SET_LOSSLESS, quantizer == 0)) != AOM_CODEC_OK ||  // as libavif asks at 0
        (error = aom_codec_control(codec, AOME_SET_CPUUSED, speed < 0 ? 0 : speed > 9 ? 9 : speed)) != AOM_CODEC_OK ||
        (error = aom_codec_control(codec, AOME_SET_TUNING, AOM_TUNE_SSIM)) != AOM_CODEC_OK ||
        (error = aom_codec_control(codec, AOME_SET_CQ_LEVEL, (unsigned)quantizer)) != AOM_CODEC_OK ||
        (error = aom_codec_control(codec, AV1E_SET_COLOR_RANGE, AOM_CR_FULL_RANGE)) != AOM_CODEC_OK ||
        (error = aom_codec_control(codec, AV1E_SET_COLOR_PRIMARIES, (int)image->colorPrimaries)) != AOM_CODEC_OK ||
        (error = aom_codec_control(codec, AV1E_SET_TRANSFER_CHARACTERISTICS, (int)image->transferCharacteristics)) !=
            AOM_CODEC_OK ||
        (error = aom_codec_control(codec, AV1E_SET_MATRIX_COEFFICIENTS, (int)image->matrixCoefficients)) != AOM_CODEC_OK ||
        (error = aom_codec_control(codec, AV1E_SET_CHROMA_SAMPLE_POSITION, (int)image->yuvChromaSamplePosition)) !=
            AOM_CODEC_OK) {
        aom_codec_destroy(codec);
    }
    return error;
}

/// `image`'s planes as libaom reads them.
static aom_image_t planes_of(const avifImage *image) {
    aom_image_t planes;
    memset(&planes, 0, sizeof(planes));
    planes.fmt = AOM_IMG_FMT_I420;
    planes.bit_depth = 8;
    planes.w = planes.d_w = image->width;
    planes.h = planes.d_h = image->height;
    planes.bps = 12;
    planes.x_chroma_shift = 1;
    planes.y_chroma_shift = 1;
    planes.range = AOM_CR_FULL_RANGE;
    planes.cp = (aom_color_primaries_t)image->colorPrimaries;
    planes.tc = (aom_transfer_characteristics_t)image->transferCharacteristics;
    planes.mc = (aom_matrix_coefficients_t)image->matrixCoefficients;
    planes.csp = (aom_chroma_sample_position_t)image->yuvChromaSamplePosition;
    for (int plane = 0; plane < 3; plane++) {
        planes.planes[plane] = image->yuvPlanes[plane];
        planes.stride[plane] = (int)image->yuvRowBytes[plane];
    }
    return planes;
}

/// The encoder's reconstruction of its last frame, as RGB into `rgb`, converted as libavif converts a decoded image.
static int reconstruction(aom_codec_ctx_t *codec, const avifImage *image, uint8_t *rgb, char *message,
                          size_t message_size) {
    aom_image_t shown;
    if (aom_codec_control(codec, AV1_GET_NEW_FRAME_IMAGE, &shown) != AOM_CODEC_OK || shown.fmt != AOM_IMG_FMT_I420 ||
        shown.d_w != image->width || shown.d_h != image->height) {
        snprintf(message, message_size, "libaom gave no reconstruction of the picture");
        return -1;
    }
    avifImage view = *image;  // the encoded image's description, over the reconstruction's planes
    view.imageOwnsYUVPlanes = AVIF_FALSE;
    view.alphaPlane = NULL;
    for (int plane = 0; plane < 3; plane++) {
        view.yuvPlanes[plane] = shown.planes[plane];
        view.yuvRowBytes[plane] = (uint32_t)shown.stride[plane];
    }
    return bd_avif_rgb(&view, rgb, message, message_size);
}

int bd_avif_encode(const uint8_t *rgb, int width, int height, int quantizer, int speed, uint8_t *shown_rgb,
                   uint8_t **out, size_t *out_length, char *message, size_t message_size) {
    *out = NULL;
    *out_length = 0;
    if (quantizer < 0 || quantizer > 63) {
        snprintf(message, message_size, "quantizer %d is not within 0...63", quantizer);
        return -1;
    }
    avifImage *image = bd_avif_image(rgb, width, height, 0, message, message_size);
    if (image == NULL) return -1;
    aom_codec_ctx_t codec;
    aom_codec_err_t error = configure(&codec, image, quantizer, speed);
    if (error != AOM_CODEC_OK) {
        snprintf(message, message_size, "libaom: %s", aom_codec_err_to_string(error));
        avifImageDestroy(image);
        return -1;
    }
    obus collected = {NULL, 0};
    aom_image_t planes = planes_of(image);
    int status = aom_codec_encode(&codec, &planes, 0, 1, 0) == AOM_CODEC_OK ? drain(&codec, &collected) : -2;
    // Then flushed until no packet is left, as libavif does.
    while (status >= 0) {
        int more = aom_codec_encode(&codec, NULL, 0, 1, 0) == AOM_CODEC_OK ? drain(&codec, &collected) : -2;
        status = more == 1 ? 0 : more;
        if (more != 1) break;
    }
    if (status == -2) {
        snprintf(message, message_size, "libaom: %s", aom_codec_error(&codec));
    } else if (status == -1 || collected.length == 0) {
        snprintf(message, message_size, status == -1 ? "out of memory" : "libaom wrote no frame");
        status = -1;
    }
    // Without its reconstruction the file is still good: the caller reads it back instead.
    int shown = status == 0 && shown_rgb != NULL ? reconstruction(&codec, image, shown_rgb, message, message_size) : 0;
    aom_codec_destroy(&codec);
    avifImageDestroy(image);
    if (status == 0) {
        status = bd_avif_container(collected.bytes, collected.length, width, height, out, out_length);
        if (status != 0) snprintf(message, message_size, status == -2 ? "out of memory" : "libaom wrote no sequence header");
    }
    free(collected.bytes);
    return status != 0 ? -1 : shown != 0 ? 1 : 0;
}
