#!/usr/bin/env python3
"""Two builds of Backdrop side by side in one run: the cold path (search, download, render), the re-blends at other
blur values, cache hits against nginx, and the cluster of three replicas sharing through PostgreSQL.

usage: before_after.py --before PATH/TO/backdrop --after PATH/TO/backdrop --photos DIR --anchors DIR [--rounds 3]

How a refactoring is shown to slow nothing down: each round runs both builds one after the other (in alternating
order), and each figure is given as the median over rounds of after / before in the same round, since the machine's
speed drifts from round to round. The cold paths run first, then the clusters: a cold path measured right after a
cluster run (its PostgreSQL and replicas winding down) ran 10 % slower, for whichever build came second. Cache hits run through cache_hit.py with the before build as --compare.
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cold_path import measure, percentile  # noqa: E402


def cluster(backdrop, photos):
    """p50 and p99 (ms) of the replica alone and of three replicas sharing, from one round of cluster.py."""
    run = subprocess.run([sys.executable, os.path.join(HERE, "cluster.py"), "--backdrop", backdrop, "--photos", photos, "--rounds", "1"],
                         capture_output=True, text=True, timeout=1800, check=True)
    rows = {}
    for line in run.stdout.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"\d+", cells[2] or "x"):
            rows[cells[0]] = (float(cells[2]), float(cells[3]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--photos", required=True)
    ap.add_argument("--anchors", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    builds = {"before": os.path.abspath(a.before), "after": os.path.abspath(a.after)}
    photos = sorted(glob.glob(os.path.join(a.photos, "*.jpg")))

    def cold_figures(build):
        cold = measure(build, photos)
        return {"cold renders/s": cold["rate"], "cold p50": statistics.median(cold["cold"]), "cold p99": percentile(cold["cold"], 99),
                "re-blend p50": statistics.median(cold["warm"]), "re-blend p99": percentile(cold["warm"], 99)}

    def cluster_figures(build, photo_folder):
        shared = cluster(build, photo_folder)
        return {"cluster alone p50": shared["alone"][0], "cluster alone p99": shared["alone"][1],
                "3 replicas p50": shared["3 replicas, cells hashed"][0], "3 replicas p99": shared["3 replicas, cells hashed"][1]}
    figures = {name: [] for name in ("cold renders/s", "cold p50", "cold p99", "re-blend p50", "re-blend p99",
                                     "cluster alone p50", "cluster alone p99", "3 replicas p50", "3 replicas p99")}
    higher_is_better = {"cold renders/s"}
    runs = {name: [] for name in builds}
    # Each kind of run in a phase of its own, so that no measurement follows a heavier one (the cluster's
    # PostgreSQL and replicas winding down) for one build and not for the other.
    for measure_one in (cold_figures, lambda build: cluster_figures(build, a.photos)):
        for round_ in range(a.rounds):
            for name in (["before", "after"] if round_ % 2 == 0 else ["after", "before"]):
                figures_now = measure_one(builds[name])
                if len(runs[name]) <= round_:
                    runs[name].append({})
                runs[name][round_].update(figures_now)
    for round_ in range(a.rounds):
        for key in figures:
            figures[key].append((runs["before"][round_][key], runs["after"][round_][key]))
    print(f"\nBefore and after, {a.rounds} rounds, each build run in every round (ratios: after / before in the same round, median):\n")
    print("| figure | before | after | after vs before | better is |")
    print("|---|---|---|---|---|")
    for key, pairs in figures.items():
        before = statistics.median(p[0] for p in pairs)
        after = statistics.median(p[1] for p in pairs)
        ratio = statistics.median(p[1] / p[0] for p in pairs)
        print(f"| {key} | {before:.1f} | {after:.1f} | {ratio:.3f}x | {'higher' if key in higher_is_better else 'lower'} |")
    print("\nCache hits (cache_hit.py, the before build as --compare):")
    sys.stdout.flush()
    subprocess.run([sys.executable, os.path.join(HERE, "cache_hit.py"), "--backdrop", builds["after"], "--anchors", a.anchors,
                    "--compare", f"before={builds['before']}"], check=True, timeout=1800)


if __name__ == "__main__":
    main()
