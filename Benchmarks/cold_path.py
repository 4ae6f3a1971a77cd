#!/usr/bin/env python3
"""Cold path through a stand-in Flickr on loopback: search + download + render, as `make bench` runs it.

usage: cold_path.py --backdrop PATH/TO/backdrop --photos DIR [--clients 32] [--cells 64] [--repeats 3]

Starts the stand-in Flickr and a release Backdrop pointed at it (both on 127.0.0.1, stopped at the end), then
32 concurrent clients ask for 64 distinct geohash cells: first each cell once (cold: one search, one download,
decode, crop, effect, encode), then each cell again at other blur values (warm: blend and encode only).
Prints median and p99 latency for both, and Flickr calls made per request.
"""
import argparse
import glob
import json
import os
import random
import statistics
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "support"))
from backdrop_server import BackdropServer  # noqa: E402


def fetch(url):
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as response:
        body = response.read()
        source = response.headers.get("X-Backdrop-Source")
    return (time.perf_counter() - start) * 1000, source, len(body)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def measure(backdrop, photos, clients=32, cells=64, repeats=3):
    """One cold-path run: the cold and warm phases' latencies (ms), the cold phase's rate and the Flickr calls."""
    with BackdropServer(backdrop, photos=photos, log_level="warning") as server:
        base, flickr_port = server.base, server.flickr_port
        # Points 0.5 degrees apart: distinct geohash-5 cells.
        places = [(10 + i * 0.5, 20 + i * 0.5) for i in range(cells)]
        cold_urls = [f"{base}/background?lat={lat}&lon={lon}&blur=0.5" for lat, lon in places]
        warm_urls = [f"{base}/background?lat={lat}&lon={lon}&blur={b}" for lat, lon in places for b in (0, 0.25, 0.75, 1)[:repeats]]
        random.Random(7).shuffle(warm_urls)
        with ThreadPoolExecutor(clients) as pool:
            started = time.perf_counter()
            cold = list(pool.map(fetch, cold_urls))
            cold_wall = time.perf_counter() - started
            warm = list(pool.map(fetch, warm_urls))
        stats = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{flickr_port}/stats").read())
    return {"cold": [r[0] for r in cold], "warm": [r[0] for r in warm], "rate": len(cold) / cold_wall, "stats": stats,
            "sources": sorted({s for _, s, _ in cold + warm})}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backdrop", required=True)
    ap.add_argument("--photos", required=True)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--cells", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    photos = sorted(glob.glob(os.path.join(a.photos, "*.jpg")))
    run = measure(a.backdrop, photos, a.clients, a.cells, a.repeats)
    stats = run["stats"]
    requests = len(run["cold"]) + len(run["warm"])
    print(f"\nCold path through the stand-in Flickr ({a.clients} clients, {a.cells} cells, 640x1136 PNG, release build):\n")
    print("| phase | requests | median ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    for name, ms in (("cold: search + download + render", run["cold"]), ("warm: other blur, same cell", run["warm"])):
        print(f"| {name} | {len(ms)} | {statistics.median(ms):.0f} | {percentile(ms, 99):.0f} | {max(ms):.0f} |")
    print(f"\nFlickr calls: {stats['searches']} searches and {stats['downloads']} downloads for {requests} requests "
          f"({stats['searches'] / requests:.2f} searches and {stats['downloads'] / requests:.2f} downloads per request; "
          f"{stats['searches'] / a.cells:.2f} and {stats['downloads'] / a.cells:.2f} per cell). Sources served: {run['sources']}. "
          f"Cold phase: {run['rate']:.1f} requests/s.")
    warm_p99 = percentile(run["warm"], 99)
    checks = [
        (f"cold path at least 80 renders/s ({a.clients} clients, {a.cells} cells, 2 cores)", run["rate"] >= 80, f"{run['rate']:.1f}/s"),
        ("other-blur phase (re-blends) p99 under 300 ms", warm_p99 < 300, f"p99 {warm_p99:.0f} ms"),
    ]
    print("\nTargets:")
    for name, ok, value in checks:
        print(f"  {'met ' if ok else 'MISSED'}  {name}: {value}")

if __name__ == "__main__":
    main()
