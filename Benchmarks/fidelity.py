#!/usr/bin/env python3
"""`make bench`, fidelity: each lossy answer at its floor, against the fixed quality the service used before.

usage: fidelity.py --bench PATH/TO/backdrop-bench PHOTO.jpg...          (the bench: served against fixed)
       fidelity.py --fit --bench PATH/TO/backdrop-bench PHOTO.jpg...    (fits QualityModel's tables)

By default `backdrop-bench --fidelity-served` encodes each photo's 640x1136 render at blur 0, 0.5, 0.75 and 1 in JPEG,
WebP and AVIF as the service does (FittedQuality: the quality predicted for the floor, the answer checked as decoded,
a second encode when short) and at the fixed quality used before (JPEG and WebP 80, AVIF 60 rising to 80 at blur 1).
Prints per format and blur: the worst photo's dB and its floor, answers under their floor (the target is none), the
second encodes, the total bytes against the fixed quality's, and the encode CPU (median over runs, the check
included) against the fixed quality's.

With --fit, `backdrop-bench --fidelity` encodes each render (blur 0, 0.25, 0.5, 0.75, 1) at qualities 20, 24 ... 96,
reads each back and gives its dB and the picture's detail (ImageDetail). Per format and quality this fits dB =
intercept + a x ln(luma detail + 0.5) + b x ln(chroma detail + 0.5) + c x busy share + d x blend + e x blend²
by least squares and prints the
Swift table of QualityModel (Sources/Backdrop/Imaging/Codecs/QualityModel+fitted.swift), with the margin (the 5th
percentile of the residuals with each photo left out of the lines that predict it, negated), the worst of those and
the residuals' spread.
"""
import argparse
import json
import math
import subprocess

import numpy as np


def run(bench, mode, photos, records):
    if records:
        text = open(records).read()
    else:
        text = subprocess.run([bench, mode, "--runs", "3"] + photos, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def features(r):
    return [1.0, math.log(r["detail"] + 0.5), math.log(r["chroma"] + 0.5), r["busy"], r["alpha"], r["alpha"] ** 2]


def fit(records):
    for fmt in ("jpeg", "webp", "avif"):
        lines, residuals, held_out = [], [], []
        for quality in sorted({r["quality"] for r in records if r["format"] == fmt}):
            sub = [r for r in records if r["format"] == fmt and r["quality"] == quality and 28 <= r["db"] <= 52]
            if len(sub) < 10:
                continue
            x = np.array([features(r) for r in sub])
            y = np.array([r["db"] for r in sub])
            coefficients, *_ = np.linalg.lstsq(x, y, rcond=None)
            residuals += list(y - x @ coefficients)
            # Each photo's renders predicted by the lines fitted without them: what a photo the fit never saw meets.
            for image in sorted({r["image"] for r in sub}):
                inside = np.array([r["image"] != image for r in sub])
                if inside.sum() >= 10:
                    without, *_ = np.linalg.lstsq(x[inside], y[inside], rcond=None)
                    held_out += list(y[~inside] - x[~inside] @ without)
            lines.append(f"Line({quality}, " + ", ".join(f"{c:.2f}" for c in coefficients) + ")")
        residuals, held_out = np.array(residuals), np.array(held_out)
        margin = -float(np.percentile(held_out, 5))
        print(f"// {fmt}: {len(residuals)} encodes; residual sd {float(residuals.std()):.2f} dB; each photo left out: sd "
              f"{float(held_out.std()):.2f}, 5th percentile {-margin:.2f}, worst {float(held_out.min()):.2f}")
        print(f"static let {fmt} = QualityModel(")
        print("    lines: [")
        for line in lines:
            print(f"        {line},")
        print(f"    ],\n    margin: {margin:.2f},\n    retryMargin: 1.0,\n    worst: {-float(held_out.min()):.2f}\n)")


def served(records):
    print(f"\nFidelity: {len({r['image'] for r in records})} photos at 640x1136, each answer as served (quality fitted "
          "to its floor, checked as decoded) against the fixed quality before (JPEG and WebP 80, AVIF 60 to 80)")
    print("| format | blur | floor | worst dB (fixed) | under floor (fixed) | second encodes | kB total (fixed) | bytes ratio | encode CPU ms (fixed) | CPU ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    totals = {"bytes": 0, "fixed_bytes": 0, "cpu": 0.0, "fixed_cpu": 0.0, "under": 0}
    for fmt in ("jpeg", "webp", "avif"):
        for alpha in (0.0, 0.5, 0.75, 1.0):
            sub = [r for r in records if r["format"] == fmt and r["alpha"] == alpha]
            if not sub:
                continue
            worst = min(sub, key=lambda r: r["db"] - r["floor"])
            worst_fixed = min(r["fixed_db"] for r in sub)
            under = sum(r["db"] < r["floor"] for r in sub)
            under_fixed = sum(r["fixed_db"] < r["floor"] for r in sub)
            seconds = sum(r["encodes"] == 2 for r in sub)
            kb, fixed_kb = sum(r["bytes"] for r in sub), sum(r["fixed_bytes"] for r in sub)
            cpu, fixed_cpu = sum(r["cpu_ms"] for r in sub), sum(r["fixed_cpu_ms"] for r in sub)
            totals["bytes"] += kb
            totals["fixed_bytes"] += fixed_kb
            totals["cpu"] += cpu
            totals["fixed_cpu"] += fixed_cpu
            totals["under"] += under
            print(f"| {fmt} | {alpha:g} | {worst['floor']:g} | {worst['db']:.1f} ({worst_fixed:.1f}) | {under} ({under_fixed}) | "
                  f"{seconds} of {len(sub)} | {kb / 1000:.0f} ({fixed_kb / 1000:.0f}) | {kb / fixed_kb:.2f}x | "
                  f"{cpu / len(sub):.1f} ({fixed_cpu / len(sub):.1f}) | {cpu / fixed_cpu:.2f}x |")
    print(f"\nAll: {totals['under']} answers under their floor; bytes {totals['bytes'] / totals['fixed_bytes']:.2f}x the fixed "
          f"quality's; encode CPU {totals['cpu'] / totals['fixed_cpu']:.2f}x (targets: none, at most 1.0x, at most 1.3x)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--records", help="a file of backdrop-bench's JSON lines, in place of running it")
    ap.add_argument("photos", nargs="+")
    a = ap.parse_args()
    if a.fit:
        fit(run(a.bench, "--fidelity", a.photos, a.records))
    else:
        served(run(a.bench, "--fidelity-served", a.photos, a.records))


if __name__ == "__main__":
    main()
