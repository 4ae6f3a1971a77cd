"""The promises docs/api.md makes of <backdrop-background> that take time or a change of the page, in headless Chromium, on a
page of another origin whose clock the test moves: it records the page's timers and fetches, and runs a timer now as
if the clock had reached it.

Checks: a box resized by less than a fifth asks for nothing, one resized by more asks once, at its new size; at the
window's end the next photo dissolves over the last in one second, or replaces it at once under
prefers-reduced-motion; a JSON naming another photo than the sharp image's (the window turned between them) is asked
again; after an error the component tries again 30 s later, and recovers.
"""
import re

from checks import check
from chromium import SHADOW, wait_for
from other_origin import PAGE, Site, run_parts

CLOCK = """<script>
// The page's clock, moved by the test: every timer is recorded, and clock.advance(ms) runs now those of at least ms.
window.clock = { timers: [] };
{
  const set = window.setTimeout, clear = window.clearTimeout;
  // A timer that fires by itself leaves the list: only those still to come are pending.
  window.setTimeout = (fn, ms, ...rest) => {
    const id = set(() => { clock.timers = clock.timers.filter((t) => t.id !== id); fn(...rest); }, ms);
    clock.timers.push({ id, ms, fn: () => fn(...rest) });
    return id;
  };
  window.clearTimeout = (id) => { clock.timers = clock.timers.filter((t) => t.id !== id); clear(id); };
  clock.advance = (min) => {
    const due = clock.timers.filter((t) => t.ms >= min);
    clock.timers = clock.timers.filter((t) => t.ms < min);
    due.forEach((t) => { clear(t.id); t.fn(); });
    return due.map((t) => t.ms);
  };
  clock.pending = (min) => clock.timers.filter((t) => t.ms >= min).map((t) => t.ms);
}
window.fetches = [];
{ const f = window.fetch; window.fetch = (...a) => { fetches.push(String(a[0])); return f(...a); }; }
</script>
"""

JSON_FETCHES = "return fetches.filter((u) => u.includes('/background.json'))"
READY = "return document.getElementById('backdrop').dataset.state === 'ready'"
NEWEST = "S.querySelector('.layers .pair:last-child')"


def clock_page(backdrop, scripts=""):
    """The component's page with the test's clock, and `scripts` after it."""
    return PAGE.format(extra="", backdrop=backdrop).replace("<script>\nwindow.seen", CLOCK + scripts + "<script>\nwindow.seen", 1)


def resized(driver, site, server, output):
    driver.get(site.base + "/clock")
    check("the component loads on the clocked page", wait_for(driver, READY) and len(driver.execute_script(JSON_FETCHES)) == 1,
          str(driver.execute_script(JSON_FETCHES)))
    start = driver.execute_script("return innerWidth")
    outer = driver.get_window_size()

    def resize(inner):
        driver.set_window_size(outer["width"] + inner - start, outer["height"])
        return wait_for(driver, f"return innerWidth === {inner}", 10)

    small, large = round(start * 1.1), round(start * 1.5)
    resized_a_little = resize(small)
    # Two frames: the resize has been observed and any load it caused has begun.
    driver.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 200)))")
    check("a box resized by less than a fifth (a tenth wider) asks for nothing",
          resized_a_little and len(driver.execute_script(JSON_FETCHES)) == 1, str(driver.execute_script(JSON_FETCHES)))
    resized_a_lot = resize(large)
    loaded = wait_for(driver, "return seen.loads.length === 2", 60)
    asked = driver.execute_script(JSON_FETCHES)
    widths = [int(re.search(r"width=(\d+)", url).group(1)) for url in asked]
    check("a box resized by more than a fifth (half as wide again) asks once, at its new size",
          resized_a_lot and loaded and len(asked) == 2 and abs(widths[1] / widths[0] - large / start) < 0.02, f"{asked} ({start} -> {large} px)")


def dissolve(driver, site, server, output, reduced=False):
    if reduced:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    driver.get(site.base + "/clock")
    ready = wait_for(driver, READY)
    window_end = driver.execute_script("return clock.pending(2000)")
    check(f"the next load waits for the window's end{' (reduced motion)' if reduced else ''}: one timer of up to 15 min",
          ready and len(window_end) == 1 and 500 < window_end[0] <= 900_500, str(window_end))
    driver.execute_script("clock.advance(2000)")
    shown = wait_for(driver, f"{SHADOW} const p = {NEWEST}; return S.querySelectorAll('.layers .pair').length === 2"
                     f" && p.classList.contains('shown') && [getComputedStyle(p).transitionDuration, parseFloat(getComputedStyle(p).opacity)]", 60)
    if reduced:
        check("under prefers-reduced-motion the next photo replaces the last at once", shown and shown[0] == "0s" and shown[1] == 1, str(shown))
    else:
        check("at the window's end the next photo dissolves over the last in one second", shown and shown[0] == "1s" and shown[1] < 1, str(shown))
    gone = wait_for(driver, f"{SHADOW} return S.querySelectorAll('.layers .pair').length === 1 && getComputedStyle({NEWEST}).opacity === '1'", 10)
    check(f"and the last photo goes once it is covered{' (reduced motion)' if reduced else ''}", gone)


def reduced_motion(driver, site, server, output):
    dissolve(driver, site, server, output, reduced=True)


def photo_changed(driver, site, server, output):
    """The window turned between the JSON and the sharp image (the JSON names another photo than the image's
    X-Backdrop-Photo-Id): the component asks again, and shows the photo with its own credit."""
    driver.get(site.base + "/turned")
    ready = wait_for(driver, READY, 60)
    shown = driver.execute_script("return [document.getElementById('backdrop').dataset.photo, seen.loads]")
    check("a JSON naming another photo than the sharp image's: asked again, then the image's own photo and credit",
          ready and len(driver.execute_script(JSON_FETCHES)) == 2 and shown[0].startswith("flickr-") and shown[0] != "flickr-1"
          and shown[1] == [shown[0]], f"{driver.execute_script(JSON_FETCHES)} {shown}")


def retried(driver, site, server, output):
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [f"{server.base}/background.json*"]})
    driver.get(site.base + "/clock")
    failed = wait_for(driver, "return seen.errors.length > 0 && document.getElementById('backdrop').dataset.state === 'error'", 60)
    retry = driver.execute_script("return clock.pending(2000)")
    check("after an error the component tries again 30 s later", failed and retry == [30_000], str(retry))
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    driver.execute_script("clock.advance(30000)")
    recovered = wait_for(driver, READY, 60)
    check("and recovers when Backdrop answers again", recovered and driver.execute_script("return seen.loads.length") == 1,
          str(driver.execute_script("return seen")))
    driver.get_log("browser")  # the blocked requests' console lines belong to this part


# The clocked page whose first /background.json answer names a photo of another window (as if the window turned
# before the sharp image was asked for).
TURNED = """<script>
{ const f = window.fetch; let first = true;
  window.fetch = async (...a) => { const r = await f(...a); if (!first || !String(a[0]).includes('/background.json')) return r;
    first = false; const info = await r.json(); info.photoId = 'flickr-1'; return new Response(JSON.stringify(info)); }; }
</script>
"""


def component_promises(server, output):
    pages = {"/clock": clock_page(server.base), "/turned": clock_page(server.base, TURNED)}
    run_parts((resized, dissolve, reduced_motion, photo_changed, retried), Site(server.base, pages), server, output)
