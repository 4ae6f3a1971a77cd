#!/usr/bin/env python3
"""`make bench`, AVIF settings: what the AV1 encoders in Debian 12's libavif and libaom's settings reachable through it
do to an AVIF render's encode time, bytes and quality, on Backdrop's own renders of the anchor photos.

usage: avif_study.py --anchors DIR --bench PATH/TO/backdrop-bench [--runs N]

`backdrop-bench --avif-study` encodes each photo's render at 640x1136 and 2048x1536, sharp (blur 0) and fully blurred
(blur 1), at the service's quantizers, with each candidate setting (process CPU time, so that encoders running threads
of their own are measured whole; rav1e and SVT-AV1 once, libaom `--runs` times). Prints, per candidate and case, the
median over photos of its time and bytes relative to the default in the same run, and its worst PSNR over photos
(against the render, after decoding with libavif/dav1d) beside the default's. A setting is worth keeping only if it is
faster in every case with bytes and worst dB no worse (within 0.5 % and 0.05 dB).
"""
import argparse
import glob
import json
import os
import statistics
import subprocess

CASES = [("640x1136", 0.0), ("640x1136", 1.0), ("2048x1536", 0.0), ("2048x1536", 1.0)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchors", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    photos = sorted(glob.glob(os.path.join(a.anchors, "photos", "*.jpg")))
    env = dict(os.environ, SVT_LOG="1")  # SVT-AV1's banner and warnings off; errors still shown
    output = subprocess.run([a.bench, "--avif-study", "--runs", str(a.runs), *photos], env=env, capture_output=True,
                            text=True, check=True, timeout=3600).stdout
    records = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    by = {(r["candidate"], r["image"], r["display"], r["alpha"]): r for r in records}
    candidates = list(dict.fromkeys(r["candidate"] for r in records))
    default = candidates[0]
    images = sorted({r["image"] for r in records})

    print("\nAVIF settings (Debian 12: libavif 0.11.1, libaom 3.6.0, rav1e, SVT-AV1 1.4.1), one thread, "
          f"{len(images)} anchor photos; time and bytes as the median ratio to the default in the same run, "
          "worst PSNR over the photos (default's in brackets):\n")
    header = " | ".join(f"{d} blur {int(b)}: time, bytes, worst dB" for d, b in CASES)
    print(f"| setting | {header} | kept |")
    print("|---|" + "---|" * len(CASES) + "---|")
    absolute = []
    for candidate in candidates:
        cells, keep = [], candidate != default
        for display, alpha in CASES:
            pairs = [(by.get((candidate, i, display, alpha)), by[(default, i, display, alpha)]) for i in images]
            pairs = [(c, d) for c, d in pairs if c]
            time = statistics.median(c["cpu_ms"] / d["cpu_ms"] for c, d in pairs)
            size = statistics.median(c["bytes"] / d["bytes"] for c, d in pairs)
            worst, worst_default = min(c["psnr_db"] for c, _ in pairs), min(d["psnr_db"] for _, d in pairs)
            keep = keep and time < 0.97 and size <= 1.005 and worst >= worst_default - 0.05
            cells.append(f"{time:.2f}x, {size:.2f}x, {worst:.1f} ({worst_default:.1f})")
            if candidate == default:
                ms = statistics.median(d["cpu_ms"] for _, d in pairs)
                convert = statistics.median(d["convert_ms"] for _, d in pairs)
                encode = statistics.median(d["encode_ms"] for _, d in pairs)
                absolute.append(f"{display} blur {int(alpha)}: {ms:.1f} ms ({convert:.2f} ms of it RGB to YUV, {encode:.1f} ms libaom)")
        print(f"| {candidate} | " + " | ".join(cells) + f" | {'yes' if keep else 'no' if candidate != default else '(default)'} |")
    print("\nThe default's encode, median over photos: " + "; ".join(absolute) + ".")


if __name__ == "__main__":
    main()
