#!/usr/bin/env python3
"""Rebuild StockPhotos/ from ../shared/stock-photo-sources/ (1080x1920 crops of freely licensed originals).

usage: Tools/make_stock_photos.py SOURCES_DIR STOCKPHOTOS_DIR
Writes NNN-StockPhoto-320x568.png and NNN-StockPhoto-320x568@2x.png (RGB, cover-fit + centre crop, LANCZOS).
Needs Pillow. CREDITS.md is maintained by hand.
"""
import os
import sys

from PIL import Image


def cover(im, w, h):
    s = max(w / im.width, h / im.height)
    bw, bh = w / s, h / s
    box = ((im.width - bw) / 2, (im.height - bh) / 2, (im.width + bw) / 2, (im.height + bh) / 2)
    return im.resize((w, h), Image.LANCZOS, box=box)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    for name in sorted(os.listdir(src)):
        if not name.endswith(".jpg") or not name[:3].isdigit():
            continue
        im = Image.open(os.path.join(src, name)).convert("RGB")
        number = name[:3]
        cover(im, 640, 1136).save(os.path.join(dst, f"{number}-StockPhoto-320x568@2x.png"), optimize=True)
        cover(im, 320, 568).save(os.path.join(dst, f"{number}-StockPhoto-320x568.png"), optimize=True)
        print(number, name)


if __name__ == "__main__":
    main()
