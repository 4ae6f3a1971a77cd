"""Headless Chromium through selenium for the browser tests, and what they ask of a page."""
import json

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait


def browser(deny_location=False, scale=1):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=390,844",
                     f"--force-device-scale-factor={scale}", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    if deny_location:
        options.add_experimental_option("prefs", {"profile.default_content_setting_values.geolocation": 2})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait_for(driver, script, timeout=60):
    """Polls `script` (JavaScript returning a truthy value) until it holds; returns its value or None."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: d.execute_script(script))
    except TimeoutException:
        return None


def network_log(driver):
    """What the page has asked for and received since the last call: the URLs as sent (at once, before any answer),
    and the responses as [url, from_cache] (from the disk or memory cache)."""
    sent, received = [], []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            sent.append(message["params"]["request"]["url"])
        elif message["method"] == "Network.responseReceived":
            response = message["params"]["response"]
            received.append([response["url"], bool(response.get("fromDiskCache") or response.get("fromMemoryCache"))])
    return sent, received


def after_frames(driver, frames=2):
    """Returns once the page has drawn `frames` frames: style resolved, and what it fetches asked for."""
    driver.execute_async_script("const done = arguments[arguments.length - 1]; let n = arguments[0];"
                                " const step = () => (n-- > 0 ? requestAnimationFrame(step) : done()); step();", frames)


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


# The component's shadow root, in the page's scripts.
SHADOW = "const S = document.getElementById('backdrop').shadowRoot;"


def opacity_after_scroll(driver, y, scroller="document.getElementById('content')", shadow=SHADOW):
    """Scrolls `scroller` (a JavaScript expression; `window` for the document) to `y` and returns the blurred layer's
    opacity once it reflects that position."""
    position = "window.scrollY" if scroller == "window" else f"{scroller}.scrollTop"
    driver.execute_script(f"{scroller}.scrollTo(0, {y});")
    wait_for(driver, f"return Math.abs({position} - {y}) < 1", 10)
    expected = min(1, max(0, driver.execute_script(f"return {position}") / 80))
    opacity = "parseFloat(getComputedStyle(S.querySelector('.pair.shown img.blurred')).opacity)"
    wait_for(driver, f"{shadow} return Math.abs({opacity} - {expected}) < 0.01", 10)
    return float(driver.execute_script(f"{shadow} return {opacity}"))
