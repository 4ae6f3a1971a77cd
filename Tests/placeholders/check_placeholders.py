#!/usr/bin/env python3
"""The placeholders in /background.json (images.thumbHash, images.blurHash, images.color) read by independent
decoders, against a live Backdrop serving stock photos (no Flickr), and how close each comes to the blurred layer.

usage: check_placeholders.py PATH/TO/backdrop OUTPUT_DIR

For each place, style and size: the full-size blur=1 PNG is fetched; the inline WebP preview, the ThumbHash (decoded
by evanw/thumbhash's reference JavaScript under node), the BlurHash (decoded by PyPI's blurhash, a port of the
reference) and the flat colour are each stretched to that size with bilinear interpolation, and their PSNR against it
is measured. The hashes must also be exactly what the reference encoders make of the preview's pixels. PyPI's
thumbhash 0.1.2 reads the average colour and aspect ratio (its full decoder returns one flat colour whatever the hash,
so the JavaScript reference draws the image). Prints the table in docs/api.md; writes a side-by-side picture per style.
"""
import base64
import io
import json
import math
import os
import statistics
import subprocess
import sys
import urllib.request

import blurhash
import thumbhash
from PIL import Image, ImageChops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from backdrop_server import BackdropServer  # noqa: E402
from checks import check, finish, run_part  # noqa: E402

FAILURES = {}


def expect(name, ok, detail=""):
    """A check made for every place, style and size, reported once: the first few failures' details."""
    FAILURES.setdefault(name, [])
    if not ok:
        FAILURES[name].append(detail)

# Which stock photo a place gets changes with the 15-minute window and the screen's class (portrait, square,
# landscape), so the check finds a place for every stock photo at each size in the window it runs in and measures them
# all: the same photos, and so the same figures, whenever it runs.
STOCK = os.path.join(HERE, "..", "..", "StockPhotos")
STOCK_IDS = sorted({f"stock-{name[:3]}" for name in os.listdir(STOCK) if name.endswith(".jpg") and name[:3].isdigit()})
STOCK_PHOTOS = len(STOCK_IDS)
CANDIDATES = [(lat / 10, lon / 10) for lat in range(-600, 601, 37) for lon in range(-1800, 1801, 113)]
# A phone, a tablet, a large screen, a square and a 3.2:1 banner (whose ThumbHash meets the floor of three luminance
# components on its short side).
SIZES = [(390, 844), (1024, 768), (2048, 1536), (1024, 1024), (2048, 640)]
STYLES = ["light", "extralight", "dark", "none"]
STRADDLED = []  # measurements left out: a window boundary fell between the JSON and its image
REFERENCE = os.path.join(HERE, "..", "support", "thumbhash_reference.mjs")


def fetch(url):
    return fetch_with_photo(url)[0]


def fetch_with_photo(url):
    """The body, and the photo the service says it served (X-Backdrop-Photo-Id)."""
    with urllib.request.urlopen(url, timeout=60) as answer:
        return answer.read(), answer.headers.get("X-Backdrop-Photo-Id")


def psnr(a, b):
    """PSNR in dB of two RGB images of one size, over all three channels."""
    histogram = ImageChops.difference(a, b).histogram()
    squared = sum(count * (value % 256) ** 2 for value, count in enumerate(histogram))
    mse = squared / (a.width * a.height * 3)
    return 99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def node(request):
    out = subprocess.run(["node", REFERENCE], input=json.dumps(request), capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def rgb_image(width, height, rgb):
    return Image.frombytes("RGB", (width, height), bytes(rgb))


def places_for_every_photo(server, wanted, width, height):
    """A place and variant for each stock photo id in `wanted`, in the current window, at `width` x `height`:
    {photoId: (lat, lon, variant)}. Stock photos follow the sky at the place and the screen's class, so each place's
    variants walk its nearest skies and best fitting photos first."""
    found = {}
    for lat, lon in CANDIDATES:
        for variant in range(10):
            query = f"lat={lat}&lon={lon}&variant={variant}&width={width}&height={height}"
            photo = json.loads(fetch(f"{server.base}/background.json?{query}"))["photoId"]
            if photo in wanted and photo not in found:
                found[photo] = (lat, lon, variant)
        if len(found) == len(wanted):
            break
    return found


def measure(server, lat, lon, variant, style, width, height, results, pictures, measured):
    info = json.loads(fetch(f"{server.base}/background.json?lat={lat}&lon={lon}&variant={variant}&style={style}&width={width}&height={height}"))
    measured.add(info["photoId"])
    images = info["images"]
    name = f"{info['cell']} {style} {width}x{height}"
    body, served = fetch_with_photo(server.base + images["formats"]["png"]["blurred"])
    if served != info["photoId"]:
        # A window boundary between the JSON and the image: they show two photos, so nothing here is comparable.
        measured.add(served)
        STRADDLED.append(f"{name}: {info['photoId']} then {served}")
        return
    layer = Image.open(io.BytesIO(body)).convert("RGB")

    def want(label, ok, detail=""):
        expect(label, ok, f"{name}: {detail}")
    want("the blur=1 image has the size asked for", layer.size == (width, height), str(layer.size))

    preview = Image.open(io.BytesIO(base64.b64decode(images["blurredPreview"]["uri"].split(",", 1)[1]))).convert("RGB")
    small = list(preview.tobytes())
    # Previews hold at most 1,800 pixels, so every size here gives one within ThumbHash's 100 a side, which the
    # reference encoder takes as it is: nothing is left unchecked.
    want("the preview fits ThumbHash's encoder as it is", max(preview.size) <= 100, str(preview.size))
    encoded = node({"encode": {"width": preview.width, "height": preview.height, "rgb": small}})["hash"]
    want("thumbHash is the reference encoder's hash of the preview", encoded == images["thumbHash"], f"{encoded} != {images['thumbHash']}")
    components = (3, 4)  # across, down: measured (BlurHash.components)
    rows = [[small[(y * preview.width + x) * 3:(y * preview.width + x) * 3 + 3] for x in range(preview.width)] for y in range(preview.height)]
    expected = blurhash.encode(rows, *components)
    want("blurHash is the reference encoder's hash of the preview", expected == images["blurHash"], f"{expected} != {images['blurHash']}")

    hashed = list(base64.b64decode(images["thumbHash"]))
    decoded = node({"decode": images["thumbHash"]})
    average = thumbhash.thumb_hash_to_average_rgba(hashed)
    want("PyPI thumbhash reads the reference decoder's average colour",
          all(abs(a - b) < 1e-9 for a, b in zip(average, decoded["average"])), f"{average} vs {decoded['average']}")
    ratio = thumbhash.thumb_hash_to_approximate_aspect_ratio(hashed)
    want("and an aspect ratio on the right side of 1", (ratio > 1) == (width > height), f"({ratio})")
    thumb = rgb_image(decoded["width"], decoded["height"], decoded["rgb"])
    blur_w, blur_h = (32, max(1, round(32 * height / width))) if width >= height else (max(1, round(32 * width / height)), 32)
    blurred = rgb_image(blur_w, blur_h, [v for row in blurhash.decode(images["blurHash"], blur_w, blur_h) for p in row for v in p])
    color = images["color"]
    want("color is #rrggbb", len(color) == 7 and color[0] == "#" and all(c in "0123456789abcdef" for c in color[1:]), color)
    flat = Image.new("RGB", (width, height), tuple(int(color[i:i + 2], 16) for i in (1, 3, 5)))

    stretched = {
        "preview": preview.resize((width, height), Image.BILINEAR),
        "thumbHash": thumb.resize((width, height), Image.BILINEAR),
        "blurHash": blurred.resize((width, height), Image.BILINEAR),
        "color": flat,
    }
    sizes = {"preview": len(images["blurredPreview"]["uri"]), "thumbHash": len(images["thumbHash"]), "blurHash": len(images["blurHash"]), "color": len(color)}
    for kind, image in stretched.items():
        results.setdefault(kind, []).append((psnr(image, layer), sizes[kind], f"{width}x{height}"))
    if (width, height) == SIZES[0] and style not in pictures:
        pictures[style] = [layer] + list(stretched.values())


def side_by_side(pictures, output):
    """One row per style: the blur=1 image, then the preview, ThumbHash, BlurHash and colour, each stretched."""
    w, h = 195, 422
    sheet = Image.new("RGB", (w * 5, h * len(pictures)))
    for row, style in enumerate(pictures):
        for column, image in enumerate(pictures[style]):
            sheet.paste(image.resize((w, h), Image.BILINEAR), (column * w, row * h))
    path = os.path.join(output, "placeholders.png")
    sheet.save(path)
    return path


def main():
    binary, output = sys.argv[1], sys.argv[2]
    os.makedirs(output, exist_ok=True)
    print("placeholders: thumbHash, blurHash and color by independent decoders, against the blur=1 image")
    results, pictures = {}, {}
    measured = {size: set() for size in SIZES}

    def run():
        with BackdropServer(binary, flickr=False, log=os.path.join(output, "backdrop-placeholders.log")) as server:
            for width, height in SIZES:
                # Twice at most: a window boundary while measuring moves the places to other photos.
                for _ in range(2):
                    wanted = set(STOCK_IDS) - measured[(width, height)]
                    for photo, (lat, lon, variant) in places_for_every_photo(server, wanted, width, height).items():
                        seen = set()
                        for style in STYLES:
                            measure(server, lat, lon, variant, style, width, height, results, pictures, seen)
                        if seen == {photo}:
                            measured[(width, height)].add(photo)
                    if measured[(width, height)] == set(STOCK_IDS):
                        break

    run_part(run)
    if STRADDLED:
        print(f"  (left out, a window boundary between the JSON and its image: {'; '.join(STRADDLED)})")
    missing = {f"{w}x{h}": sorted(set(STOCK_IDS) - done) for (w, h), done in measured.items() if done != set(STOCK_IDS)}
    check(f"every one of the {STOCK_PHOTOS} stock photos is measured at every size", not missing, str(missing))
    for name, failures in FAILURES.items():
        check(f"{name}, for every place, style and size", not failures, "; ".join(failures[:3]))
    print("  | placeholder | characters in the JSON | PSNR against blur=1, median (lowest) |")
    for kind, values in results.items():
        db = [v[0] for v in values]
        chars = [v[1] for v in values]
        print(f"  | {kind} | {statistics.median(chars):.0f} ({min(chars)}-{max(chars)}) | {statistics.median(db):.1f} dB ({min(db):.1f}) |")
    # Floors: the lowest measured over every stock photo, style and size (50.1, 16.9, 13.9, 10.7 dB, the lowest three
    # on the banner), less about 3 dB.
    floors = {"preview": 47, "thumbHash": 14, "blurHash": 11, "color": 7}
    for kind, floor in floors.items():
        lowest, _, where = min(results.get(kind, [(0, 0, "nothing measured")]))
        check(f"{kind} stretched to the screen is within {floor} dB of the blur=1 image everywhere", lowest >= floor,
              f"(lowest {lowest:.1f} dB, at {where})")
    order = [statistics.median(v[0] for v in results.get(k, [(0, 0, "")])) for k in ("preview", "thumbHash", "blurHash", "color")]
    check("the preview comes closest and the flat colour least close, at the median", order[0] == max(order) and order[3] == min(order),
          ", ".join(f"{db:.1f}" for db in order))
    print(f"  (side by side: {side_by_side(pictures, output)})")
    finish("placeholders")


if __name__ == "__main__":
    main()
