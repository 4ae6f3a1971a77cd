// The AVIF file around one AV1 still picture, box for box as libavif 0.11 writes it for an 8-bit 4:2:0 image with no
// alpha and no metadata (the tests hold the two byte for byte).
#include "avif_container.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *bytes;
    size_t length;
} writer;

static void put(writer *w, const void *data, size_t length) {
    memcpy(w->bytes + w->length, data, length);
    w->length += length;
}

static void put8(writer *w, unsigned value) {
    w->bytes[w->length++] = (uint8_t)value;
}

static void put16(writer *w, unsigned value) {
    put8(w, value >> 8);
    put8(w, value & 0xff);
}

static void put32(writer *w, uint32_t value) {
    put16(w, value >> 16);
    put16(w, value & 0xffff);
}

/// Opens a box: its size is written by `close_box` at the offset returned.
static size_t open_box(writer *w, const char *type) {
    size_t start = w->length;
    put32(w, 0);
    put(w, type, 4);
    return start;
}

static size_t open_full_box(writer *w, const char *type, unsigned version, unsigned flags) {
    size_t start = open_box(w, type);
    put32(w, ((uint32_t)version << 24) | flags);
    return start;
}

static void close_box(writer *w, size_t start) {
    size_t end = w->length;
    w->length = start;
    put32(w, (uint32_t)(end - start));
    w->length = end;
}

/// The sequence header's profile and level, from the first sequence header OBU of `obus` (AV1 spec 5.3 and 5.5, a
/// reduced still-picture header as libaom writes for one frame); 0, or -1 when there is none.
static int still_picture_profile(const uint8_t *obus, size_t length, unsigned *profile, unsigned *level) {
    size_t at = 0;
    while (at < length) {
        uint8_t header = obus[at];
        unsigned type = (header >> 3) & 15;
        size_t next = at + 1 + ((header >> 2) & 1);
        if (!((header >> 1) & 1)) return -1;  // libaom always writes obu_size
        uint64_t size = 0;
        for (unsigned shift = 0; next < length && shift < 56; shift += 7) {
            uint8_t byte = obus[next++];
            size |= (uint64_t)(byte & 127) << shift;
            if (!(byte & 128)) break;
        }
        if (size > length - next) return -1;
        if (type == 1) {  // OBU_SEQUENCE_HEADER
            if (size < 2 || !((obus[next] >> 4) & 1) || !((obus[next] >> 3) & 1)) return -1;  // still, reduced
            *profile = obus[next] >> 5;
            *level = ((obus[next] & 7u) << 2) | (obus[next + 1] >> 6);
            return 0;
        }
        at = next + (size_t)size;
    }
    return -1;
}

int bd_avif_container(const uint8_t *obus, size_t length, int width, int height, uint8_t **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    unsigned profile = 0;
    unsigned level = 0;
    if (length > UINT32_MAX - 512 || still_picture_profile(obus, length, &profile, &level) != 0) return -1;
    writer w = {malloc(length + 512), 0};  // the boxes before the payload are 282 bytes
    if (w.bytes == NULL) return -2;

    size_t box = open_box(&w, "ftyp");
    put(&w, "avif", 4);
    put32(&w, 0);
    put(&w, "avifmif1miafMA1B", 16);
    close_box(&w, box);

    size_t meta = open_full_box(&w, "meta", 0, 0);
    box = open_full_box(&w, "hdlr", 0, 0);
    put32(&w, 0);
    put(&w, "pict", 4);
    put(&w, "\0\0\0\0\0\0\0\0\0\0\0\0libavif", 20);  // reserved, then the name with its terminator
    close_box(&w, box);
    box = open_full_box(&w, "pitm", 0, 0);
    put16(&w, 1);
    close_box(&w, box);
    box = open_full_box(&w, "iloc", 0, 0);
    put8(&w, 0x44);  // 4-byte offsets and lengths, no base offset
    put8(&w, 0);
    put16(&w, 1);  // one item: ID 1, data reference 0, one extent
    put16(&w, 1);
    put16(&w, 0);
    put16(&w, 1);
    size_t extent = w.length;
    put32(&w, 0);  // its offset, known once the header is written
    put32(&w, (uint32_t)length);
    close_box(&w, box);
    box = open_full_box(&w, "iinf", 0, 0);
    put16(&w, 1);
    size_t entry = open_full_box(&w, "infe", 2, 0);
    put16(&w, 1);
    put16(&w, 0);
    put(&w, "av01Color", 10);
    close_box(&w, entry);
    close_box(&w, box);

    size_t properties = open_box(&w, "iprp");
    size_t container = open_box(&w, "ipco");
    box = open_full_box(&w, "ispe", 0, 0);
    put32(&w, (uint32_t)width);
    put32(&w, (uint32_t)height);
    close_box(&w, box);
    box = open_full_box(&w, "pixi", 0, 0);
    put(&w, "\3\10\10\10", 4);  // three channels of 8 bits
    close_box(&w, box);
    box = open_box(&w, "av1C");
    put8(&w, 0x81);  // marker, version 1
    put8(&w, (profile << 5) | level);
    put8(&w, 0x0c);  // tier 0, 8-bit, colour, 4:2:0, chroma position unknown
    put8(&w, 0);
    close_box(&w, box);
    box = open_box(&w, "colr");
    put(&w, "nclx", 4);
    put16(&w, 1);   // BT.709 primaries
    put16(&w, 13);  // sRGB transfer
    put16(&w, 6);   // BT.601 matrix
    put8(&w, 0x80);  // full range
    close_box(&w, box);
    close_box(&w, container);
    box = open_full_box(&w, "ipma", 0, 0);
    put32(&w, 1);
    put16(&w, 1);
    put(&w, "\4\1\2\203\4", 5);  // four properties; av1C essential
    close_box(&w, box);
    close_box(&w, properties);
    close_box(&w, meta);

    box = open_box(&w, "mdat");
    size_t payload = w.length;
    put(&w, obus, length);
    close_box(&w, box);
    size_t end = w.length;
    w.length = extent;
    put32(&w, (uint32_t)payload);
    *out = w.bytes;
    *out_length = end;
    return 0;
}
