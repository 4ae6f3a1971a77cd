/* Writes a 16x16 YCCK JPEG (Adobe marker, inverted CMYK as Adobe applications store it) of pure red. */
#include <stdio.h>
#include <jpeglib.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    FILE *f = fopen(argv[1], "wb");
    if (!f) return 1;
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = 16;
    c.image_height = 16;
    c.input_components = 4;
    c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, JCS_YCCK);
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    JSAMPLE row[16 * 4];
    for (int x = 0; x < 16; x++) {
        /* red = C 0, M 100%, Y 100%, K 0, stored inverted: 255 - ink */
        row[x * 4 + 0] = 255;
        row[x * 4 + 1] = 0;
        row[x * 4 + 2] = 0;
        row[x * 4 + 3] = 255;
    }
    JSAMPROW rows[1] = {row};
    while (c.next_scanline < c.image_height) jpeg_write_scanlines(&c, rows, 1);
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(f);
    return 0;
}
