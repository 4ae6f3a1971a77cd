#!/usr/bin/env python3
"""The cold path with replicas sharing one Flickr key through PostgreSQL, beside one replica alone, in one run.

usage: cluster.py --backdrop PATH/TO/backdrop --photos DIR [--cells 48] [--clients 24] [--rounds 3] [--size 640x1136]

Starts a throwaway PostgreSQL and the stand-in Flickr on loopback, then in each round, for each setup, fresh replicas
and `cells` new cells, each asked for 3 times (all at once, `clients` requests in flight):
- alone: one replica, no database (today's single machine);
- one replica + PostgreSQL: the same, coordinating through the database (the cost of coordination alone);
- 3 replicas, cells hashed: each cell's requests reach one replica, as nginx routes cell URLs (deploy/nginx.conf);
- 3 replicas, every replica asked: each cell's 3 requests go to the 3 replicas at once (lease waits on two of them).
Prints p50 and p99 latency per setup and their ratios to the replica alone in the same round, and Flickr searches per
cell-window (1.00 is one search per cell and window across all replicas). Two cores are shared by every process.
"""
import argparse
import glob
import os
import shutil
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "cluster"))
from replicas import GEOHASH, FlickrStandIn, Replica, cells, fetch_all  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402
from cold_path import percentile  # noqa: E402

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backdrop", required=True)
    ap.add_argument("--photos", required=True)
    ap.add_argument("--cells", type=int, default=48)
    ap.add_argument("--clients", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", default="640x1136", help="output size; a small one (64x64) leaves the coordination's own cost")
    a = ap.parse_args()
    width, height = a.size.split("x")
    a.query = "" if a.size == "640x1136" else f"&width={width}&height={height}"
    photos = sorted(glob.glob(os.path.join(a.photos, "*.jpg")))
    setups = [("alone", 1, False, "hashed"), ("one replica + PostgreSQL", 1, True, "hashed"),
              ("3 replicas, cells hashed", 3, True, "hashed"), ("3 replicas, every replica asked", 3, True, "all")]
    results = {name: {"ms": [], "searches": 0, "cells": 0, "ratios": []} for name, *_ in setups}
    work = tempfile.mkdtemp(prefix="backdrop-cluster-bench-")
    os.chmod(work, 0o755)
    serial = 0
    try:
        with FlickrStandIn(photos) as flickr, PostgresServer() as db:
            for round_ in range(a.rounds):
                medians = {}
                for name, count, shared, routing in setups:
                    serial += 1
                    names = cells("s" + GEOHASH[serial // 32] + GEOHASH[serial % 32], a.cells)
                    replicas = [Replica(a.backdrop, flickr, db.url if shared else "", work, f"{serial}-{i}",
                                        settings={"server": {"logLevel": "warning"}}).start() for i in range(count)]
                    try:
                        urls = []
                        for n, cell in enumerate(names):
                            for k in range(3):
                                replica = replicas[(n + k) % count] if routing == "all" else replicas[n % count]
                                urls.append(f"{replica.base}/background?cell={cell}&blur=0.5{a.query}")
                        before = flickr.searches()
                        answers = fetch_all(urls, workers=a.clients)
                        bad = [x[0] for x in answers if x[0] != 200]
                        if bad:
                            raise RuntimeError(f"{name}: {len(bad)} answers were not 200: {sorted(set(bad))}")
                        ms = [x[3] * 1000 for x in answers]
                        row = results[name]
                        row["ms"] += ms
                        row["searches"] += flickr.searches() - before
                        row["cells"] += len(names)
                        medians[name] = (statistics.median(ms), percentile(ms, 99))
                    finally:
                        for replica in replicas:
                            replica.stop()
                base = medians["alone"]
                for name in medians:
                    results[name]["ratios"].append((medians[name][0] / base[0], medians[name][1] / base[1]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nCold path, replicas sharing through PostgreSQL ({a.rounds} rounds x {a.cells} new cells x 3 requests, "
          f"{a.clients} in flight, {a.size} PNG at blur 0.5, release build; ratios against the replica alone in the same round):\n")
    print("| setup | requests | p50 ms | p99 ms | p50 vs alone | p99 vs alone | Flickr searches per cell-window |")
    print("|---|---|---|---|---|---|---|")
    for name, *_ in setups:
        row = results[name]
        p50 = "/".join(f"{r[0]:.2f}x" for r in row["ratios"])
        p99 = "/".join(f"{r[1]:.2f}x" for r in row["ratios"])
        print(f"| {name} | {len(row['ms'])} | {statistics.median(row['ms']):.0f} | {percentile(row['ms'], 99):.0f} | {p50} | {p99} | "
              f"{row['searches'] / row['cells']:.2f} |")


if __name__ == "__main__":
    main()
