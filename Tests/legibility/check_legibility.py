#!/usr/bin/env python3
"""The legibility advice and the attention crop of /background.json, against independent oracles and a live Backdrop.

usage: check_legibility.py PATH/TO/backdrop OUTPUT_DIR [PHOTO.jpg ...]

Legibility: for every stock photo (and every photo given), in every style and at a portrait and a landscape size, the
sharp (blur=0) and blurred (blur=1) PNGs are fetched and their pixels measured here with numpy: WCAG 2 relative
luminance, its 90th percentile (white text) and 10th (black text) in the top and bottom 15 % and the whole image. The
JSON's contrasts must match, the recommended colour must be the one needing the lighter scrim, and text in that colour
over the advertised scrim (composited as a browser does, in 8-bit sRGB) must reach 4.5:1 over the whole image.

Attention crop: the same photos, and synthetic ones (seeded noise with a salient block at known places), are cropped by
libvips' own smartcrop (Debian's libvips through pyvips, interesting=attention) and by Backdrop; Backdrop's crop is
found in the served sharp image by sliding it along the photo resized by libvips. The two must agree within 1/32 of the
photo's side; `crop=centre` must be the centre crop; the JSON's focus must fall inside the salient block.
"""
import io
import json
import os
import sys
import tempfile
import urllib.request

import numpy
import pyvips
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from backdrop_server import BackdropServer  # noqa: E402
from checks import check, finish, run_part  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
STOCK = os.path.join(ROOT, "StockPhotos")
STYLES = ["light", "extralight", "dark", "none"]
SIZES = [(390, 844), (1024, 768)]
REGIONS = ("top", "bottom", "whole")
SEED = 20261125


def fetch(url):
    with urllib.request.urlopen(url, timeout=60) as answer:
        return answer.read(), answer.headers


def pixels(png):
    return numpy.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=numpy.float64)


def luminance(rgb):
    """WCAG 2's relative luminance of each pixel (its own formula, threshold 0.03928)."""
    c = rgb / 255
    linear = numpy.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ numpy.array([0.2126, 0.7152, 0.0722])


def regions(image):
    band = max(1, round(image.shape[0] * 0.15))
    return {"top": image[:band], "bottom": image[-band:], "whole": image}


def contrast(region, light):
    values = luminance(region).ravel()
    if light:
        return 1.05 / (numpy.percentile(values, 90) + 0.05)
    return (numpy.percentile(values, 10) + 0.05) / 0.05


def scrimmed(region, light, opacity):
    """The region under a scrim: black at `opacity` for white text, white for black text, to whole 8-bit values."""
    if light:
        return numpy.floor(region * (1 - opacity) + 0.5)
    return numpy.floor(region + (255 - region) * opacity + 0.5)


class Tally:
    """Failures per kind, each reported once with its first examples; and the before and after figures."""

    def __init__(self):
        self.failures = {}
        self.measured = 0
        self.rows = []

    def expect(self, name, ok, detail):
        self.failures.setdefault(name, [])
        if not ok:
            self.failures[name].append(detail)

    def report(self, what):
        for name, failed in self.failures.items():
            check(f"{name} ({what})", not failed, "; ".join(failed[:4]) + (f" and {len(failed) - 4} more" if len(failed) > 4 else ""))


def measure(tally, info, sharp, blurred, label):
    """One JSON answer's legibility against the images it names."""
    for layer, image in (("sharp", sharp), ("blurred", blurred)):
        for region, part in regions(image).items():
            advice = info["legibility"][layer][region]
            for ink in ("light", "dark"):
                ours = contrast(part, ink == "light")
                said = advice[ink]["contrast"]
                tally.expect("the advertised contrast is the image's, within 4 %", abs(said - ours) <= 0.04 * ours + 0.02,
                             f"{label} {layer} {region} {ink}: said {said}, measured {ours:.2f}")
            text = advice["text"]
            other = "dark" if text == "light" else "light"
            tally.expect("the advised colour needs the lighter scrim", advice[text]["scrim"] <= advice[other]["scrim"],
                         f"{label} {layer} {region}: {advice}")
            after = contrast(scrimmed(part, text == "light", advice[text]["scrim"]), text == "light")
            tally.expect("text in the advised colour over the advertised scrim reaches 4.5:1", after >= 4.5,
                         f"{label} {layer} {region}: {text} over {advice[text]['scrim']} gives {after:.2f}")
            for ink in ("light", "dark"):
                opacity = advice[ink]["scrim"]
                if opacity >= 0.02:  # and no less would do: a scrim 0.02 lighter falls short
                    short = contrast(scrimmed(part, ink == "light", opacity - 0.02), ink == "light")
                    tally.expect("the scrim is the least that reaches it (0.02 less falls short)", short < 4.6,
                                 f"{label} {layer} {region} {ink}: {opacity - 0.02:.2f} already gives {short:.2f}")
            if layer == "sharp" and region == "bottom":
                tally.rows.append((label, text, contrast(part, text == "light"), advice[text]["scrim"], after))
    tally.measured += 1


def served(server, query):
    """The JSON for `query`, and its sharp and blurred PNGs (asked again if a window turned in between)."""
    for _ in range(3):
        info = json.loads(fetch(f"{server.base}/background.json?{query}")[0])
        pngs = [fetch(server.base + info["images"]["formats"]["png"][layer]) for layer in ("sharp", "blurred")]
        if all(headers.get("X-Backdrop-Photo-Id") == info["photoId"] for _, headers in pngs):
            return info, pixels(pngs[0][0]), pixels(pngs[1][0])
    raise RuntimeError(f"the photo kept changing for {query}")


def stock_photos(server, width, height):
    """A query (cell and variant) for each stock photo at `width` x `height`, found in this window: a place's photo
    follows the sky there and the screen's class."""
    found = {}
    for cell in ("u09tv", "9q8yy", "r3gx2", "c2b2q", "kzf0b", "dr5ru", "wx4g0", "tdr1v", "6gkzm", "s0000", "7zzzz", "pbpbp"):
        for variant in range(10):
            info = json.loads(fetch(f"{server.base}/background.json?cell={cell}&variant={variant}&width={width}&height={height}")[0])
            found.setdefault(info["photoId"], (f"cell={cell}&variant={variant}", info["photoNote"]))
    return found


def crop_offset(source, served_image, axis):
    """Where Backdrop's crop begins in the source photo, in source pixels along `axis` (1: x, 0: y): the served image's
    profile slid along the source's, resized by libvips to the same cover scale."""
    height, width = served_image.shape[:2]
    scale = max(width / source.width, height / source.height)
    resized = source.resize(scale, vscale=scale)
    full = numpy.ndarray(buffer=resized.write_to_memory(), dtype=numpy.uint8,
                         shape=(resized.height, resized.width, resized.bands)).astype(numpy.float64)[..., :3]
    profile = luminance(served_image).mean(axis=1 - axis)
    whole = luminance(full).mean(axis=1 - axis)
    length = len(profile)
    errors = [((whole[i:i + length] - profile) ** 2).mean() for i in range(0, len(whole) - length + 1)]
    return int(numpy.argmin(errors)) / scale


def vips_offset(source, size, axis):
    """libvips' attention smartcrop of `source` to the crop Backdrop takes for `size`: its left (axis 1) or top edge."""
    width, height = size
    scale = max(width / source.width, height / source.height)
    crop_width, crop_height = min(source.width, round(width / scale)), min(source.height, round(height / scale))
    _, found = source.smartcrop(crop_width, crop_height, interesting="attention", attention_x=True, attention_y=True)
    if axis == 1:
        return min(max(found["attention_x"] - crop_width // 2, 0), source.width - crop_width)
    return min(max(found["attention_y"] - crop_height // 2, 0), source.height - crop_height)


class Turned(Exception):
    """The window turned and the query now answers another photo."""


def compare_crop(tally, server, query, path, size, label, photo=None):
    source = pyvips.Image.new_from_file(path, access="sequential").copy_memory()
    width, height = size
    axis = 1 if source.width / source.height > width / height else 0
    side = source.width if axis == 1 else source.height
    info, sharp, _ = served(server, f"{query}&width={width}&height={height}")
    if photo and info["photoId"] != photo:
        raise Turned()
    ours = crop_offset(source, sharp, axis)
    theirs = vips_offset(source, size, axis)
    # One cell of the 32-cell grid both search (where two cells score within a hundredth of each other, either may win),
    # and one pixel of the served image for finding the crop in it.
    scale = max(width / source.width, height / source.height)
    tally.expect("Backdrop's attention crop agrees with libvips' within 1/32 of the side", abs(ours - theirs) <= side / 32 + 1 / scale,
                 f"{label} at {width}x{height}: ours {ours:.0f}, libvips {theirs} of {side}")
    centred, centre_sharp, _ = served(server, f"{query}&width={width}&height={height}&crop=centre")
    if photo and centred["photoId"] != photo:
        raise Turned()
    centre = crop_offset(source, centre_sharp, axis)
    kept = side - (width if axis == 1 else height) / max(width / source.width, height / source.height)
    tally.expect("crop=centre is the centre crop", abs(centre - kept / 2) <= 2, f"{label}: {centre:.0f} against {kept / 2:.0f}")
    tally.rows.append((label, f"{width}x{height}", ours / side, theirs / side))
    return info, ours


def stock_part(binary, output):
    tally = Tally()
    crops = Tally()
    with BackdropServer(binary, flickr=False, log=os.path.join(output, "backdrop-legibility.log")) as server:
        files = {f"stock-{name[:3]}": name for name in os.listdir(STOCK) if name.endswith(".jpg") and name[:3].isdigit()}
        for width, height in SIZES:
            photos = stock_photos(server, width, height)
            check(f"every stock photo is found at {width}x{height}", set(photos) == set(files), f"{len(photos)} of {len(files)}")
            for photo in sorted(photos):
                # A place's stock photo follows the window: if it turns mid-photo, find the photo's place again.
                for attempt in range(3):
                    try:
                        query = photos[photo][0]
                        for style in STYLES:
                            info, sharp, blurred = served(server, f"{query}&width={width}&height={height}&style={style}")
                            if info["photoId"] != photo:
                                raise Turned()
                            measure(tally, info, sharp, blurred, f"{photo} {width}x{height} {style}")
                        compare_crop(crops, server, query, os.path.join(STOCK, files[photo]), (width, height), photo, photo=photo)
                        break
                    except Turned:
                        photos = stock_photos(server, width, height)
    tally.report(f"{tally.measured} answers of {len(files)} stock photos")
    crops.report(f"{len(crops.rows)} crops of the stock photos")
    print("  the sharp layer's bottom band (where the credit sits), 390x844, light style: contrast before and after the scrim")
    for label, text, before, scrim, after in tally.rows:
        if "390x844 light" in label:
            print(f"    {label.split()[0]:10} {text:5} {before:5.2f}:1  scrim {scrim:.2f}  {after:5.2f}:1")
    print("  attention crops: where the crop begins, as a share of the side (Backdrop, libvips)")
    for label, size, ours, theirs in crops.rows:
        print(f"    {label:10} {size:8} {ours:.3f} {theirs:.3f}")


def synthetic(path, width, height, block, seed):
    """Seeded grey noise with a saturated, skin-toned block centred at `block` (fractions)."""
    generator = numpy.random.default_rng(seed)
    image = generator.integers(90, 150, size=(height, width, 1)).repeat(3, axis=2).astype(numpy.uint8)
    side = min(width, height) // 6
    x, y = int(block[0] * width), int(block[1] * height)
    image[max(0, y - side // 2):y + side // 2, max(0, x - side // 2):x + side // 2] = (224, 150, 110)
    Image.fromarray(image).save(path, quality=92)


def synthetic_part(binary, output):
    print(f"  synthetic photos from seed {SEED}")
    crops = Tally()
    cases = [((1600, 1000), (0.15, 0.5), (390, 844)), ((1600, 1000), (0.5, 0.5), (390, 844)), ((1600, 1000), (0.8, 0.4), (390, 844)),
             ((1000, 1600), (0.5, 0.2), (1024, 768)), ((1000, 1600), (0.4, 0.85), (1024, 768))]
    with tempfile.TemporaryDirectory() as work:
        for n, (shape, block, size) in enumerate(cases):
            path = os.path.join(work, f"synthetic-{n}.jpg")
            synthetic(path, *shape, block, SEED + n)
            with BackdropServer(binary, photos=[path], log=os.path.join(output, f"backdrop-legibility-{n}.log")) as server:
                info, offset = compare_crop(crops, server, "cell=u09tv", path, size, f"block at {block}")
                crops.expect("the synthetic photo is served from the stand-in Flickr", info["source"] == "flickr", f"{info['source']}")
                scale = max(size[0] / shape[0], size[1] / shape[1])
                axis = 1 if shape[0] / shape[1] > size[0] / size[1] else 0
                served_side = size[0] if axis == 1 else size[1]
                centre = ((block[0] * shape[0] if axis == 1 else block[1] * shape[1]) - offset) * scale / served_side
                half = min(shape) // 6 / 2 * scale / served_side
                focus = info["focus"]["x" if axis == 1 else "y"]
                crops.expect("the JSON's focus falls on the salient block", abs(focus - centre) <= half + 1 / 32,
                             f"block at {block}: focus {focus:.3f}, block {centre:.3f} ± {half:.3f}")
    crops.report(f"{len(cases)} synthetic photos")
    for label, size, ours, theirs in crops.rows:
        print(f"    {label:18} {size:8} {ours:.3f} {theirs:.3f}")


def photos_part(binary, output, paths):
    tally = Tally()
    crops = Tally()
    for n, path in enumerate(paths):
        with BackdropServer(binary, photos=[path], log=os.path.join(output, f"backdrop-legibility-photo-{n}.log")) as server:
            for width, height in SIZES:
                for style in STYLES:
                    info, sharp, blurred = served(server, f"cell=u09tv&width={width}&height={height}&style={style}")
                    tally.expect("the photo given is served (it passes the quality gate)", info["source"] == "flickr",
                                 f"{os.path.basename(path)}: {info['source']}")
                    measure(tally, info, sharp, blurred, f"{os.path.basename(path)} {width}x{height} {style}")
                compare_crop(crops, server, "cell=u09tv", path, (width, height), os.path.basename(path))
    tally.report(f"{tally.measured} answers of {len(paths)} photos")
    crops.report(f"{len(crops.rows)} crops of those photos")
    for label, size, ours, theirs in crops.rows:
        print(f"    {label:24} {size:8} {ours:.3f} {theirs:.3f}")


def main():
    binary, output, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(output, exist_ok=True)
    print("legibility: the stock photos")
    run_part(stock_part, binary, output)
    print("legibility: the attention crop on synthetic photos")
    run_part(synthetic_part, binary, output)
    if extra:
        print(f"legibility: {len(extra)} photos given")
        run_part(photos_part, binary, output, extra)
    finish("legibility")


if __name__ == "__main__":
    main()
