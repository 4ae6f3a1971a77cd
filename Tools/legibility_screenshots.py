#!/usr/bin/env python3
"""The legibility screenshots in docs/api.md (docs/legibility/): the demo page in headless Chromium over a light and a dark stock photo, with
the text as it was (white, no scrim) and as <backdrop-background> now advises it (its colour over its scrim).

usage: .build-venv/bin/python Tools/legibility_screenshots.py PATH/TO/backdrop OUTPUT_DIR
Which stock photo a place gets follows the sun, so the tool looks through places on every continent for one whose
photo is light (black text advised over the whole) and one whose photo is dark (white text advised), at this hour.
"""
import io
import json
import os
import sys
import urllib.request

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "support"))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "browser"))
from backdrop_server import BackdropServer  # noqa: E402
from chromium import browser, wait_for  # noqa: E402

PLACES = [(lat, lon) for lat in (-35, -10, 10, 35, 50) for lon in range(-180, 180, 20)]
# The page as it was before the advice: white text, no scrim.
PLAIN = ("const s = document.createElement('style'); s.textContent = '#content { color: #fff !important; }"
         " .card, .hero > * { background: transparent !important; }'; document.head.append(s);")


def find(server, size):
    """A place whose photo is light and one whose photo is dark, with the JSON for each."""
    light = dark = None
    for lat, lon in PLACES:
        query = f"lat={lat}&lon={lon}&width={size[0]}&height={size[1]}"
        info = json.loads(urllib.request.urlopen(f"{server.base}/background.json?{query}", timeout=60).read())
        whole = info["legibility"]["sharp"]["whole"]
        if whole["text"] == "dark" and light is None:
            light = (lat, lon, info)
        if whole["text"] == "light" and dark is None:
            dark = (lat, lon, info)
        if light and dark:
            break
    return light, dark


def main():
    binary, output = sys.argv[1], sys.argv[2]
    os.makedirs(output, exist_ok=True)
    with BackdropServer(binary, flickr=False) as server:
        driver = browser()
        try:
            size = driver.execute_script("return [innerWidth, innerHeight]")
            for name, found in zip(("light", "busy"), find(server, size)):
                if not found:
                    print(f"no {name} photo found at this hour")
                    continue
                lat, lon, info = found
                for plain in (True, False):
                    driver.get(f"{server.base}/?lat={lat}&lon={lon}")
                    wait_for(driver, "return document.getElementById('backdrop').dataset.state === 'ready'")
                    if plain:
                        driver.execute_script(PLAIN)
                    shot = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
                    path = os.path.join(output, f"{name}-{'plain' if plain else 'advised'}.jpg")
                    shot.save(path, quality=82)
                    print(f"{path}: {info['photoId']} ({info['title']}), sharp whole: {info['legibility']['sharp']['whole']}")
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
