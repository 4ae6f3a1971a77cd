#!/usr/bin/env python3
"""Cache-hit serving: a cached 640x1136 PNG from Backdrop vs the same file from nginx (sendfile), same run.

usage: cache_hit.py --backdrop PATH/TO/backdrop --anchors DIR [--nio PATH/TO/nio-hit] [--seconds 8] [--rounds 3]
                    [--photo STOCK.jpg ...] [--compare LABEL=PATH ...]

For each photo (by default two stock photos whose render is about 1,045 kB and 435 kB: the stock photo of the hour
varies from 365 kB to 1,045 kB, so the photo is pinned for figures that compare across runs and hours), starts a release
Backdrop on 127.0.0.1 with a fresh disk cache and that photo alone in its stock folder, warms one background, and loads
it with wrk (2 threads, 64 and 256 connections); then nginx serves the same bytes (the anchors' nginx.conf: sendfile,
tcp_nopush). With --nio, `nio-hit` (Benchmarks/nio-hit: one NIO handler that answers every request with a fixed head
and the file, corked, as Backdrop's hits are sent) serves them too: the floor Backdrop's server stack sets, so that
the gap to nginx splits into NIO's share and Backdrop's.
The first answers go through Hummingbird's router and middleware, the repeats are replayed beneath it (HitReplays); the
body leaves its cache file with sendfile. `--compare` adds other Backdrop binaries (for example a build from before the
replays, whose every answer went through the router) to each round.
The rounds interleave the servers, so that the shared machine's drift hits them alike; the table gives each server's
median requests/s and p99 over the rounds and the median of the per-round ratios to nginx. Backdrop's resident memory
is printed before and after its load (flat memory is the target). Everything runs on loopback and stops by itself.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "support"))
from backdrop_server import BackdropServer, rss_mb, wait_until_serving  # noqa: E402

CONNECTIONS = (64, 256)
QUERY = "/background?lat=48.8566&lon=2.3522&blur=0.5"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The largest render of the stock photos (the 1 MB PNG) and one of the middle of their range.
PHOTOS = ("015-picos-de-europa-portrait.jpg", "009-darkest-hour.jpg")


def stock_folder(photo):
    """A stock folder holding `photo` alone (with the credits), so that every hour serves the same bytes."""
    folder = tempfile.mkdtemp(prefix="backdrop-hit-stock-")
    shutil.copy(os.path.join(ROOT, "StockPhotos", photo), folder)
    shutil.copy(os.path.join(ROOT, "StockPhotos", "CREDITS.md"), folder)
    return folder


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
    time.sleep(1)  # let the sockets of this run close before the next one
    return parse_wrk(out)


class NIOHit:
    """Benchmarks/nio-hit serving one file on 127.0.0.1:18081."""

    def __init__(self, binary, path):
        self.command = [binary, path, "18081"]
        self.url = "http://127.0.0.1:18081/bg.png"

    def __enter__(self):
        self.process = subprocess.Popen(self.command)
        wait_until_serving(self.url, "nio-hit", 10, give_up=self.process.kill)
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait(timeout=10)
        return False


class Nginx:
    """nginx with the anchors' configuration, serving one file, on 127.0.0.1:18080."""

    def __init__(self, anchors, png_path):
        self.conf = os.path.abspath(os.path.join(anchors, "nginx.conf"))
        self.prefix = tempfile.mkdtemp(prefix="backdrop-nginx-")
        for folder in ("logs", "temp", "www"):
            os.makedirs(os.path.join(self.prefix, folder))
        shutil.copy(png_path, os.path.join(self.prefix, "www", "bg.png"))
        os.chmod(self.prefix, 0o755)
        for root, dirs, files in os.walk(self.prefix):
            for name in dirs + files:
                os.chmod(os.path.join(root, name), 0o755)

    def __enter__(self):
        base = ["nginx", "-p", self.prefix + "/", "-e", "logs/error.log", "-c", self.conf]
        subprocess.run(base, check=True)
        wait_until_serving("http://127.0.0.1:18080/bg.png", "nginx", 10)
        return self

    def __exit__(self, *exc):
        with open(os.path.join(self.prefix, "logs", "nginx.pid")) as f:
            pid = int(f.read())
        os.kill(pid, 3)  # SIGQUIT: graceful
        for _ in range(100):
            if not os.path.exists(f"/proc/{pid}"):
                break
            time.sleep(0.1)
        return False


def measure(a, servers, photo):
    """Interleaved rounds of every server on the render of `photo`, and its table and targets."""
    folder = stock_folder(photo)
    results = {}  # (name, connections) -> [(rps, p99, errors)] per round
    memory = {}
    png = None
    for round_index in range(a.rounds):
        for name, binary in servers:
            with BackdropServer(binary, flickr=False, log_level="warning", environment={"BACKDROP_STOCK_FOLDER": folder}) as server:
                url = server.base + QUERY
                body = urllib.request.urlopen(url, timeout=60).read()
                png = png or body
                before = rss_mb(server.pid)
                for connections in CONNECTIONS:
                    results.setdefault((name, connections), []).append(wrk(url, connections, a.seconds))
                memory.setdefault(name, []).append((before, rss_mb(server.pid)))
        work = tempfile.mkdtemp(prefix="backdrop-hit-")
        png_path = os.path.join(work, "cached.png")
        with open(png_path, "wb") as f:
            f.write(png)
        if a.nio:
            with NIOHit(a.nio, png_path) as nio:
                for connections in CONNECTIONS:
                    results.setdefault(("NIO alone", connections), []).append(wrk(nio.url, connections, a.seconds))
        with Nginx(a.anchors, png_path):
            for connections in CONNECTIONS:
                results.setdefault(("nginx", connections), []).append(wrk("http://127.0.0.1:18080/bg.png", connections, a.seconds))
        shutil.rmtree(work, ignore_errors=True)

    names = [name for name, _ in servers] + (["NIO alone"] if a.nio else []) + ["nginx"]
    print(f"\nCache hits: one cached {len(png) // 1000} kB 640x1136 PNG ({photo}), wrk -t2 -d{a.seconds}s on 127.0.0.1 "
          f"(same 2 cores), {a.rounds} interleaved rounds, medians:\n")
    print("| server | connections | requests/s | p99 ms | non-2xx | vs nginx (median of rounds) |")
    print("|---|---|---|---|---|---|")
    ratios = {}
    for connections in CONNECTIONS:
        nginx = [r[0] for r in results[("nginx", connections)]]
        for name in names:
            runs = results[(name, connections)]
            rps = statistics.median(r[0] for r in runs)
            p99s = [r[1] for r in runs if r[1] is not None]
            p99 = statistics.median(p99s) if p99s else float("nan")
            errors = sum(r[2] for r in runs)
            ratio = statistics.median(r[0] / max(n, 1) for r, n in zip(runs, nginx))
            ratios[(name, connections)] = ratio
            print(f"| {name} | {connections} | {rps:,.0f} | {p99:.1f} | {errors} | {ratio:.2f}x |")
    for name, _ in servers:
        before = statistics.median(m[0] for m in memory[name])
        after = statistics.median(m[1] for m in memory[name])
        print(f"\n{name} resident memory: {before:.0f} MB after warm-up, {after:.0f} MB after the load (medians).")
    ratio64 = ratios[("backdrop", 64)]
    for connections in CONNECTIONS:
        ratio = ratios[("backdrop", connections)]
        print(f"Target: at least 1.0x nginx's requests/s at {connections} connections ({len(png) // 1000} kB): "
              f"{'met' if ratio >= 1.0 else 'MISSED'} ({ratio:.2f}x).")
    for name, _ in servers[1:]:
        gain = ratio64 / max(ratios[(name, 64)], 1e-9) - 1
        print(f"backdrop vs {name} at 64 connections: {gain * 100:+.0f}% requests/s (answers beneath the router must add at least 15%).")
    shutil.rmtree(folder, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backdrop", required=True)
    ap.add_argument("--anchors", required=True)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--nio", help="Benchmarks/nio-hit's binary, to serve the same bytes as the stack's floor")
    ap.add_argument("--photo", action="append", help="a stock photo (StockPhotos/NAME) to serve; repeatable")
    ap.add_argument("--compare", action="append", default=[], help="LABEL=PATH of another backdrop binary")
    a = ap.parse_args()
    servers = [("backdrop", a.backdrop)] + [tuple(item.split("=", 1)) for item in a.compare]
    photos = a.photo or PHOTOS
    for photo in photos:
        if not os.path.isfile(os.path.join(ROOT, "StockPhotos", photo)):
            ap.error(f"no stock photo {photo} in StockPhotos")
    for photo in photos:
        measure(a, servers, photo)


if __name__ == "__main__":
    main()
