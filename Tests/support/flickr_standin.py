#!/usr/bin/env python3
"""A stand-in Flickr for benchmarks, on 127.0.0.1: flickr.photos.search JSON (Flickr's shapes) and JPEG photos; and a
stand-in Wikimedia Commons beside it: /w/api.php answers a geosearch (formatversion=2, three CC BY-SA files per point)
whose files are served under /wikipedia/ (thumbnails in the standard widths only; any other is a 400).

usage: flickr_standin.py PHOTO.jpg...   (prints "port N" once listening; stops on SIGTERM or stdin EOF)
Each searched point gets 5 results with ids derived from its coordinates, so every cell downloads its own photo, each with
the ranking's extras (date taken, tags, geo, views, original size) in the mixed forms real answers have;
photos are served from the given files in turn. GET /stats answers {"searches": N, "downloads": N, "points": {"LAT,LON": N},
"requests": N, "tracing_headers": [...]}: every request but /stats and /control, and any traceparent, tracestate or
baggage header one carried.
GET /control?hang=1 makes searches hang (until /control?hang=0, or 60 s), as a Flickr that stopped answering would.
GET /control?mode=failing|empty|rejected|normal makes searches answer Flickr's code 105 (service unavailable), no
results, or code 100 (invalid API key), as Flickr does, until mode=normal.

As far away as the real one (for Benchmarks/new_place.py), from the environment: STANDIN_RTT_MS, a round trip paid
before each answer (and once more for a connection's first request, its handshake); STANDIN_MBPS, megabits a second
each answer's body is sent at; STANDIN_COMMONS_FILES, files in each Commons answer (3); STANDIN_COMMONS_ASSESSED, how
many of them are quality images (0: every place a remote one).
A Commons search for assessed files (generator=search, CirrusSearch's `nearcoord:` over the assessment categories)
answers the point's assessed files, in the categories `clcategories` reports; a geosearch answers all its files. With Pillow at hand, a Commons
thumbnail narrower than its photo is the photo made that wide (as Wikimedia's are); without, the photo itself.
/stats then also gives "media_most" (media requests ever in flight at once) and "events": [time, kind, key, bytes] for
each Commons call ("search" keyed by its point, "photo" or "look" by the file's point), times from time.time().
"""
import hashlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PHOTOS = [open(p, "rb").read() for p in sys.argv[1:]]
SIZES = []
for data in PHOTOS:  # width, height from the first SOF marker
    i = 2
    while i < len(data):
        marker, length = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            SIZES.append((int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")))
            break
        i += 2 + length
COUNTS = {"searches": 0, "downloads": 0, "points": {}, "commons_searches": 0, "commons_geosearches": 0, "commons_assessed": 0, "commons_downloads": 0, "commons_looks": 0, "requests": 0,
          "tracing_headers": [], "media_most": 0, "events": []}
RTT = float(os.environ.get("STANDIN_RTT_MS", "0")) / 1000
BYTES_PER_SECOND = float(os.environ.get("STANDIN_MBPS", "0")) * 125_000
COMMONS_FILES = int(os.environ.get("STANDIN_COMMONS_FILES", "3"))
COMMONS_ASSESSED = int(os.environ.get("STANDIN_COMMONS_ASSESSED", "0"))
MEDIA = {"now": 0}


def thumbnails():
    """Each photo at Wikimedia's standard widths below its own, as JPEG bytes: {(index, width): bytes}."""
    try:
        import io
        from PIL import Image
    except ImportError:
        return {}
    made = {}
    for index, data in enumerate(PHOTOS):
        image = Image.open(io.BytesIO(data)).convert("RGB")
        for width in (120, 250, 330, 500, 960, 1280, 1920):
            if width < image.width:
                out = io.BytesIO()
                image.resize((width, round(image.height * width / image.width)), Image.LANCZOS).save(out, "JPEG", quality=85)
                made[(index, width)] = out.getvalue()
    return made


THUMBNAILS = thumbnails() if RTT or BYTES_PER_SECOND else {}
TRACING_HEADERS = ("traceparent", "tracestate", "baggage")
LOCK = threading.Lock()
ANSWERING = threading.Event()
ANSWERING.set()
MODE = {"search": "normal"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type):
        if RTT and not self.path.startswith(("/stats", "/control")):
            # The request's way there and the answer's way back; a new connection's handshake once more.
            time.sleep(RTT * (1 if getattr(self, "answered", False) else 2))
            self.answered = True
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            if not BYTES_PER_SECOND:
                self.wfile.write(body)
                return
            started = time.monotonic()
            for offset in range(0, len(body), 16384):
                self.wfile.write(body[offset:offset + 16384])
                self.wfile.flush()
                ahead = started + (offset + 16384) / BYTES_PER_SECOND - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)  # the line's rate
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (or was killed) while we were answering

    def event(self, kind, key, size):
        with LOCK:
            COUNTS["events"].append([time.time(), kind, key, size])

    def do_GET(self):
        url = urlparse(self.path)
        if url.path not in ("/stats", "/control"):
            # What reaches an upstream: Flickr and the image hosts must never be sent the W3C trace headers.
            with LOCK:
                COUNTS["requests"] += 1
                COUNTS["tracing_headers"] += [f"{name} on {url.path}" for name in TRACING_HEADERS if self.headers.get(name) is not None]
        if url.path == "/services/rest/":
            q = {k: v[0] for k, v in parse_qs(url.query).items()}
            with LOCK:
                COUNTS["searches"] += 1
                point = f"{q.get('lat')},{q.get('lon')}"
                COUNTS["points"][point] = COUNTS["points"].get(point, 0) + 1
            ANSWERING.wait(60)
            mode = MODE["search"]
            if mode in ("failing", "rejected"):
                code, message = (105, "Service currently unavailable") if mode == "failing" else (100, "Invalid API Key (Key has invalid format)")
                self.send(200, json.dumps({"stat": "fail", "code": code, "message": message}).encode(), "application/json")
                return
            if mode == "empty":
                body = json.dumps({"photos": {"page": 1, "pages": 0, "perpage": 250, "total": 0, "photo": []}, "stat": "ok"})
                self.send(200, body.encode(), "application/json")
                return
            seed = int(hashlib.sha1(f"{q.get('lat')},{q.get('lon')}".encode()).hexdigest()[:8], 16)
            port = self.server.server_address[1]
            photos = []
            for n in range(5):
                index = (seed + n) % len(PHOTOS)
                width, height = SIZES[index]
                photo_id = str(50000000000 + seed % 1000000 * 10 + n)
                photos.append({
                    "id": photo_id, "owner": "12345678@N00", "secret": "a1b2c3", "server": "65535", "farm": 66,
                    "title": f"Bench photo {n}", "ispublic": 1, "isfriend": 0, "isfamily": 0, "license": "4",
                    "ownername": "Bench Photographer", "pathalias": None,
                    "url_l": f"http://localhost:{port}/img/{index}/{photo_id}.jpg", "width_l": str(width), "height_l": height,
                    # The ranking's extras, in the forms real answers mix: numbers as strings or not, inexact dates.
                    "datetaken": f"2025-06-2{n} {(9 + 3 * n) % 24:02d}:15:00", "datetakengranularity": "0" if n % 2 == 0 else 4,
                    "datetakenunknown": 0 if n != 3 else "1", "views": str(100 * n),
                    # The two without an exact date say their sky in their tags, so that no photo is judged by its
                    # light against the real sky now (an undated bright photo is rightly turned down at night).
                    "tags": "bench photo" + (" sunset" if n == 4 else "") + (" nightscape" if n in (1, 3) else ""),
                    "latitude": q.get("lat", "0"), "longitude": float(q.get("lon", "0")), "accuracy": "16" if n % 2 else 16,
                    "context": n % 3, "place_id": "", "woeid": "", "geo_is_family": 0, "geo_is_friend": 0, "geo_is_contact": 0,
                    "geo_is_public": 1, **({"o_width": str(width * 4), "o_height": str(height * 4)} if n % 2 == 0 else {}),
                })
            body = json.dumps({"photos": {"page": 1, "pages": 1, "perpage": 250, "total": "5", "photo": photos}, "stat": "ok"})
            self.send(200, body.encode(), "application/json")
        elif url.path == "/w/api.php":
            q = {k: v[0] for k, v in parse_qs(url.query).items()}
            assessed = q.get("generator") == "search"
            # The point searched, the same text whichever kind asks: geosearch's "LAT|LON", nearcoord's "Rm,LAT,LON".
            point = "|".join(q.get("gsrsearch", "").split(" ")[0].split(",")[1:3]) if assessed else q.get("ggscoord", "")
            with LOCK:
                COUNTS["commons_searches"] += 1
                COUNTS["commons_assessed" if assessed else "commons_geosearches"] += 1
            seed = int(hashlib.sha1(point.encode()).hexdigest()[:8], 16)
            port = self.server.server_address[1]
            pages = []
            for n in range(COMMONS_ASSESSED if assessed else COMMONS_FILES):
                pageid = seed % 1000000 * 100 + n
                # Its photo's own size when thumbnails are made from it; else a camera's, as before.
                width, height = SIZES[n % len(PHOTOS)] if THUMBNAILS else (4000, 3000)
                name = f"Stand-in_{pageid}.jpg"
                base = f"http://localhost:{port}/wikipedia/commons"
                meta = {"Artist": f'<a href="//commons.wikimedia.org/wiki/User:P{n}">Photographer {n}</a>', "LicenseShortName": "CC BY-SA 4.0",
                        "LicenseUrl": "https://creativecommons.org/licenses/by-sa/4.0", "License": "cc-by-sa-4.0",
                        "ObjectName": f"Stand-in {pageid}",
                        # Dated by its categories, so that the quality gate does not judge its light against the real sky now.
                        "Categories": "Views of the stand-in by night"}
                # Today's shape (the real answers in ../shared/real-api/): every URL with Wikimedia's campaign query,
                # the thumbnails for denser screens in responsiveUrls, thumbwidth the width asked.
                campaign = "?utm_source=commons.wikimedia.org&utm_campaign=imageinfo&utm_content="
                thumb = lambda step: f"{base}/thumb/{n}/{name}/{step}px-{name}{campaign}thumbnail"  # noqa: E731
                quality = [{"ns": 14, "title": "Category:Quality images"}] if n < COMMONS_ASSESSED else []
                pages.append({"pageid": pageid, "ns": 6, "title": f"File:{name}", "index": n - 1, **({"categories": quality} if quality else {}),
                              "imageinfo": [{
                    "width": width, "height": height, "mime": "image/jpeg", "url": f"{base}/{n}/{name}{campaign}original",
                    "thumburl": thumb(1280), "thumbwidth": 1280, "thumbheight": round(height * 1280 / width),
                    "responsiveUrls": {"1.5": thumb(1920), "2": thumb(3840)},
                    "descriptionurl": f"https://commons.wikimedia.org/wiki/File:{name}",
                    "extmetadata": {k: {"value": v, "source": "commons-desc-page", "hidden": ""} for k, v in meta.items()}}]})
            # A search that finds nothing has no "query" at all, as MediaWiki's.
            body = json.dumps({"batchcomplete": True, **({"query": {"pages": pages}} if pages else {})}).encode()
            self.event("search", seed % 1000000, len(body))
            self.send(200, body, "application/json")
        elif url.path.startswith("/wikipedia/"):
            width = url.path.rsplit("/", 1)[-1].split("px-")[0] if "/thumb/" in url.path else "960"
            if width not in ("20", "40", "60", "120", "250", "330", "500", "960", "1280", "1920", "3840"):
                self.send(400, b"Error: use one of the standard thumbnail sizes", "text/plain")
                return
            index = int(url.path.split("/")[-2 if "/thumb/" not in url.path else -3]) % len(PHOTOS)
            body = THUMBNAILS.get((index, int(width)), PHOTOS[index])
            page = url.path.rsplit("/", 1)[-1].split("px-")[-1].removeprefix("Stand-in_").split(".")[0]
            self.event("look" if width == "120" else "photo", int(page) // 100 if page.isdigit() else -1, len(body))
            with LOCK:
                COUNTS["commons_looks" if width == "120" else "commons_downloads"] += 1
                MEDIA["now"] += 1
                COUNTS["media_most"] = max(COUNTS["media_most"], MEDIA["now"])
            try:
                self.send(200, body, "image/jpeg")
            finally:
                with LOCK:
                    MEDIA["now"] -= 1
        elif url.path.startswith("/img/"):
            with LOCK:
                COUNTS["downloads"] += 1
            self.send(200, PHOTOS[int(url.path.split("/")[2]) % len(PHOTOS)], "image/jpeg")
        elif url.path == "/control":
            query = parse_qs(url.query)
            if "mode" in query:
                MODE["search"] = query["mode"][0]
            else:
                (ANSWERING.clear if query.get("hang", ["0"])[0] == "1" else ANSWERING.set)()
            self.send(200, b"{}", "application/json")
        elif url.path == "/stats":
            with LOCK:
                body = json.dumps(COUNTS).encode()
            self.send(200, body, "application/json")
        else:
            self.send(404, b"not found", "text/plain")


class Server(ThreadingHTTPServer):
    # Python's default listen backlog is 5: a burst of searches from many clients overflows it, and each dropped
    # connection waits out a one-second SYN retry, which is not the Flickr being measured.
    request_queue_size = 1024


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"port {server.server_address[1]}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # runs until the parent closes our stdin
    server.shutdown()


if __name__ == "__main__":
    main()
