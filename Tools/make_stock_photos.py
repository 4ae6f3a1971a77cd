#!/usr/bin/env python3
"""Rebuild StockPhotos/ as JPEGs at their originals' resolution: NNN-name.jpg, one per photo number.

usage: Tools/make_stock_photos.py SOURCES_DIR STOCKPHOTOS_DIR

- 000 to 008 are ../shared/stock-photo-sources/ (1080x1920 crops of the Lomiri wallpapers), copied byte for byte.
- 009 to 011 are cropped here to a 9:16 portrait from Debian 12's `plasma-workspace-wallpapers` (fetched with
  `apt-get download`), at the originals' own scale (900x1600 out of 2560x1600: no enlarging), JPEG quality 92.

Needs Pillow. CREDITS.md (with each photo's phase) is maintained by hand.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from PIL import Image

# number, name, wallpaper folder, left edge of the 900x1600 crop in the 2560x1600 original
PLASMA = [
    (9, "darkest-hour", "DarkestHour", 830),
    (10, "summer-1am", "summer_1am", 1300),
    (11, "evening-glow", "EveningGlow", 800),
]


def slug(name):
    # "006-sunset_by_Aitzol_Berasategi.jpg" -> "006-sunset.jpg"
    stem = name[4:].rsplit(".", 1)[0].split("_by_")[0]
    return f"{name[:3]}-{stem.lower().replace('_', '-')}.jpg"


def main():
    src, dst = sys.argv[1], sys.argv[2]
    for old in glob.glob(os.path.join(dst, "*.png")) + glob.glob(os.path.join(dst, "*.jpg")):
        os.remove(old)
    for name in sorted(os.listdir(src)):
        if name.endswith(".jpg") and name[:3].isdigit():
            shutil.copyfile(os.path.join(src, name), os.path.join(dst, slug(name)))
            print(slug(name))
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["apt-get", "download", "-q", "plasma-workspace-wallpapers"], cwd=work, check=True)
        deb = glob.glob(os.path.join(work, "plasma-workspace-wallpapers_*.deb"))[0]
        subprocess.run(["dpkg-deb", "-x", deb, os.path.join(work, "x")], check=True)
        for number, name, folder, left in PLASMA:
            original = os.path.join(work, "x/usr/share/wallpapers", folder, "contents/images/2560x1600.jpg")
            image = Image.open(original).convert("RGB").crop((left, 0, left + 900, 1600))
            out = f"{number:03d}-{name}.jpg"
            image.save(os.path.join(dst, out), quality=92, optimize=True)
            print(out)


if __name__ == "__main__":
    main()
