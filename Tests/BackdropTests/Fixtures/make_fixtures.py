#!/usr/bin/env python3
"""Regenerate the JPEG test fixtures here (needs Pillow, gcc and libjpeg-dev).

Upright test picture (48x32): red top-left, green top-right, blue bottom-left, white bottom-right quadrants.
orient-N.jpg stores it transformed so that EXIF orientation N turns it upright again.
"""
import io
import os
import subprocess
import tempfile

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def upright():
    im = Image.new("RGB", (48, 32))
    for x in range(48):
        for y in range(32):
            left, top = x < 24, y < 16
            im.putpixel((x, y), (255, 0, 0) if left and top else (0, 255, 0) if top else (0, 0, 255) if left else (255, 255, 255))
    return im


# What Pillow's exif_transpose applies for each orientation, and its inverse (applied when storing).
STORE = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,   # exif_transpose applies ROTATE_270
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,  # exif_transpose applies ROTATE_90
}


def main():
    u = upright()
    for n, op in STORE.items():
        stored = u if op is None else u.transpose(op)
        exif = Image.Exif()
        exif[0x0112] = n
        stored.save(os.path.join(HERE, f"orient-{n}.jpg"), "JPEG", quality=95, subsampling=0, exif=exif.tobytes())
    u.convert("L").save(os.path.join(HERE, "gray.jpg"), "JPEG", quality=95)
    u.save(os.path.join(HERE, "progressive.jpg"), "JPEG", quality=95, subsampling=0, progressive=True)
    u.save(os.path.join(HERE, "restart.jpg"), "JPEG", quality=95, subsampling=0, restart_marker_blocks=1)
    Image.new("CMYK", (16, 16), (0, 255, 255, 0)).save(os.path.join(HERE, "cmyk-red.jpg"), "JPEG", quality=95)
    # YCCK with an Adobe marker (inverted CMYK, as Photoshop writes it) needs libjpeg directly.
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "ycck")
        subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(HERE, "make_ycck.c"), "-ljpeg"], check=True)
        subprocess.run([exe, os.path.join(HERE, "ycck-red.jpg")], check=True)
    # A real photo as Flickr's url_l would serve it: 683x1024, baseline JPEG q85 (from a shipped stock photo, as it
    # was cut from the 640x1136 PNG these fixtures were first made from).
    stock = Image.open(os.path.join(HERE, "..", "..", "..", "StockPhotos", "004-free.jpg")).convert("RGB").resize((640, 1136), Image.LANCZOS)
    stock.crop((0, 88, 640, 1048)).resize((683, 1024), Image.LANCZOS).save(os.path.join(HERE, "flickr-photo.jpg"), "JPEG", quality=85)
    print("fixtures written")


if __name__ == "__main__":
    main()
