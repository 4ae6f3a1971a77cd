#!/usr/bin/env python3
"""Prints the reference vectors PlaceholderTests pins: ThumbHash by evanw/thumbhash's JavaScript under node
(Tests/support/thumbhash_reference.mjs) and BlurHash by PyPI's blurhash, of PlaceholderTests.synthetic's pixels (a
gradient in red and green, a sawtooth in blue) at each size.

usage: .build-venv/bin/python Tools/placeholder_vectors.py   (from the repository's root, after make test-deps)
"""
import json
import subprocess

import blurhash

SIZES = [(37, 23), (23, 37), (32, 32), (60, 20), (20, 60), (100, 25)]


def synthetic(width, height):
    pixels = []
    for y in range(height):
        for x in range(width):
            pixels += [x * 255 // (width - 1), y * 255 // (height - 1), ((x + y) * 13) % 256]
    return pixels


def main():
    for width, height in SIZES:
        pixels = synthetic(width, height)
        request = json.dumps({"encode": {"width": width, "height": height, "rgb": pixels}})
        answer = subprocess.run(["node", "Tests/support/thumbhash_reference.mjs"], input=request, capture_output=True, text=True, check=True)
        rows = [[pixels[(y * width + x) * 3:(y * width + x) * 3 + 3] for x in range(width)] for y in range(height)]
        print(f"{width}x{height}  thumbHash {json.loads(answer.stdout)['hash']}  "
              f"blurHash 4x3 {blurhash.encode(rows, 4, 3)}  3x4 {blurhash.encode(rows, 3, 4)}")


if __name__ == "__main__":
    main()
