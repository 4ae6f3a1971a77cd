#!/usr/bin/env python3
"""Rebuild StockPhotos/ as JPEGs: NNN-name.jpg, one per photo number, landscape and portrait, from Debian 12 packages.

usage: Tools/make_stock_photos.py SOURCES_DIR STOCKPHOTOS_DIR [--quality Q]

- 006 and 007 are ../shared/stock-photo-sources/ (1080x1920 crops of the Lomiri wallpapers), copied byte for byte.
- 009 to 011, 023 and 024 are 9:16 portraits cropped at the originals' own scale (no enlarging): 900x1600 out of
  `plasma-workspace-wallpapers`' 2560x1600, 720x1280 out of `mate-backgrounds`' 1920x1280 Storm.
- 012 on are cropped here from `lomiri-wallpapers-16.04`, `plasma-workspace-wallpapers` and `mate-backgrounds`
  (fetched with `apt-get download`): a landscape keeps its original's aspect (3:2, 4:3 or 16:10), at most 2400 px wide;
  a portrait is a 9:16 crop at 1080x1920, made only where the original is at least 1920 px high (no enlarging).

Every photo shows sky or landscape (no still life, no abstracts, no composites); chosen by eye. Needs Pillow.
CREDITS.md (with each photo's phase) is maintained by hand.
"""
import argparse
import glob
import os
import shutil
import subprocess
import tempfile

from PIL import Image

# Measured on three of these originals at 2400 px (PSNR against the resized original, file size): q80 35.0-37.6 dB,
# q86 36.8-38.8 dB, q92 39.8-40.9 dB, q86 a quarter smaller than q92. Backdrop crops, scales and blurs every photo
# again, so q86 keeps the library small (under 12 MB) at no visible cost.
QUALITY = 86

# number, name, package, path in the package, what to make, left edge of a portrait crop as a fraction of the slack
CROPS = [
    (9, "darkest-hour", "plasma-workspace-wallpapers", "usr/share/wallpapers/DarkestHour/contents/images/2560x1600.jpg", "portrait-native", 830),
    (10, "summer-1am", "plasma-workspace-wallpapers", "usr/share/wallpapers/summer_1am/contents/images/2560x1600.jpg", "portrait-native", 1300),
    (11, "evening-glow", "plasma-workspace-wallpapers", "usr/share/wallpapers/EveningGlow/contents/images/2560x1600.jpg", "portrait-native", 800),
    (12, "aitzgorri", "lomiri-wallpapers-16.04", "usr/share/backgrounds/aitzgorri_by_Aitzol_Berasategi.jpg", "landscape", None),
    (13, "aitzgorri-portrait", "lomiri-wallpapers-16.04", "usr/share/backgrounds/aitzgorri_by_Aitzol_Berasategi.jpg", "portrait", 0.55),
    (14, "picos-de-europa", "lomiri-wallpapers-16.04", "usr/share/backgrounds/picosdeeuropa_by_Aitzol_Berasategi.jpg", "landscape", None),
    (15, "picos-de-europa-portrait", "lomiri-wallpapers-16.04", "usr/share/backgrounds/picosdeeuropa_by_Aitzol_Berasategi.jpg", "portrait", 0.6),
    (16, "kite", "plasma-workspace-wallpapers", "usr/share/wallpapers/Kite/contents/images/2560x1600.jpg", "landscape", None),
    (17, "storm", "mate-backgrounds", "usr/share/backgrounds/mate/nature/Storm.jpg", "landscape", None),
    (18, "sunset", "lomiri-wallpapers-16.04", "usr/share/backgrounds/sunset_by_Aitzol_Berasategi.jpg", "landscape", None),
    (19, "seeding", "lomiri-wallpapers-16.04", "usr/share/backgrounds/seeding_by_Clements_Engelhardt.jpg", "landscape", None),
    (20, "evening-glow-landscape", "plasma-workspace-wallpapers", "usr/share/wallpapers/EveningGlow/contents/images/2560x1600.jpg", "landscape", None),
    (21, "summer-1am-landscape", "plasma-workspace-wallpapers", "usr/share/wallpapers/summer_1am/contents/images/2560x1600.jpg", "landscape", None),
    (22, "darkest-hour-landscape", "plasma-workspace-wallpapers", "usr/share/wallpapers/DarkestHour/contents/images/2560x1600.jpg", "landscape", None),
    (23, "kite-portrait", "plasma-workspace-wallpapers", "usr/share/wallpapers/Kite/contents/images/2560x1600.jpg", "portrait-native", 1250),
    (24, "storm-portrait", "mate-backgrounds", "usr/share/backgrounds/mate/nature/Storm.jpg", "portrait-native", 360),
]
COPIED = ["006-sunset_by_Aitzol_Berasategi.jpg", "007-seeding_by_Clements_Engelhardt.jpg"]


def make(image, kind, left):
    width, height = image.size
    if kind == "portrait-native":  # 9:16 at the original's scale, `left` px from its left edge
        crop = round(height * 9 / 16)
        return image.crop((left, 0, left + crop, height)), 92
    if kind == "landscape":
        if width > 2400:
            image = image.resize((2400, round(height * 2400 / width)), Image.LANCZOS)
        return image, QUALITY
    crop = round(height * 9 / 16)
    x = round((width - crop) * left)
    return image.crop((x, 0, x + crop, height)).resize((1080, 1920), Image.LANCZOS), QUALITY


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sources")
    parser.add_argument("destination")
    args = parser.parse_args()
    for old in glob.glob(os.path.join(args.destination, "*.jpg")) + glob.glob(os.path.join(args.destination, "*.png")):
        os.remove(old)
    for name in COPIED:
        out = f"{name[:3]}-{name[4:].split('_by_')[0].lower()}.jpg"
        shutil.copyfile(os.path.join(args.sources, name), os.path.join(args.destination, out))
        print(out)
    with tempfile.TemporaryDirectory() as work:
        for package in sorted({crop[2] for crop in CROPS}):
            subprocess.run(["apt-get", "download", "-q", package], cwd=work, check=True)
            deb = glob.glob(os.path.join(work, f"{package}_*.deb"))[0]
            subprocess.run(["dpkg-deb", "-x", deb, os.path.join(work, "x")], check=True)
        for number, name, _, path, kind, left in CROPS:
            image = Image.open(os.path.join(work, "x", path)).convert("RGB")
            made, quality = make(image, kind, left)
            out = f"{number:03d}-{name}.jpg"
            made.save(os.path.join(args.destination, out), quality=quality, optimize=True)
            print(out, f"{made.size[0]}x{made.size[1]}")


if __name__ == "__main__":
    main()
