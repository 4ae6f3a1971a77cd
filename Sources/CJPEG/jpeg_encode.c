// libjpeg's compressor behind setjmp, as the decoder in jpeg.c: errors come back as -1 and a message, never exit().
#include "cjpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr err;
    jmp_buf jump;
    char *message;
    size_t message_size;
} bd_jpeg_encode_errors;

// A growing output buffer owned here (not libjpeg's memory destination, whose buffer is out of reach on error).
typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *bytes;
    size_t capacity;
} bd_jpeg_output;

static void output_init(j_compress_ptr cinfo) {
    bd_jpeg_output *output = (bd_jpeg_output *)cinfo->dest;
    output->pub.next_output_byte = output->bytes;
    output->pub.free_in_buffer = output->capacity;
}

static boolean output_grow(j_compress_ptr cinfo) {
    bd_jpeg_output *output = (bd_jpeg_output *)cinfo->dest;
    size_t capacity = output->capacity * 2;
    uint8_t *bytes = realloc(output->bytes, capacity);
    if (bytes == NULL) {
        bd_jpeg_encode_errors *errors = (bd_jpeg_encode_errors *)cinfo->err;
        snprintf(errors->message, errors->message_size, "out of memory for the JPEG output");
        longjmp(errors->jump, 1);
    }
    output->pub.next_output_byte = bytes + output->capacity;
    output->pub.free_in_buffer = capacity - output->capacity;
    output->bytes = bytes;
    output->capacity = capacity;
    return TRUE;
}

static void output_term(j_compress_ptr cinfo) {
    (void)cinfo;
}

static void on_encode_error(j_common_ptr cinfo) {
    bd_jpeg_encode_errors *errors = (bd_jpeg_encode_errors *)cinfo->err;
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    snprintf(errors->message, errors->message_size, "%s", buffer);
    longjmp(errors->jump, 1);
}

static void on_encode_output(j_common_ptr cinfo) {
    (void)cinfo;
}

int bd_jpeg_encode(const uint8_t *rgb, int width, int height, int quality, int full_chroma, uint8_t **out,
                   size_t *out_length, char *message, size_t message_size) {
    struct jpeg_compress_struct cinfo;
    bd_jpeg_encode_errors errors;
    bd_jpeg_output output;
    memset(&cinfo, 0, sizeof(cinfo));
    memset(&output, 0, sizeof(output));
    cinfo.err = jpeg_std_error(&errors.err);
    errors.err.error_exit = on_encode_error;
    errors.err.output_message = on_encode_output;
    errors.message = message;
    errors.message_size = message_size;
    *out = NULL;
    *out_length = 0;
    output.capacity = (size_t)width * (size_t)height / 4 + 4096;
    output.bytes = malloc(output.capacity);
    if (output.bytes == NULL) {
        snprintf(message, message_size, "out of memory");
        return -1;
    }
    output.pub.init_destination = output_init;
    output.pub.empty_output_buffer = output_grow;
    output.pub.term_destination = output_term;
    if (setjmp(errors.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(output.bytes);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    cinfo.dest = &output.pub;
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    cinfo.dct_method = JDCT_ISLOW;
    int factor = full_chroma ? 1 : 2;
    cinfo.comp_info[0].h_samp_factor = factor;
    cinfo.comp_info[0].v_samp_factor = factor;
    for (int component = 1; component < 3; component++) {
        cinfo.comp_info[component].h_samp_factor = 1;
        cinfo.comp_info[component].v_samp_factor = 1;
    }
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * 3;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    size_t length = output.capacity - output.pub.free_in_buffer;
    jpeg_destroy_compress(&cinfo);
    *out = output.bytes;
    *out_length = length;
    return 0;
}

void bd_jpeg_free(uint8_t *bytes) {
    free(bytes);
}
