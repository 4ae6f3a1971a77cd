#!/usr/bin/env python3
"""A new place in one round trip (issue 58): what a user asking for a place nobody has asked for waits, against its floor.

usage: new_place.py --backdrop PATH/TO/backdrop [--photos DIR] [--rtt-ms 150] [--mbps 160] [--files 40] [--assessed 40]
                    [--places 12]

Starts a stand-in Wikimedia Commons as far away as the real one (Tests/support/flickr_standin.py: a round trip before
each answer, and one more for a connection's handshake; bodies sent at --mbps, 160 = 20 MB/s; --files files near each
place, --assessed of them quality images, their thumbnails made from --photos at Wikimedia's standard widths: 8 or
more make a famous place, searched in one call; fewer a remote one, searched in three, two round trips) and a release Backdrop with no Flickr key
(sources commons, stock). A phone asks `width=390&height=844&dpr=2` for --places new places one at a time, then
--places more six at once. For each new place:
- its time to the last byte;
- its floor: its searches (a round trip and the answer's bytes at the line's rate for the first, and for a remote
  place one more for the two after it, which go together), one image (a round trip and the photo's bytes) and the
  render, measured as a second size of the same place (the photo already held);
- the overhead (time minus floor), the media requests that reached the stand-in before its answer was read, and its
  upstream requests all told once the work after answers (looks) has settled.
Prints a table and the issue's targets; the stand-in reports the most media requests it ever had in flight at once.
"""
import argparse
import glob
import json
import os
import statistics
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
from backdrop_server import BackdropServer  # noqa: E402

PHONE = "width=390&height=844&dpr=2"
SECOND_SIZE = "width=375&height=812&dpr=2"


def fetch(url):
    """(start, end) wall-clock times, the photo's id and its source."""
    start = time.time()
    with urllib.request.urlopen(url, timeout=60) as response:
        response.read()
        photo, source = response.headers.get("X-Backdrop-Photo-Id", ""), response.headers.get("X-Backdrop-Source")
    return start, time.time(), photo, source


def settle(server, quiet=3.0, bound=300.0):
    """The stand-in's stats once no Commons call has come for `quiet` seconds (the looks after answers done), within `bound`."""
    deadline, last, since = time.time() + bound, -1, time.time()
    while time.time() < deadline:
        stats = server.flickr_stats()
        if len(stats["events"]) != last:
            last, since = len(stats["events"]), time.time()
        elif time.time() - since >= quiet:
            return stats
        time.sleep(0.5)  # polling a benchmark's upstream, bounded above
    return server.flickr_stats()


def ask(server, places, at_once):
    """Each place asked (at_once of them together), then a second size of each, one at a time."""
    urls = [f"{server.base}/background?lat={lat}&lon={lon}&{PHONE}" for lat, lon in places]
    with ThreadPoolExecutor(at_once) as pool:
        first = list(pool.map(fetch, urls))
    second = [fetch(f"{server.base}/background?lat={lat}&lon={lon}&{SECOND_SIZE}") for lat, lon in places]
    return [{"start": a[0], "end": a[1], "photo": a[2], "source": a[3], "render": b[1] - b[0]} for a, b in zip(first, second)]


def judge(answers, events, rtt, rate):
    """Adds each answer's floor, overhead, media requests before its answer and upstream requests all told."""
    for answer in answers:
        key = int(answer["photo"].removeprefix("commons-")) // 100 if answer["photo"].startswith("commons-") else None
        mine = [e for e in events if e[2] == key]
        searches = [e for e in mine if e[1] == "search"]
        search = searches[0] if searches else None
        photo = next((e for e in mine if e[1] == "photo"), None)
        answer["commons"] = search is not None and photo is not None
        if not answer["commons"]:
            continue
        answer["time"] = answer["end"] - answer["start"]
        later = [e[3] for e in searches[1:] if e[0] < photo[0]]
        answer["floor"] = (rtt + search[3] / rate) + ((rtt + max(later) / rate) if later else 0) + (rtt + photo[3] / rate) + answer["render"]
        answer["overhead"] = answer["time"] - answer["floor"]
        answer["media_before"] = sum(1 for e in mine if e[1] in ("photo", "look") and e[0] < answer["end"])
        answer["upstream"] = len(mine)
    return [a for a in answers if a["commons"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backdrop", required=True)
    ap.add_argument("--photos", default=os.path.join(os.path.dirname(ROOT), "shared", "stock-photo-sources"))
    ap.add_argument("--rtt-ms", type=float, default=150)
    ap.add_argument("--mbps", type=float, default=160)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--assessed", type=int, default=40)
    ap.add_argument("--places", type=int, default=12)
    a = ap.parse_args()
    os.environ.update({"STANDIN_RTT_MS": str(a.rtt_ms), "STANDIN_MBPS": str(a.mbps), "STANDIN_COMMONS_FILES": str(a.files),
                       "STANDIN_COMMONS_ASSESSED": str(min(a.assessed, a.files))})
    photos = sorted(glob.glob(os.path.join(a.photos, "*.jpg")))[:8]
    rtt, rate = a.rtt_ms / 1000, a.mbps * 125_000
    # Points a degree apart: new geohash cells, each its own Commons search.
    alone = [(30 + i, -100 + i) for i in range(a.places)]
    together = [(-30 - i, 100 + i) for i in range(a.places)]
    with BackdropServer(a.backdrop, flickr=False, commons=True, photos=photos, log_level="warning") as server:
        first = ask(server, alone, 1)
        rounds = [ask(server, together[i:i + 6], 6) for i in range(0, len(together), 6)]
        stats = settle(server)
    events = stats["events"]
    sequential = judge(first, events, rtt, rate)
    concurrent = judge([x for r in rounds for x in r], events, rtt, rate)
    served = len(sequential) + len(concurrent)
    print(f"\nA new place through a stand-in Commons {a.rtt_ms:.0f} ms away at {a.mbps:.0f} Mbps, {a.files} files a place "
          f"({min(a.assessed, a.files)} assessed), "
          f"a phone's {PHONE} (release build; {served} of {2 * a.places} places served from Commons):\n")
    print("| new places | n | median ms | worst ms | median floor ms | median overhead ms | worst / its floor | media before answer (most) | upstream requests a place (median) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, rows in (("one at a time", sequential), ("six at once", concurrent)):
        if not rows:
            print(f"| {name} | 0 | | | | | | | |")
            continue
        ms = lambda key: [r[key] * 1000 for r in rows]  # noqa: E731
        print(f"| {name} | {len(rows)} | {statistics.median(ms('time')):.0f} | {max(ms('time')):.0f} | {statistics.median(ms('floor')):.0f} | "
              f"{statistics.median(ms('overhead')):.0f} | {max(r['time'] / r['floor'] for r in rows):.2f}x | "
              f"{max(r['media_before'] for r in rows)} | {statistics.median(r['upstream'] for r in rows):.0f} |")
    print(f"\nMost media requests in flight at once at the stand-in: {stats['media_most']}. "
          f"Commons calls all told: {stats['commons_searches']} searches, {stats['commons_downloads']} photos, {stats['commons_looks']} thumbnails for looks.")
    if not sequential or not concurrent:
        print("\nTargets: MISSED  no place was served from Commons")
        sys.exit(1)
    median_floor = statistics.median(r["floor"] for r in sequential)
    checks = [
        ("a new place's median overhead over its floor at most 0.35 s", statistics.median(r["overhead"] for r in sequential) <= 0.35,
         f"{statistics.median(r['overhead'] for r in sequential) * 1000:.0f} ms"),
        ("no new place over 3x its floor", all(r["time"] <= 3 * r["floor"] for r in sequential),
         f"worst {max(r['time'] / r['floor'] for r in sequential):.2f}x"),
        ("six new places at once each within 4x the median floor", all(r["time"] <= 4 * median_floor for r in concurrent),
         f"worst {max(r['time'] for r in concurrent) / median_floor:.2f}x"),
        ("at most 3 media requests before a new place's first answer", all(r["media_before"] <= 3 for r in sequential + concurrent),
         f"most {max(r['media_before'] for r in sequential + concurrent)}"),
        ("never more than 2 requests in flight to the media hosts", stats["media_most"] <= 2, f"{stats['media_most']}"),
    ]
    print("\nTargets:")
    for name, ok, value in checks:
        print(f"  {'met ' if ok else 'MISSED'}  {name}: {value}")


if __name__ == "__main__":
    main()
