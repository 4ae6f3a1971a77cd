#!/usr/bin/env python3
"""The demo page in real headless Chromium (Debian's chromium + chromium-driver, through selenium), against a Backdrop
pointed at the stand-in Flickr on 127.0.0.1.

usage: test_demo.py PATH/TO/backdrop OUTPUT_DIR
Checks that both images load and show one photo, that the top image's opacity is scrollY / 80 (0 at the top, about
0.5 at 40 px, 1 from 80 px), that the credit links to the Flickr photo page with Flickr's notice, that a visitor whose
location is denied gets a stock photo and is told so, and that the console has no errors. Saves screenshots at
scroll 0 and 80 into OUTPUT_DIR.
"""
import json
import os
import urllib.request
import sys

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from backdrop_server import BackdropServer  # noqa: E402

RESULTS = {"passed": 0, "failed": 0}


def check(name, condition, detail=""):
    if condition:
        RESULTS["passed"] += 1
        print(f"  ok   {name}")
    else:
        RESULTS["failed"] += 1
        print(f"  FAIL {name} {detail}")


def browser(deny_location=False):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=390,844",
                     "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if deny_location:
        options.add_experimental_option("prefs", {"profile.default_content_setting_values.geolocation": 2})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait_for(driver, script, timeout=60):
    """Polls `script` (JavaScript returning a truthy value) until it holds; returns its value or None."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: d.execute_script(script))
    except TimeoutException:
        return None


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def opacity_after_scroll(driver, y):
    driver.execute_script(f"window.scrollTo(0, {y});")
    wait_for(driver, f"return Math.abs(window.scrollY - {y}) < 1", 10)
    # The scroll handler runs on the scroll event; wait until the style reflects this position.
    expected = min(1, max(0, driver.execute_script("return window.scrollY") / 80))
    wait_for(driver, f"return Math.abs(parseFloat(getComputedStyle(document.querySelector('.pair.shown img.blurred')).opacity) - {expected}) < 0.01", 10)
    return float(driver.execute_script("return getComputedStyle(document.querySelector('.pair.shown img.blurred')).opacity"))


def main():
    binary, output = sys.argv[1], sys.argv[2]
    os.makedirs(output, exist_ok=True)
    print("browser: the demo page in headless Chromium")
    with BackdropServer(binary, log=os.path.join(output, "backdrop-browser.log")) as server:
        driver = browser()
        try:
            driver.get(server.base + "/?lat=48.8566&lon=2.3522")
            ready = wait_for(driver, "return document.body.dataset.ready")
            check("the page loads both images", ready == "1", f"(ready={ready!r})")
            wait_for(driver, "return document.querySelector('.pair.shown') && getComputedStyle(document.querySelector('.pair.shown')).opacity === '1'", 10)
            photos = driver.execute_script(
                "return [...document.querySelectorAll('.pair.shown img')].map(i => [i.className, i.dataset.photo, i.naturalWidth, i.naturalHeight])")
            check("sharp and blurred are the same photo", len(photos) == 2 and photos[0][1] == photos[1][1] and photos[0][1].startswith("flickr-"),
                  str(photos))
            viewport = driver.execute_script(
                "return [Math.round(innerWidth * devicePixelRatio), Math.round(innerHeight * devicePixelRatio)]")
            check("the sharp image is sized for the viewport", all([p[2], p[3]] == viewport for p in photos if p[0] == "sharp"), f"{photos} vs {viewport}")
            check("the blurred layer is a small image stretched over the sharp one",
                  all(p[2] < 100 and p[3] < 100 for p in photos if p[0] == "blurred") and driver.execute_script(
                      "const [a, b] = ['sharp', 'blurred'].map(c => document.querySelector(`.pair.shown img.${c}`).getBoundingClientRect());"
                      " return a.width === b.width && a.height === b.height && a.width > 100"),
                  str(photos))
            delivered = dict((d[0], d[1:]) for d in driver.execute_script(
                "return [...document.querySelectorAll('.pair.shown img')].map(i => [i.className, i.dataset.type, Number(i.dataset.bytes), i.dataset.source, i.src.slice(0, 30)])"))
            sharp, blurred = delivered.get("sharp", [None] * 4), delivered.get("blurred", [None] * 4)
            check("Chromium receives the sharp image as AVIF from the JSON's cell URL",
                  sharp[0] == "image/avif" and "cell=u09tv" in sharp[2] and "format=avif" in sharp[2] and "lat=" not in sharp[2], str(sharp))
            check("the sharp image is under 60 kB at the page's size", 0 < sharp[1] < 60_000, str(sharp))
            check("the blurred layer is the JSON's inline preview (WebP, at most 2 kB)",
                  blurred[2] == "inline" and blurred[3].startswith("data:image/webp;base64,") and 0 < blurred[1] <= 2048, str(blurred))
            requests = driver.execute_script("return performance.getEntriesByType('resource').map(e => [e.name, e.encodedBodySize])")
            backgrounds = [r for r in requests if "/background" in r[0]]
            check("the page asks for the JSON and the sharp image, and for no blur=1 image",
                  any("/background.json" in r[0] for r in backgrounds) and any("format=avif" in r[0] for r in backgrounds)
                  and not any("blur=1" in r[0] for r in backgrounds), str(backgrounds))
            after = sum(size for url, size in backgrounds)
            # The same page before "Light delivery": the JSON without the preview, and both layers as PNG.
            size = f"width={viewport[0]}&height={viewport[1]}"
            before = sum(len(urllib.request.urlopen(f"{server.base}/background?cell=u09tv&blur={b}&{size}&format=png").read()) for b in (0, 1))
            before += len(urllib.request.urlopen(f"{server.base}/background.json?lat=48.8566&lon=2.3522&{size}").read()) - len(
                json.dumps(json.loads(urllib.request.urlopen(f"{server.base}/background.json?lat=48.8566&lon=2.3522&{size}").read())["images"]["blurredPreview"]))
            print(f"  (page's backgrounds: {after:,} bytes for the JSON and the sharp AVIF, {', '.join(f'{k} {v[0]} {v[1]:,} bytes' for k, v in delivered.items())};"
                  f" before, as PNGs: {before:,} bytes, {before / max(after, 1):.0f}x as much)")
            check("the top image is transparent at the top", opacity_after_scroll(driver, 0) == 0)
            driver.save_screenshot(os.path.join(output, "demo-scroll-0.png"))
            half = opacity_after_scroll(driver, 40)
            check("about half opaque after 40 px", abs(half - 0.5) < 0.05, f"({half})")
            driver.save_screenshot(os.path.join(output, "demo-scroll-40.png"))
            check("opaque after 80 px", opacity_after_scroll(driver, 80) == 1)
            driver.save_screenshot(os.path.join(output, "demo-scroll-80.png"))
            check("still opaque further down", opacity_after_scroll(driver, 300) == 1)
            owner = driver.execute_script("return document.getElementById('owner').textContent")
            page = driver.execute_script("return document.querySelector('#credit-text a').href")
            notice = driver.execute_script("return document.getElementById('notice').textContent")
            check("the credit names the owner", owner == "Bench Photographer", f"({owner!r})")
            check("the credit links to the Flickr photo page",
                  page.startswith("https://www.flickr.com/photos/12345678@N00/") and page.rstrip("/").endswith(photos[0][1].removeprefix("flickr-")), page)
            check("Flickr's notice is shown", "not endorsed or certified by SmugMug" in notice, f"({notice!r})")
            errors = console_errors(driver)
            check("no console errors", not errors, str(errors))
        finally:
            driver.quit()

        driver = browser(deny_location=True)
        try:
            driver.get(server.base + "/")
            ready = wait_for(driver, "return document.body.dataset.ready")
            source = driver.execute_script("return document.body.dataset.source")
            place = driver.execute_script("return document.getElementById('place').textContent")
            credit = driver.execute_script("return document.getElementById('credit-text').textContent")
            check("denied location shows a stock photo", ready == "1" and source == "stock", f"({ready!r}, {source!r})")
            check("and says so", "Location unavailable" in place, f"({place!r})")
            check("with the stock photo's own credit", "stock photo" in credit and "CC" in credit, f"({credit!r})")
            driver.save_screenshot(os.path.join(output, "demo-no-location.png"))
            errors = console_errors(driver)
            check("no console errors without location", not errors, str(errors))
        finally:
            driver.quit()
    print(f"browser: {RESULTS['passed']} passed, {RESULTS['failed']} failed (screenshots in {output})")
    sys.exit(1 if RESULTS["failed"] else 0)


if __name__ == "__main__":
    main()
