#!/usr/bin/env python3
"""Cache-hit serving: a cached 640x1136 PNG from Backdrop vs the same file from nginx (sendfile), same run.

usage: cache_hit.py --backdrop PATH/TO/backdrop --anchors DIR [--seconds 10]

Starts a release Backdrop on 127.0.0.1 with a fresh disk cache, warms one background, then loads it with wrk
(2 threads, 64 and 256 connections); then serves the same bytes with nginx through the anchors' http_bench.sh.
Prints requests per second and p99 for both, the ratio at each connection count, and Backdrop's resident memory
before and after the load (flat memory is the target). Everything runs on loopback and stops by itself.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "support"))
from backdrop_server import BackdropServer  # noqa: E402


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def parse_wrk(text):
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    p99 = re.search(r"\s99%\s+([\d.]+)(us|ms|s)\b", text)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    ms = None
    if p99:
        value, unit = float(p99.group(1)), p99.group(2)
        ms = value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    return (float(rps.group(1)) if rps else 0.0), ms, int(errors.group(1)) if errors else 0


def wrk(url, connections, seconds):
    out = subprocess.run(["timeout", str(seconds + 20), "wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True).stdout
    return parse_wrk(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backdrop", required=True)
    ap.add_argument("--anchors", required=True)
    ap.add_argument("--seconds", type=int, default=10)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="backdrop-hit-")
    results = {}
    with BackdropServer(a.backdrop, flickr=False, log_level="warning") as server:
        url = f"{server.base}/background?lat=48.8566&lon=2.3522&blur=0.5"
        png = urllib.request.urlopen(url, timeout=60).read()
        png_path = os.path.join(work, "cached.png")
        with open(png_path, "wb") as f:
            f.write(png)
        memory = [rss_mb(server.pid)]
        for connections in (64, 256):
            results[("backdrop", connections)] = wrk(url, connections, a.seconds)
            memory.append(rss_mb(server.pid))
            time.sleep(2)  # let the sockets of the last run close before the next one
    nginx_results = os.path.join(work, "nginx")
    subprocess.run(["sh", os.path.join(a.anchors, "http_bench.sh"), png_path, nginx_results], check=True, capture_output=True)
    for connections in (64, 256):
        with open(os.path.join(nginx_results, f"wrk_bg_c{connections}.txt")) as f:
            results[("nginx", connections)] = parse_wrk(f.read())

    print(f"\nCache hits: one cached {len(png) // 1000} kB 640x1136 PNG, wrk -t2 -d{a.seconds}s on 127.0.0.1 (same 2 cores):\n")
    print("| server | connections | requests/s | p99 ms | non-2xx | vs nginx |")
    print("|---|---|---|---|---|---|")
    for connections in (64, 256):
        nginx_rps = results[("nginx", connections)][0]
        for name in ("backdrop", "nginx"):
            rps, p99, errors = results[(name, connections)]
            ratio = f"{rps / nginx_rps:.2f}x" if nginx_rps else "-"
            print(f"| {name} | {connections} | {rps:,.0f} | {p99 if p99 is not None else float('nan'):.1f} | {errors} | {ratio} |")
    print(f"\nBackdrop resident memory: {memory[0]:.0f} MB after warm-up, {memory[1]:.0f} MB after 64 connections, "
          f"{memory[2]:.0f} MB after 256 connections.")
    ratio64 = results[("backdrop", 64)][0] / max(results[("nginx", 64)][0], 1)
    print(f"Target: at least 0.8x nginx's requests/s at 64 connections: {'met' if ratio64 >= 0.8 else 'MISSED'} ({ratio64:.2f}x).")


if __name__ == "__main__":
    main()
