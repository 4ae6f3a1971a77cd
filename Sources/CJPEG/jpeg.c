// libjpeg behind setjmp: libjpeg's default error handler calls exit(), so every entry point here
// installs a jump target and turns errors (and warnings, which libjpeg only prints) into return codes.
#include "cjpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

struct bd_jpeg {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    int created;
    int started;
    int max_scans;
    const uint8_t *data;
    size_t length;
    char message[JMSG_LENGTH_MAX + 32];
};

static bd_jpeg *owner(j_common_ptr cinfo) {
    return (bd_jpeg *)cinfo->client_data;
}

static void fail_with_libjpeg_message(j_common_ptr cinfo) {
    bd_jpeg *decoder = owner(cinfo);
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    snprintf(decoder->message, sizeof(decoder->message), "%s", buffer);
    longjmp(decoder->jump, 1);
}

static void on_error_exit(j_common_ptr cinfo) {
    fail_with_libjpeg_message(cinfo);
}

// libjpeg reports corrupt or truncated data as warnings (level -1) and carries on, padding with grey.
// A picture built from corrupt data must never be served, so a warning ends the decode.
static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) {
        cinfo->err->num_warnings++;
        fail_with_libjpeg_message(cinfo);
    }
}

static void on_output_message(j_common_ptr cinfo) {
    (void)cinfo;
}

// Progressive files can hold thousands of tiny scans, each one a pass over the whole coefficient buffer.
static void on_progress(j_common_ptr cinfo) {
    bd_jpeg *decoder = owner(cinfo);
    if (cinfo->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)cinfo;
        if (d->input_scan_number > decoder->max_scans) {
            snprintf(decoder->message, sizeof(decoder->message), "JPEG has more than %d scans", decoder->max_scans);
            longjmp(decoder->jump, 1);
        }
    }
}

bd_jpeg *bd_jpeg_create(const uint8_t *data, size_t length, long max_memory, int max_scans) {
    bd_jpeg *decoder = calloc(1, sizeof(bd_jpeg));
    if (decoder == NULL) {
        return NULL;
    }
    decoder->data = data;
    decoder->length = length;
    decoder->max_scans = max_scans;
    decoder->cinfo.err = jpeg_std_error(&decoder->err);
    decoder->err.error_exit = on_error_exit;
    decoder->err.emit_message = on_emit_message;
    decoder->err.output_message = on_output_message;
    decoder->cinfo.client_data = decoder;
    if (setjmp(decoder->jump)) {
        if (decoder->created) {
            jpeg_destroy_decompress(&decoder->cinfo);
        }
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->created = 1;
    decoder->cinfo.mem->max_memory_to_use = max_memory;
    decoder->progress.progress_monitor = on_progress;
    decoder->cinfo.progress = &decoder->progress;
    return decoder;
}

void bd_jpeg_destroy(bd_jpeg *decoder) {
    if (decoder == NULL) {
        return;
    }
    if (decoder->created) {
        jpeg_destroy_decompress(&decoder->cinfo);
    }
    free(decoder);
}

const char *bd_jpeg_error(const bd_jpeg *decoder) {
    return decoder->message;
}

static int find_exif(bd_jpeg *decoder, bd_jpeg_info *info) {
    for (jpeg_saved_marker_ptr marker = decoder->cinfo.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length > 6 && memcmp(marker->data, "Exif\0\0", 6) == 0) {
            info->exif = marker->data + 6;
            info->exif_length = marker->data_length - 6;
            return 1;
        }
    }
    return 0;
}

int bd_jpeg_read_header(bd_jpeg *decoder, bd_jpeg_info *info) {
    if (setjmp(decoder->jump)) {
        return -1;
    }
    if (decoder->length == 0) {
        snprintf(decoder->message, sizeof(decoder->message), "empty JPEG data");
        return -1;
    }
    jpeg_mem_src(&decoder->cinfo, decoder->data, (unsigned long)decoder->length);
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
    if (jpeg_read_header(&decoder->cinfo, TRUE) != JPEG_HEADER_OK) {
        snprintf(decoder->message, sizeof(decoder->message), "no JPEG image in data");
        return -1;
    }
    memset(info, 0, sizeof(*info));
    info->width = (int)decoder->cinfo.image_width;
    info->height = (int)decoder->cinfo.image_height;
    info->components = decoder->cinfo.num_components;
    info->progressive = decoder->cinfo.progressive_mode ? 1 : 0;
    info->adobe_marker = decoder->cinfo.saw_Adobe_marker ? 1 : 0;
    switch (decoder->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: info->color = BD_JPEG_GRAY; break;
    case JCS_YCbCr: info->color = BD_JPEG_YCBCR; break;
    case JCS_RGB: info->color = BD_JPEG_RGB; break;
    case JCS_CMYK: info->color = BD_JPEG_CMYK; break;
    case JCS_YCCK: info->color = BD_JPEG_YCCK; break;
    default: info->color = BD_JPEG_OTHER; break;
    }
    find_exif(decoder, info);
    return 0;
}

static int is_cmyk(const bd_jpeg *decoder) {
    J_COLOR_SPACE space = decoder->cinfo.jpeg_color_space;
    return space == JCS_CMYK || space == JCS_YCCK;
}

int bd_jpeg_start(bd_jpeg *decoder, int scale_num, int *out_width, int *out_height) {
    if (setjmp(decoder->jump)) {
        return -1;
    }
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (scale_num < 1 || scale_num > 8) {
        snprintf(decoder->message, sizeof(decoder->message), "invalid scale %d/8", scale_num);
        return -1;
    }
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo->out_color_space = JCS_EXT_RGB;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;  // libjpeg turns YCCK into CMYK; RGB is computed per row below
        break;
    default:
        snprintf(decoder->message, sizeof(decoder->message), "unsupported JPEG colour space");
        return -1;
    }
    cinfo->scale_num = (unsigned int)scale_num;
    cinfo->scale_denom = 8;
    cinfo->dct_method = JDCT_ISLOW;
    decoder->started = 1;
    jpeg_start_decompress(cinfo);
    *out_width = (int)cinfo->output_width;
    *out_height = (int)cinfo->output_height;
    return 0;
}

// Adobe applications write CMYK (and YCCK) inverted: 255 means no ink.
static void cmyk_row_to_rgb(const uint8_t *cmyk, uint8_t *rgb, int width, int inverted) {
    for (int x = 0; x < width; x++) {
        unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        rgb[0] = (uint8_t)((c * k + 127) / 255);
        rgb[1] = (uint8_t)((m * k + 127) / 255);
        rgb[2] = (uint8_t)((y * k + 127) / 255);
        cmyk += 4;
        rgb += 3;
    }
}

int bd_jpeg_read_rgb(bd_jpeg *decoder, uint8_t *rgb, size_t length) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    uint8_t *volatile row = NULL;
    if (setjmp(decoder->jump)) {
        free(row);
        return -1;
    }
    if (!decoder->started) {
        snprintf(decoder->message, sizeof(decoder->message), "decode not started");
        return -1;
    }
    size_t width = cinfo->output_width;
    size_t stride = width * 3;
    if (length < stride * cinfo->output_height) {
        snprintf(decoder->message, sizeof(decoder->message), "output buffer too small");
        return -1;
    }
    int cmyk = is_cmyk(decoder);
    if (cmyk) {
        row = malloc(width * 4);
        if (row == NULL) {
            snprintf(decoder->message, sizeof(decoder->message), "out of memory");
            return -1;
        }
    }
    while (cinfo->output_scanline < cinfo->output_height) {
        uint8_t *destination = rgb + stride * cinfo->output_scanline;
        JSAMPROW rows[1] = {cmyk ? row : destination};
        if (jpeg_read_scanlines(cinfo, rows, 1) != 1) {
            snprintf(decoder->message, sizeof(decoder->message), "JPEG data ended early");
            free(row);
            return -1;
        }
        if (cmyk) {
            cmyk_row_to_rgb(row, destination, (int)width, cinfo->saw_Adobe_marker);
        }
    }
    // Some corruption is only noticed here, so every decode is finished.
    jpeg_finish_decompress(cinfo);
    free(row);
    return 0;
}
