#!/usr/bin/env python3
"""`make bench`, density: what `dpr`'s lower lossy floor saves, and what the eye loses.

usage: density.py --anchors DIR --bench PATH/TO/backdrop-bench [--out DIR]

`backdrop-bench --density` renders every anchor photo for a 390x844-CSS-px screen at dpr 1, 1.5, 2 and 3 (blur 0), as
a lossless PNG and in JPEG, WebP and AVIF at the density's fidelity floor and at dpr 1's (each quality fitted to its
floor). Each lossy file and its PNG are
brought down to 390x844 (box filter: what the screen shows the eye of a denser image) and compared there (PSNR), so the
dB say how close each file looks to the lossless render at the size the page lays it out. Prints medians over photos:
bytes and dB at the density's floor, and the bytes dpr 1's floor would have cost for the dB it gains.
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import tempfile

import numpy as np
from PIL import Image

CSS = (390, 844)


def at_css(path):
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB").resize(CSS, Image.Resampling.BOX), dtype=np.float64)


def psnr(a, b):
    mse = float(np.mean((a - b) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchors", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "backdrop-density-out"))
    a = ap.parse_args()
    photos = sorted(glob.glob(os.path.join(a.anchors, "photos", "*.jpg")))
    os.makedirs(a.out, exist_ok=True)
    lines = subprocess.run([a.bench, "--density", "--out", a.out] + photos, check=True, capture_output=True, text=True).stdout
    records = [json.loads(line) for line in lines.splitlines()]
    references = {}
    for r in records:
        if r["reference"] not in references:
            references[r["reference"]] = at_css(r["reference"])
        r["db"] = psnr(at_css(r["out"]), references[r["reference"]])
    print(f"\nDensity: {len(photos)} photos, 390x844 CSS px at blur 0; dB at CSS size against the lossless render")
    print("| format | dpr | floor | kB | dB | kB at dpr 1's floor | dB |")
    print("|---|---|---|---|---|---|---|")
    for fmt in ("jpeg", "webp", "avif"):
        for density in ("1", "1.5", "2", "3"):
            def med(label, key):
                return statistics.median(r[key] for r in records if r["format"] == fmt and r["density"] == density and r["quality"] == label)
            floor = 36 - {"1": 0, "1.5": 1, "2": 2, "3": 3}[density]
            print(f"| {fmt} | {density} | {floor} dB | {med('dropped', 'bytes') / 1000:.1f} | {med('dropped', 'db'):.1f} "
                  f"| {med('flat', 'bytes') / 1000:.1f} | {med('flat', 'db'):.1f} |")


if __name__ == "__main__":
    main()
