#!/usr/bin/env python3
"""Overload: 1,024 connections asking for distinct cells at once, far more renders than two cores can make.

usage: overload.py --backdrop PATH/TO/backdrop [--seconds 20] [--compare LABEL=PATH ...]

Starts a release Backdrop on 127.0.0.1 (stock photos, info-level log to a file), then wrk with 1,024 connections,
each request a new random place (so almost every one needs a render). Prints, per build: successful renders per
second, the p50 and p99 time of the requests that were rendered (from the request log), the 503s, and the log lines
written per second. `--compare` runs other builds the same way in the same run (for example the previous release).
Everything runs on loopback and stops by itself.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

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


def run(binary, seconds, work, label):
    log_path = os.path.join(work, f"{label}.log")
    script = os.path.join(work, "cells.lua")
    with open(script, "w") as f:
        f.write(SCRIPT)
    with BackdropServer(binary, flickr=False, log=log_path, log_level="info") as server:
        lines_before = sum(1 for _ in open(log_path))
        out = subprocess.run(["timeout", str(seconds + 60), "wrk", "-t2", "-c1024", f"-d{seconds}s", "--timeout", "30s", "-s", script,
                              server.base + "/"], capture_output=True, text=True).stdout
    statuses = dict((int(k), int(v)) for k, v in re.findall(r"(\d+)=(\d+)", (re.search(r"STATUSES (.*)", out) or [None, ""])[1]))
    lines = open(log_path).read().splitlines()[lines_before:]
    rendered = [float(m.group(1)) for line in lines if "status=200" in line and "path=/background" in line
                for m in [re.search(r"ms=([\d.]+)", line)] if m]
    rendered.sort()

    def pct(p):
        return rendered[min(len(rendered) - 1, int(len(rendered) * p))] if rendered else float("nan")

    return {
        "ok_per_s": statuses.get(200, 0) / seconds,
        "shed": statuses.get(503, 0),
        "other": sum(v for k, v in statuses.items() if k not in (200, 503)),
        "p50": pct(0.5),
        "p99": pct(0.99),
        "log_lines_per_s": len(lines) / seconds,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backdrop", required=True)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--compare", action="append", default=[], help="LABEL=PATH of another backdrop binary")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="backdrop-overload-")
    builds = [("backdrop", a.backdrop)] + [tuple(item.split("=", 1)) for item in a.compare]
    results = {label: run(binary, a.seconds, work, re.sub(r"\W", "_", label)) for label, binary in builds}
    print(f"\nOverload: wrk -t2 -c1024 -d{a.seconds}s, every request a new place (320x568 renders), same 2 cores:\n")
    print("| build | renders/s (200) | p50 ms of rendered | p99 ms of rendered | 503s | other statuses | log lines/s |")
    print("|---|---|---|---|---|---|---|")
    for label, r in results.items():
        print(f"| {label} | {r['ok_per_s']:.0f} | {r['p50']:.0f} | {r['p99']:.0f} | {r['shed']:,} | {r['other']} | {r['log_lines_per_s']:,.0f} |")


if __name__ == "__main__":
    main()
