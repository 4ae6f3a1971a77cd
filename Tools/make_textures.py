#!/usr/bin/env python3
"""Writes Tests/BackdropTests/Fixtures/textures/*.png: sources that repeat at distances Backdrop's scanline deflate does
not look at (lines, checks, stripes, tiles, dither), which anyone could geotag under a free licence. The PNG writer's
test renders them as the service does and holds every PNG to 1.1x libdeflate level 1's size for the same pixels.

usage: python3 Tools/make_textures.py   (standard library only; the output is committed)
"""
import os
import random
import struct
import zlib

W, H = 2048, 1953
OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "BackdropTests", "Fixtures", "textures")


def png(path, pixel):
    rows = bytearray()
    for y in range(H):
        rows.append(0)
        for x in range(W):
            rows.extend(pixel(x, y))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(20261125)
    tile = [[bytes(rng.randrange(256) for _ in range(3)) for _ in range(48)] for _ in range(48)]
    bayer = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]]
    ink, paper = bytes((20, 30, 60)), bytes((240, 235, 220))
    textures = {
        # Lines one pixel wide every 8, at 45 degrees: each row is the one above moved a pixel.
        "diagonal-lines": lambda x, y: ink if (x + y) % 8 == 0 else paper,
        # Steeper lines in two colours, every 13 pixels.
        "slanted-lines": lambda x, y: bytes((200, 40, 40)) if (x - 2 * y) % 13 < 2 else bytes((30, 90, 200)),
        "checkerboard": lambda x, y: ink if (x // 4 + y // 4) % 2 == 0 else paper,
        "fine-checkerboard": lambda x, y: ink if (x + y) % 2 == 0 else paper,
        "horizontal-stripes": lambda x, y: ink if y % 2 == 0 else paper,
        "vertical-stripes": lambda x, y: bytes((255, 255, 0)) if x % 3 == 0 else bytes((0, 0, 255)),
        # A 48-pixel tile of noise, repeated: high entropy, repeats only at the tile's period.
        "noise-tile": lambda x, y: tile[y % 48][x % 48],
        # A gradient dithered with a 4x4 Bayer matrix.
        "dithered-gradient": lambda x, y: bytes([255 if (x * 255 // W) > bayer[y % 4][x % 4] * 16 else 0] * 3),
    }
    for name, pixel in textures.items():
        png(os.path.join(OUT, name + ".png"), pixel)
        print(name, os.path.getsize(os.path.join(OUT, name + ".png")))


if __name__ == "__main__":
    main()
