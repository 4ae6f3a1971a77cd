#!/usr/bin/env python3
"""Overload: 1,024 connections asking for distinct cells at once, far more renders than two cores can make.

usage: overload.py --backdrop PATH/TO/backdrop [--seconds 20] [--compare LABEL=PATH ...]

Starts a release Backdrop on 127.0.0.1 (stock photos, info-level log to a file), then wrk with 1,024 connections from
127.0.0.1, each request a new random place (so almost every one needs a render), while a polite client on 127.0.0.3
asks for a new place once a second. Prints, per build and admission: successful renders per second, the p50 and p99
time of the requests that were rendered (from the request log), the 503s, the log lines written per second, and the
polite client's p50, p99 and 503s. Each build runs twice: admission by expected wait (the default,
`render.maxQueueWaitMs` 1,000) and by count alone (`render.maxPending` 48, the former default on two cores, with no
wait budget). `--compare` runs other builds the same way in the same run (for example the previous release).
Everything runs on loopback and stops by itself.
"""
import argparse
import functools
import http.client
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "support"))
from backdrop_server import BackdropServer  # noqa: E402

SCRIPT = r"""
local threads = {}
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end
function init(args)
  math.randomseed(os.time() * 100 + id)
  ok, shed, other = 0, 0, 0
end
function request()
  local lat = math.random() * 170 - 85
  local lon = math.random() * 350 - 175
  return wrk.format("GET", string.format("/background?lat=%.5f&lon=%.5f&width=320&height=568&blur=0.5", lat, lon))
end
function response(status, headers, body)
  if status == 200 then ok = ok + 1 elseif status == 503 then shed = shed + 1 else other = other + 1 end
end
function done(summary, latency, requests)
  local o, s, x = 0, 0, 0
  for _, thread in ipairs(threads) do
    o = o + thread:get("ok"); s = s + thread:get("shed"); x = x + thread:get("other")
  end
  io.write(string.format("STATUSES 200=%d 503=%d 0=%d\n", o, s, x))
end
"""


def polite_client(base, stop, results):
    """A new place once a second from 127.0.0.3 until `stop`: (status, seconds) each."""
    index = 0
    while not stop.is_set():
        index += 1
        started = time.monotonic()
        url = f"{base}/background?lat={(index * 7.77) % 170 - 85:.5f}&lon={(index * 13.31) % 350 - 175:.5f}&width=320&height=568&blur=0.5"
        try:
            opener = urllib.request.build_opener(SourceHandler())
            status = opener.open(url, timeout=30).status
        except urllib.error.HTTPError as error:
            status = error.code
        except OSError:
            status = 0
        results.append((status, time.monotonic() - started))
        stop.wait(max(0, 1 - (time.monotonic() - started)))


class SourceHandler(urllib.request.HTTPHandler):
    """Connects from 127.0.0.3, so that Backdrop sees the polite client as another client than wrk."""

    def http_open(self, req):
        return self.do_open(functools.partial(http.client.HTTPConnection, source_address=("127.0.0.3", 0)), req)


def run(binary, seconds, work, label, settings):
    log_path = os.path.join(work, f"{label}.log")
    script = os.path.join(work, "cells.lua")
    with open(script, "w") as f:
        f.write(SCRIPT)
    polite, stop = [], threading.Event()
    with BackdropServer(binary, flickr=False, log=log_path, log_level="info", settings=settings) as server:
        lines_before = sum(1 for _ in open(log_path))
        thread = threading.Thread(target=polite_client, args=(server.base, stop, polite))
        thread.start()
        out = subprocess.run(["timeout", str(seconds + 60), "wrk", "-t2", "-c1024", f"-d{seconds}s", "--timeout", "30s", "-s", script,
                              server.base + "/"], capture_output=True, text=True).stdout
        stop.set()
        thread.join(40)
    statuses = dict((int(k), int(v)) for k, v in re.findall(r"(\d+)=(\d+)", (re.search(r"STATUSES (.*)", out) or [None, ""])[1]))
    lines = open(log_path).read().splitlines()[lines_before:]
    rendered = [float(m.group(1)) for line in lines if "status=200" in line and "path=/background" in line
                for m in [re.search(r"ms=([\d.]+)", line)] if m]
    rendered.sort()

    def pct(p, values=rendered):
        return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")

    polite_ok = sorted(t * 1000 for status, t in polite if status == 200)

    return {
        "ok_per_s": statuses.get(200, 0) / seconds,
        "shed": statuses.get(503, 0),
        "other": sum(v for k, v in statuses.items() if k not in (200, 503)),
        "p50": pct(0.5),
        "p99": pct(0.99),
        "log_lines_per_s": len(lines) / seconds,
        "polite_p50": pct(0.5, polite_ok),
        "polite_p99": pct(0.99, polite_ok),
        "polite_shed": sum(1 for status, _ in polite if status == 503),
        "polite_count": len(polite),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backdrop", required=True)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--compare", action="append", default=[], help="LABEL=PATH of another backdrop binary")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="backdrop-overload-")
    builds = [("backdrop", a.backdrop)] + [tuple(item.split("=", 1)) for item in a.compare]
    admissions = [("by expected wait", {}), ("by count (48)", {"render": {"maxPending": 48, "maxQueueWaitMs": 60000}})]
    # Other builds (`--compare`, perhaps from before these settings existed) run with their defaults only.
    results = {(label, admission): run(binary, a.seconds, work, re.sub(r"\W", "_", f"{label}-{admission}"), settings)
               for index, (label, binary) in enumerate(builds) for admission, settings in (admissions if index == 0 else [("defaults", {})])}
    print(f"\nOverload: wrk -t2 -c1024 -d{a.seconds}s from 127.0.0.1, every request a new place (320x568 renders), and a polite"
          " client on 127.0.0.3 asking for a new place once a second, same 2 cores:\n")
    print("| build | admission | flood renders/s (200) | p50 ms of rendered | p99 ms of rendered | 503s | other statuses | log lines/s"
          " | polite p50 ms | polite p99 ms | polite 503s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (label, admission), r in results.items():
        print(f"| {label} | {admission} | {r['ok_per_s']:.0f} | {r['p50']:.0f} | {r['p99']:.0f} | {r['shed']:,} | {r['other']} |"
              f" {r['log_lines_per_s']:,.0f} | {r['polite_p50']:.0f} | {r['polite_p99']:.0f} | {r['polite_shed']} of {r['polite_count']} |")


if __name__ == "__main__":
    main()
