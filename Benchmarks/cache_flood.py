#!/usr/bin/env python3
"""The cache flood: one client asking for distinct tiny renders as fast as it can, until the memory caches are full.

usage: cache_flood.py --backdrop PATH/TO/backdrop [--seconds 60] [--compare LABEL=PATH ...]

Starts a release Backdrop on 127.0.0.1 (stock photos, default budgets, disk cache in a temporary folder), then 8
keep-alive connections from 127.0.0.2 asking for `width=1&height=1&format=webp&blur=<random>` at random places (every
one a new render, each a few dozen bytes), while another client on 127.0.0.3 asks for one cached render every 20 ms.
Reports, for the first 10 seconds (caches filling) and the last 10 (caches full, evicting on every insert): the
flood's new renders per second and the other client's cached-hit latency (p50, p99); the render cache's entries; and
the cache folder's disk use (`du`) against its budget. Everything runs on loopback and stops by itself.
"""
import argparse
import http.client
import os
import random
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "support"))
from backdrop_server import BackdropServer, metric  # noqa: E402


def flood(port, stop, done, seed):
    rng = random.Random(seed)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.0.2", 0))
    while not stop.is_set():
        path = (f"/background?lat={rng.uniform(-80, 80):.5f}&lon={rng.uniform(-170, 170):.5f}"
                f"&width=1&height=1&format=webp&blur={rng.randint(0, 100) / 100:.2f}")
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            if response.status == 200:
                done.append(time.monotonic())
        except (OSError, http.client.HTTPException):
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.0.2", 0))


def hits(port, stop, samples, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.0.3", 0))
    while not stop.is_set():
        started = time.monotonic()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        samples.append((started, (time.monotonic() - started) * 1000))
        stop.wait(0.02)


def run(binary, seconds):
    with BackdropServer(binary, flickr=False, log_level="warning") as server:
        hit_path = "/background?lat=48.85&lon=2.35&width=320&height=568&blur=0.5&format=webp"
        warm = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        for _ in range(3):  # the render, then hits
            warm.request("GET", hit_path)
            warm.getresponse().read()
        warm.close()
        stop, done, samples = threading.Event(), [], []
        threads = [threading.Thread(target=flood, args=(server.port, stop, done, i)) for i in range(8)]
        threads.append(threading.Thread(target=hits, args=(server.port, stop, samples, hit_path)))
        started = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(seconds)  # the run's length: the measurement itself, not synchronisation
        stop.set()
        for thread in threads:
            thread.join(60)
        text = server.metrics()
        cache = os.path.join(server.work, "cache")
        du = int(subprocess.run(["du", "-sk", cache], capture_output=True, text=True).stdout.split()[0]) * 1024 if os.path.isdir(cache) else 0
        files = sum(len(names) for _, _, names in os.walk(cache))

    def window(first, last):
        renders = sum(1 for t in done if started + first <= t < started + last) / (last - first)
        latencies = sorted(ms for t, ms in samples if started + first <= t < started + last)
        p = lambda q: latencies[min(len(latencies) - 1, int(len(latencies) * q))] if latencies else float("nan")  # noqa: E731
        return renders, p(0.5), p(0.99)

    return {
        "early": window(0, 10), "late": window(seconds - 10, seconds), "renders": len(done),
        "evictions": metric(text, 'backdrop_cache_evictions_total{kind="render"}'),
        "du": du, "files": files,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backdrop", required=True)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--compare", action="append", default=[], help="LABEL=PATH of another backdrop binary")
    a = ap.parse_args()
    builds = [("backdrop", a.backdrop)] + [tuple(item.split("=", 1)) for item in a.compare]
    results = {label: run(binary, a.seconds) for label, binary in builds}
    print(f"\nCache flood: 8 keep-alive connections asking for distinct 1x1 WebP renders for {a.seconds} s, another client's"
          " cached hit every 20 ms, default budgets, same 2 cores:\n")
    print("| build | renders/s first 10 s | renders/s last 10 s | last/first | hit p50 ms first / last | hit p99 ms first / last"
          " | renders in all | cache folder du (budget 512 MB) | files |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, r in results.items():
        (r0, h50a, h99a), (r1, h50b, h99b) = r["early"], r["late"]
        print(f"| {label} | {r0:,.0f} | {r1:,.0f} | {r1 / r0 if r0 else float('nan'):.2f} | {h50a:.1f} / {h50b:.1f} |"
              f" {h99a:.1f} / {h99b:.1f} | {r['renders']:,} | {r['du'] / 1e6:.1f} MB | {r['files']:,} |")


if __name__ == "__main__":
    main()
