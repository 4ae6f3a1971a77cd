#!/usr/bin/env python3
"""The demo page and <backdrop-background> on a page of another origin, in real headless Chromium (Debian's chromium +
chromium-driver, through selenium), against a Backdrop pointed at the stand-in Flickr on 127.0.0.1.

usage: test_demo.py PATH/TO/backdrop OUTPUT_DIR
The demo page (a user of the component): both images load and show one photo, the top image's opacity is scrollTop / 80
(0 at the top, about 0.5 at 40 px, 1 from 80 px), the credit links to the Flickr photo page with Flickr's notice, a
visitor whose location is denied gets a stock photo and is told so, and the console has no errors. The other origin:
see other_origin.py. Saves screenshots at scroll 0, 40 and 80 of both pages into OUTPUT_DIR.
"""
import io
import json
import os
import re

from PIL import Image, ImageStat
import urllib.request
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from backdrop_server import BackdropServer  # noqa: E402
from checks import check, finish, run_part  # noqa: E402
from chromium import SHADOW, after_frames, browser, console_errors, opacity_after_scroll, network_log, wait_for  # noqa: E402
from other_origin import other_origin  # noqa: E402
from component_promises import component_promises  # noqa: E402



def demo_page(driver, server, output):
    """The demo page, a user of the component: both layers of one photo, the sharp one the JSON's image-set() as a CSS
    background (the density and format for this screen, the image the component waited for, fetched once), the blur
    following #content's scroll, the credit."""
    driver.get(server.base + "/?lat=48.8566&lon=2.3522")
    ratio = driver.execute_script("return devicePixelRatio")
    state = wait_for(driver, "return document.getElementById('backdrop').dataset.state === 'ready' && 'ready'")
    check(f"at {ratio:g}x the page loads both layers", state == "ready", f"(state={state!r})")
    wait_for(driver, SHADOW + " return S.querySelector('.pair.shown') && getComputedStyle(S.querySelector('.pair.shown')).opacity === '1'", 10)
    layers = driver.execute_script(SHADOW + " return [...S.querySelectorAll('.pair.shown > *')].map(e => [e.className,"
                                   " e.dataset.image || e.src.slice(0, 30), getComputedStyle(e).backgroundImage.slice(0, 20), e.naturalWidth || 0, e.naturalHeight || 0])")
    photo = driver.execute_script("return document.getElementById('backdrop').dataset.photo") or ""
    check("sharp and blurred are one photo, from Flickr", [p[0] for p in layers] == ["sharp", "blurred"] and photo.startswith("flickr-")
          and driver.execute_script(SHADOW + " return S.querySelector('.pair.shown').dataset.photo") == photo, f"{layers} {photo}")
    sharp_url = layers[0][1] if layers and layers[0][0] == "sharp" else ""
    check("the sharp layer is the JSON's image-set() as its CSS background", layers and layers[0][2].startswith("image-set(url("), str(layers))
    viewport = driver.execute_script("return [Math.round(innerWidth * devicePixelRatio), Math.round(innerHeight * devicePixelRatio)]")
    css = driver.execute_script("return [innerWidth, innerHeight]")
    density = "" if ratio == 1 else f"&dpr={ratio:g}"
    check(f"the image it takes is sized for the viewport: CSS pixels at {ratio:g}x", f"&width={css[0]}&height={css[1]}{density}&" in sharp_url,
          f"{sharp_url} vs {css} at {ratio:g}x")
    with Image.open(io.BytesIO(urllib.request.urlopen(sharp_url).read())) as image:
        check("which is the viewport's size in device pixels", list(image.size) == viewport, f"{image.size} vs {viewport}")
    check("the blurred layer is the JSON's inline WebP preview, a small image stretched over the sharp one",
          all(p[3] < 100 and p[4] < 100 and p[1].startswith("data:image/webp;base64,") for p in layers if p[0] == "blurred") and driver.execute_script(
              SHADOW + " const [a, b] = ['.sharp', 'img.blurred'].map(c => S.querySelector(`.pair.shown ${c}`).getBoundingClientRect());"
              " return a.width === b.width && a.height === b.height && a.width > 100"), str(layers))
    # Frames drawn since the layer was laid: the image-set() has been resolved and whatever it takes asked for.
    after_frames(driver)
    sent, received = network_log(driver)
    asked = {url for url in sent if "/background?" in url}
    loads = [r for r in received if "/background?" in r[0]]
    requests = driver.execute_script("return performance.getEntriesByType('resource').map(e => [e.name, e.encodedBodySize])")
    # One entry per URL: the component's check and decode read the sharp image again from the cache.
    backgrounds = list({r[0]: r for r in reversed(requests) if "/background" in r[0]}.values())[::-1]
    sharp = [r for r in backgrounds if "/background?" in r[0]]
    check("Chromium fetches one sharp image over the network, the image-set()'s choice, which the component checked and decoded"
          " (the rest from its cache)", asked == {sharp_url} and [r for r in loads if not r[1]] == [[sharp_url, False]], f"{asked} {loads}")
    check("as AVIF through the JSON's cell URL, under 60 kB", len(sharp) == 1 and sharp[0][0] == sharp_url and "cell=u09tv" in sharp[0][0]
          and "format=avif" in sharp[0][0] and "blur=0" in sharp[0][0] and "lat=" not in sharp[0][0] and 0 < sharp[0][1] < 60_000, str(sharp))
    check("the page asks for the JSON once and for no blur=1 image",
          sum("/background.json" in r[0] for r in backgrounds) == 1 and not any("blur=1" in r[0] for r in backgrounds), str(backgrounds))
    if ratio != 1:
        driver.save_screenshot(os.path.join(output, f"demo-scroll-0-{ratio:g}x.png"))
        errors = console_errors(driver)
        check(f"no console errors at {ratio:g}x", not errors, str(errors))
        return
    size = f"width={viewport[0]}&height={viewport[1]}"
    before = sum(len(urllib.request.urlopen(f"{server.base}/background?cell=u09tv&blur={b}&{size}&format=png").read()) for b in (0, 1))
    after = sum(r[1] for r in backgrounds)
    print(f"  (page's backgrounds: {after:,} bytes for the JSON and the sharp AVIF; both layers as PNGs: {before:,} bytes)")
    check("the top image is transparent at the top", opacity_after_scroll(driver, 0) == 0)
    driver.save_screenshot(os.path.join(output, "demo-scroll-0.png"))
    half = opacity_after_scroll(driver, 40)
    check("about half opaque after 40 px", abs(half - 0.5) < 0.05, f"({half})")
    driver.save_screenshot(os.path.join(output, "demo-scroll-40.png"))
    check("opaque after 80 px", opacity_after_scroll(driver, 80) == 1)
    driver.save_screenshot(os.path.join(output, "demo-scroll-80.png"))
    check("still opaque further down", opacity_after_scroll(driver, 300) == 1)
    legibility_follows_scroll(driver, server, viewport)
    credit = driver.execute_script(SHADOW + " return S.querySelector('.credit').textContent")
    page = driver.execute_script(SHADOW + " return S.querySelector('.credit a').href")
    check("the credit names the owner", " by Bench Photographer, " in credit, f"({credit!r})")
    check("the credit links to the Flickr photo page",
          page.startswith("https://www.flickr.com/photos/12345678@N00/") and page.rstrip("/").endswith(photo.removeprefix("flickr-")), page)
    check("Flickr's notice is shown", "not endorsed or certified by SmugMug" in credit, f"({credit!r})")
    place = driver.execute_script("return document.getElementById('place').textContent")
    check("the page says where the photo is from", place == "Near 48.8566, 2.3522 (from the page address)", f"({place!r})")
    errors = console_errors(driver)
    check("no console errors", not errors, str(errors))


def expected_text(legibility, region, blur):
    """What the component should advise at `blur`: the nearer layer's text colour, its scrim between the two layers'."""
    sharp, blurred = legibility["sharp"][region], legibility["blurred"][region]
    text = (sharp if blur < 0.5 else blurred)["text"]
    opacity = sharp[text]["scrim"] + (blurred[text]["scrim"] - sharp[text]["scrim"]) * blur
    return ("#fff" if text == "light" else "#000"), opacity, text


def legibility_follows_scroll(driver, server, viewport):
    """--backdrop-text and --backdrop-scrim (and -top, -bottom) on the scroll-target and the element, as the JSON's
    legibility says at scroll 0 (sharp) and past the fade (blurred); the credit drawn in the bottom pair."""
    size = f"width={viewport[0]}&height={viewport[1]}"
    info = json.loads(urllib.request.urlopen(f"{server.base}/background.json?lat=48.8566&lon=2.3522&{size}").read())
    legibility = info["legibility"]
    read = ("const c = getComputedStyle(document.getElementById('content')), h = getComputedStyle(document.getElementById('backdrop'));"
            " return ['', '-top', '-bottom'].map(s => [c.getPropertyValue('--backdrop-text' + s).trim(),"
            " c.getPropertyValue('--backdrop-scrim' + s).trim(), h.getPropertyValue('--backdrop-text' + s).trim()])")
    for y, blur in ((0, 0.0), (80, 1.0)):
        opacity_after_scroll(driver, y)
        values = driver.execute_script(read)
        wrong = []
        for (region, (text, scrim, host)) in zip(("whole", "top", "bottom"), values):
            colour, opacity, ink = expected_text(legibility, region, blur)
            rgb = "0, 0, 0" if ink == "light" else "255, 255, 255"
            if text != colour or host != colour or scrim != f"rgba({rgb}, {opacity:.3f})":
                wrong.append((region, text, scrim, host, colour, round(opacity, 3)))
        check(f"at scroll {y}, the CSS properties are the {'sharp' if blur == 0 else 'blurred'} layer's advice", not wrong and values,
              f"{wrong or values}")
        credit = driver.execute_script(SHADOW + " const s = getComputedStyle(S.querySelector('.credit')); return [s.color, s.backgroundColor]")
        colour, opacity, ink = expected_text(legibility, "bottom", blur)
        channels = [float(v) for v in credit[1][credit[1].index("(") + 1:-1].split(",")] if "(" in credit[1] else []
        scrim = channels[:3] == ([0, 0, 0] if ink == "light" else [255, 255, 255]) or (len(channels) == 4 and channels[3] == 0)
        alpha = channels[3] if len(channels) == 4 else 1.0
        check(f"and the credit at scroll {y} is drawn in the bottom band's colour over its scrim",
              credit[0] == ("rgb(255, 255, 255)" if ink == "light" else "rgb(0, 0, 0)") and scrim and abs(alpha - opacity) < 0.01,
              f"{credit} against {colour} over {opacity:.3f}")
    focus = driver.execute_script(SHADOW + " return S.querySelector('.pair.shown .sharp').style.backgroundPosition")
    position = [float(part.rstrip("%")) for part in focus.split()] if focus else []
    check("the sharp image keeps the JSON's focus in view (background-position)",
          len(position) == 2 and all(abs(p - info["focus"][axis] * 100) < 0.06 for p, axis in zip(position, "xy")), f"({focus!r} vs {info['focus']})")


def stock_licences():
    """The licence names of StockPhotos/CREDITS.md's table (its fourth column), as the credit line shows them."""
    with open(os.path.join(HERE, "..", "..", "StockPhotos", "CREDITS.md"), encoding="utf-8") as f:
        rows = [line.split("|") for line in f if re.match(r"\|\s*\d{3}\s*\|", line)]
    return {row[4].strip() for row in rows}


def denied_location(driver, server, output):
    driver.get(server.base + "/")
    state = wait_for(driver, "return document.getElementById('backdrop').dataset.state === 'ready' && 'ready'")
    source = driver.execute_script("return document.getElementById('backdrop').dataset.source")
    place = driver.execute_script("return document.getElementById('place').textContent")
    credit = driver.execute_script(SHADOW + " return S.querySelector('.credit').textContent")
    check("denied location shows a stock photo", state == "ready" and source == "stock", f"({state!r}, {source!r})")
    check("and says so", "Location unavailable" in place, f"({place!r})")
    # Which photo shows depends on the sky at the hour the test runs: any licence the stock photos carry will do.
    check("with the stock photo's own credit", "stock photo" in credit and any(name in credit for name in stock_licences()),
          f"({credit!r}; licences {sorted(stock_licences())})")
    driver.save_screenshot(os.path.join(output, "demo-no-location.png"))
    errors = console_errors(driver)
    check("no console errors without location", not errors, str(errors))


def commons_credit(driver, server, output):
    """With no Flickr key, a Wikimedia Commons photo, credited as a Flickr one is: title, plain-text author (the stand-in's
    `Artist` is a link in HTML), licence, "modified", and no Flickr notice."""
    driver.get(server.base + "/?lat=48.8566&lon=2.3522")
    state = wait_for(driver, "return document.getElementById('backdrop').dataset.state === 'ready' && 'ready'")
    source = driver.execute_script("return document.getElementById('backdrop').dataset.source")
    credit = driver.execute_script(SHADOW + " return S.querySelector('.credit').textContent")
    links = driver.execute_script(SHADOW + " return [...S.querySelectorAll('.credit a')].map(a => a.href)")
    check("the page shows a Commons photo", state == "ready" and source == "commons", f"({state!r}, {source!r})")
    check("its credit names the author in plain text, the licence, and that it was modified",
          "Stand-in" in credit and " by Photographer " in credit and "CC BY-SA 4.0" in credit and credit.rstrip().endswith("· modified")
          and "<" not in credit and "SmugMug" not in credit and "stock photo" not in credit, f"({credit!r})")
    check("and links the file page and the licence", any(l.startswith("https://commons.wikimedia.org/wiki/File:") for l in links)
          and "https://creativecommons.org/licenses/by-sa/4.0/" in links, str(links))
    driver.save_screenshot(os.path.join(output, "demo-commons.png"))
    errors = console_errors(driver)
    check("no console errors with Commons", not errors, str(errors))


def image_set_background(driver, server, output):
    """`/background.json`'s `imageSet` as a plain CSS background (no component): Chromium takes the AVIF at its own
    density, which decodes, and paints the photo."""
    ratio = driver.execute_script("return devicePixelRatio")
    driver.get(server.base + "/health")
    info = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/background.json?lat=48.8566&lon=2.3522&width=390&height=844', {headers: {Accept: 'application/json'}})
          .then((r) => r.json()).then(done, (e) => done(String(e)));""")
    css = info["images"]["imageSet"]["sharp"] if isinstance(info, dict) else str(info)
    check("the JSON gives an image-set() of AVIF, WebP and JPEG", css.startswith('image-set(url("/background?') and 'type("image/avif") 2x' in css
          and 'type("image/webp") 1x' in css and 'type("image/jpeg") 1.5x' in css, css[:160])
    driver.execute_script("""
        document.body.innerHTML = '';
        const box = document.createElement('div');
        box.id = 'hero';
        box.style.cssText = 'position:fixed;inset:0;background:#123 center / cover no-repeat';
        box.style.backgroundImage = arguments[0];
        document.body.append(box);""", css)
    loaded = wait_for(driver, """
        const e = performance.getEntriesByType('resource').find((e) => e.name.includes('/background?'));
        return e && e.responseEnd > 0 && [e.name, e.encodedBodySize, e.responseStatus];""", 60)
    name, size, status = loaded if loaded else ("", 0, 0)
    density = "" if ratio == 1 else f"&dpr={ratio:g}"
    check(f"Chromium at {ratio:g}x loads the AVIF at its density", "format=avif" in name and "blur=0&width=390&height=844" + density + "&" in name
          and size > 1000 and status == 200, f"({name}, {size}, {status})")
    painted = driver.execute_script("return getComputedStyle(document.getElementById('hero')).backgroundImage")
    shot = os.path.join(output, f"image-set-{ratio:g}x.png")
    driver.save_screenshot(shot)
    with Image.open(shot) as image:
        spread = ImageStat.Stat(image.convert("L")).stddev[0]
    check("and paints the photo as the background", painted.startswith("image-set(") and spread > 10, f"({painted[:60]}, spread {spread:.1f})")
    # (The /health page the test starts from has no favicon: the browser's own request for one is not the test's.)
    errors = [e for e in console_errors(driver) if "favicon.ico" not in e["message"]]
    check("no console errors with image-set()", not errors, str(errors))


def main():
    binary, output = sys.argv[1], sys.argv[2]
    os.makedirs(output, exist_ok=True)
    print("browser: the demo page in headless Chromium")
    with BackdropServer(binary, log=os.path.join(output, "backdrop-browser.log")) as server:
        for part, options in ((demo_page, {}), (demo_page, {"scale": 2}), (denied_location, {"deny_location": True}), (image_set_background, {}),
                              (image_set_background, {"scale": 2})):
            driver = browser(**options)
            try:
                run_part(part, driver, server, output)
            finally:
                driver.quit()
        print("browser: <backdrop-background> on a page of another origin")
        other_origin(server, output)
        print("browser: the component's promises over time, on a page whose clock the test moves")
        component_promises(server, output)
    with BackdropServer(binary, flickr=False, commons=True, log=os.path.join(output, "backdrop-browser-commons.log")) as server:
        driver = browser()
        try:
            run_part(commons_credit, driver, server, output)
        finally:
            driver.quit()
    finish("browser")


if __name__ == "__main__":
    main()
