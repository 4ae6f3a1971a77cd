"""<backdrop-background> on a plain page of another origin (another port on 127.0.0.1) that loads only /backdrop.js
from Backdrop, in headless Chromium.

Checks: with the sharp image held back (Chromium blocks its URL), the inline preview fills the box, with the credit;
then the whole load across origins (the JSON read through CORS, no console errors, the backdrop-load event), the
blurred layer's opacity following the document's scroll (screenshots at 0, 40 and 80), the credit visible and linking
the photo page; and a Backdrop that cannot be reached leaves the page usable, in a plain colour, with a backdrop-error
event and nothing thrown into the page; so does a scroll-target that is not a selector, and the credit isolates its
names.
"""
import gzip
import os
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from backdrop_server import free_port
from checks import check, run_part
from chromium import SHADOW, browser, console_errors, opacity_after_scroll, wait_for

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Another site</title><link rel="icon" href="data:,">
<style>body {{ margin: 0; font: 18px/1.5 system-ui, sans-serif; color: #fff; }} main {{ padding: 24px; }}
.tall {{ height: 2400px; }} h1 {{ text-shadow: 0 1px 3px rgba(0, 0, 0, .6); }}</style>
<script>
window.seen = {{ loads: [], errors: [], thrown: [] }};
addEventListener("error", (e) => seen.thrown.push(String(e.message)));
addEventListener("unhandledrejection", (e) => seen.thrown.push(String(e.reason)));
</script></head>
<body>
<backdrop-background id="backdrop" lat="48.8566" lon="2.3522" {extra} style="position: fixed; inset: 0; z-index: -1"></backdrop-background>
<script>
const element = document.getElementById("backdrop");
element.addEventListener("backdrop-load", (e) => seen.loads.push(e.detail.photoId));
element.addEventListener("backdrop-error", (e) => seen.errors.push(e.detail.message));
</script>
<main><h1>Another site</h1><p>This page knows nothing of Backdrop but one script tag.</p>
<button id="button" onclick="this.textContent = 'clicked'">Still works</button><div class="tall"></div></main>
<script type="module" src="{backdrop}/backdrop.js"></script>
</body></html>
"""


class Site:
    """The other origin: `/` uses the component's defaults, `/dead` points its src at a port nobody listens on,
    `/slash` at Backdrop written with a trailing slash; `more` adds pages by path."""

    def __init__(self, backdrop, more=None):
        pages = {**(more or {}), "/": PAGE.format(extra="", backdrop=backdrop),
                 "/dead": PAGE.format(extra=f'src="http://127.0.0.1:{free_port()}"', backdrop=backdrop),
                 "/slash": PAGE.format(extra=f'src="{backdrop}/"', backdrop=backdrop),
                 "/bad-target": PAGE.format(extra='scroll-target="[["', backdrop=backdrop)}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = pages.get(self.path, "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def state(driver):
    return driver.execute_script("return document.getElementById('backdrop').dataset.state")


def preview_first(driver, site, server, output):
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [f"{server.base}/background?*"]})
    driver.get(site.base + "/")
    failed = wait_for(driver, "return seen.errors.length > 0", 60)
    shown = driver.execute_script(SHADOW + " const p = S.querySelector('.pair.shown'); return p && [p.className,"
                                  " [...p.querySelectorAll('img')].map(i => [i.className, getComputedStyle(i).opacity, i.src.slice(0, 23)])]")
    check("with the sharp image held back, the preview fills the box at once",
          failed and state(driver) == "preview" and shown and "waiting" in shown[0] and shown[1] == [["blurred", "1", "data:image/webp;base64,"]],
          f"({state(driver)!r}, {shown})")
    credit = driver.execute_script(SHADOW + " return S.querySelector('.credit').textContent")
    check("and the credit with it", " by Bench Photographer, " in credit, f"({credit!r})")
    driver.save_screenshot(os.path.join(output, "component-preview.png"))
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    driver.get_log("browser")  # the blocked request's console line belongs to this part


def across_origins(driver, site, server, output):
    driver.get(site.base + "/")
    ready = wait_for(driver, "return document.getElementById('backdrop').dataset.state === 'ready'")
    loads = driver.execute_script("return seen.loads")
    check("a page on another origin gets the photo through one script tag (the JSON read through CORS)",
          ready and len(loads) == 1 and loads[0].startswith("flickr-"), f"({state(driver)!r}, {loads})")
    requests = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    check("it read /background.json and the sharp image from Backdrop's origin, the module's own",
          any(r.startswith(server.base + "/background.json?") for r in requests) and any(r.startswith(server.base + "/background?cell=") for r in requests),
          str(requests))
    layers = driver.execute_script(SHADOW + " return [...S.querySelectorAll('.pair.shown > *')].map(i => i.className)")
    check("both layers are shown", layers == ["sharp", "blurred"], str(layers))
    check("transparent blur at the top", opacity_after_scroll(driver, 0, "window") == 0)
    driver.save_screenshot(os.path.join(output, "component-scroll-0.png"))
    half = opacity_after_scroll(driver, 40, "window")
    check("half blurred after 40 px of the document's scroll", abs(half - 0.5) < 0.05, f"({half})")
    driver.save_screenshot(os.path.join(output, "component-scroll-40.png"))
    check("fully blurred after 80 px", opacity_after_scroll(driver, 80, "window") == 1)
    driver.save_screenshot(os.path.join(output, "component-scroll-80.png"))
    box = driver.execute_script(SHADOW + " const r = S.querySelector('.credit').getBoundingClientRect(); return [r.top, r.bottom, innerHeight]")
    link = driver.execute_script(SHADOW + " return S.querySelector('.credit a').href")
    check("the credit is visible at the foot of the box", box[1] == box[2] and 0 < box[1] - box[0] < 100, str(box))
    check("and links the photo page", link.startswith("https://www.flickr.com/photos/12345678@N00/"), link)
    errors = console_errors(driver)
    thrown = driver.execute_script("return seen.thrown")
    check("no console errors and nothing thrown", not errors and not thrown, f"{errors} {thrown}")
    module = urllib.request.urlopen(server.base + "/backdrop.js").read()
    print(f"  (backdrop.js: {len(module):,} bytes, {len(gzip.compress(module, 9)):,} gzipped)")


def trailing_slash(driver, site, server, output):
    driver.get(site.base + "/slash")
    ready = wait_for(driver, "return document.getElementById('backdrop').dataset.state === 'ready'")
    requests = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    check("src written with a trailing slash reaches the same routes (no //background.json)",
          ready and any(r.startswith(server.base + "/background.json?") for r in requests) and not any("//background" in r for r in requests),
          f"({state(driver)!r}, {requests})")


def bad_scroll_target(driver, site, server, output):
    driver.get(site.base + "/bad-target")
    ready = wait_for(driver, "return document.getElementById('backdrop').dataset.state === 'ready'")
    seen = driver.execute_script("return seen")
    check("scroll-target=\"[[\" throws nothing into the page and fires backdrop-error naming it",
          ready and not seen["thrown"] and any("scroll-target" in e for e in seen["errors"]), str(seen))
    check("the blur follows the document's scroll instead", opacity_after_scroll(driver, 80, "window") == 1)
    isolated = driver.execute_script(SHADOW + " return [...S.querySelectorAll('.credit bdi')].map(b => b.textContent)")
    check("the credit's title and owner are isolated (<bdi>), so that direction controls in them cannot reorder it",
          len(isolated) >= 2 and "Bench Photographer" in isolated, str(isolated))


def unreachable(driver, site, server, output):
    driver.get(site.base + "/dead")
    failed = wait_for(driver, "return seen.errors.length > 0", 60)
    background = driver.execute_script("return getComputedStyle(document.getElementById('backdrop')).backgroundColor")
    check("a Backdrop that cannot be reached fires backdrop-error and leaves a plain colour",
          failed and state(driver) == "error" and background == "rgb(29, 31, 34)", f"({state(driver)!r}, {background})")
    driver.execute_script("document.getElementById('button').click(); window.scrollTo(0, 200)")
    usable = driver.execute_script("return [document.getElementById('button').textContent, window.scrollY, seen.thrown]")
    check("the page stays usable and nothing is thrown into it", usable == ["clicked", 200, []], str(usable))
    driver.save_screenshot(os.path.join(output, "component-unreachable.png"))


def run_parts(parts, site, server, output):
    """Each part in a browser of its own, against `site`, which is closed at the end."""
    try:
        for part in parts:
            driver = browser()
            try:
                run_part(part, driver, site, server, output)
            finally:
                driver.quit()
    finally:
        site.close()


def other_origin(server, output):
    run_parts((preview_first, across_origins, trailing_slash, bad_scroll_target, unreachable), Site(server.base), server, output)
