#!/usr/bin/env python3
"""Resident memory under the most expensive requests, against the configured memory budgets.

usage: memory.py --backdrop PATH/TO/backdrop --photos FOLDER [--requests 240] [--clients 4]

Starts a release Backdrop on 127.0.0.1 with the default budgets (prepared images 256 MB, rendered images 128 MB,
downloads 64 MB: 448 MB) and the stand-in Flickr serving the anchor photos, then `--clients` concurrent clients ask
for renders at new places, each at one of five large sizes up to 2048x1953, in every style and format and a random
blur. Samples the process's resident memory every 0.2 s and prints its baseline (after start), its peak and where it
settles, against the target: baseline + budgets + 100 MB. Everything runs on loopback and stops by itself.
"""
import argparse
import glob
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "support"))
from backdrop_server import BackdropServer, rss_mb  # noqa: E402

SIZES = [(2048, 1953), (2048, 1536), (1536, 2048), (1953, 2048), (2000, 1900)]
STYLES = ["light", "dark", "extralight", "none"]
FORMATS = ["png", "avif", "webp", "jpeg"]
BUDGETS_MB = 256 + 128 + 64


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backdrop", required=True)
    ap.add_argument("--photos", required=True)
    ap.add_argument("--requests", type=int, default=240)
    ap.add_argument("--clients", type=int, default=4)
    a = ap.parse_args()
    photos = sorted(glob.glob(os.path.join(a.photos, "*.jpg")))
    with BackdropServer(a.backdrop, photos=photos, log_level="warning",
                        settings={"cache": {"folder": ""}}) as server:
        baseline = rss_mb(server.pid)
        samples, stop = [], threading.Event()

        def sample():
            while not stop.is_set():
                samples.append(rss_mb(server.pid))
                stop.wait(0.2)

        jobs = list(range(a.requests))
        lock, statuses = threading.Lock(), {}

        def client(seed):
            rng = random.Random(seed)
            while True:
                with lock:
                    if not jobs:
                        return
                    i = jobs.pop()
                width, height = SIZES[i % len(SIZES)]
                url = (f"{server.base}/background?lat={(i * 7.31) % 160 - 80:.4f}&lon={(i * 13.7) % 340 - 170:.4f}"
                       f"&width={width}&height={height}&style={STYLES[i % 4]}&format={FORMATS[(i // 4) % 4]}&blur={rng.randint(0, 100) / 100}")
                try:
                    status = urllib.request.urlopen(url, timeout=120).status
                except urllib.error.HTTPError as error:
                    status = error.code
                except OSError:
                    status = 0
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1

        sampler = threading.Thread(target=sample)
        sampler.start()
        started = time.monotonic()
        threads = [threading.Thread(target=client, args=(n,)) for n in range(a.clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(1800)
        elapsed = time.monotonic() - started
        settled = rss_mb(server.pid)
        stop.set()
        sampler.join()
    peak = max(samples + [settled])
    target = baseline + BUDGETS_MB + 100
    print(f"\nMemory under {a.requests} large renders ({a.clients} clients, sizes up to 2048x1953, every style and format, new"
          f" places), default budgets ({BUDGETS_MB} MB), {elapsed:.0f} s, statuses {statuses}:\n")
    print("| baseline MB | peak MB | settled MB | target (baseline + budgets + 100) MB | peak / target |")
    print("|---|---|---|---|---|")
    print(f"| {baseline:.0f} | {peak:.0f} | {settled:.0f} | {target:.0f} | {peak / target:.2f}x |")


if __name__ == "__main__":
    main()
