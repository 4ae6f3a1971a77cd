#!/usr/bin/env python3
"""How far civil time is from local mean solar time, the clock Backdrop reads a photo's `date_taken` by.

Flickr gives the time a photo was taken as the camera's wall clock, with no zone. Backdrop reads it as local mean solar
time (UTC + longitude / 15 h) and calls a phase unknown unless it holds an hour before and after. This measures the
error of that reading against the civil time zones (timezonefinder's polygons, the system's tzdata): over a 1-degree
grid of land (ocean cells, which timezonefinder names Etc/GMT..., left out), weighted by area, in January and July
(summer time), and at a few places. Prints Markdown for the README.

usage: solar_time.py   (needs timezonefinder; `make bench` installs it into the bench's venv)
"""
import math
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from timezonefinder import TimezoneFinder

DATES = {"January": datetime(2026, 1, 15, 12, tzinfo=timezone.utc), "July": datetime(2026, 7, 15, 12, tzinfo=timezone.utc)}
BUCKETS = [(0, 0.5), (0.5, 1), (1, 1.5), (1.5, 2), (2, 3), (3, 24)]
PLACES = [("Reykjavík", 64.15, -21.94), ("Madrid", 40.42, -3.70), ("Paris", 48.86, 2.35), ("London", 51.51, -0.13),
          ("New York", 40.71, -74.01), ("Buenos Aires", -34.60, -58.38), ("Mumbai", 19.08, 72.88), ("Kashgar", 39.47, 75.99),
          ("Beijing", 39.90, 116.41), ("Sydney", -33.87, 151.21)]


def error(finder, lat, lon, when):
    """Civil clock minus local mean solar time, in hours; None at sea."""
    name = finder.timezone_at(lng=lon, lat=lat)
    if not name or name.startswith("Etc/"):
        return None
    offset = ZoneInfo(name).utcoffset(when).total_seconds() / 3600
    return offset - lon / 15


def main():
    finder = TimezoneFinder()
    shares = {}
    for month, when in DATES.items():
        weights = [0.0] * len(BUCKETS)
        total = 0.0
        for lat in range(-56, 72):
            for lon in range(-180, 180):
                e = error(finder, lat + 0.5, lon + 0.5, when)
                if e is None:
                    continue
                w = math.cos(math.radians(lat + 0.5))
                total += w
                for i, (lo, hi) in enumerate(BUCKETS):
                    if lo <= abs(e) < hi:
                        weights[i] += w
        shares[month] = [w / total for w in weights]
    print("| civil time minus solar time | share of land, January | share of land, July |")
    print("|---|---|---|")
    for i, (lo, hi) in enumerate(BUCKETS):
        label = f"{lo}–{hi} h" if hi < 24 else f"over {lo} h"
        print(f"| {label} | {shares['January'][i] * 100:.0f} % | {shares['July'][i] * 100:.0f} % |")
    print()
    print("| place | January | July |")
    print("|---|---|---|")
    for name, lat, lon in PLACES:
        cells = [error(finder, lat, lon, when) for when in DATES.values()]
        print(f"| {name} | {cells[0]:+.1f} h | {cells[1]:+.1f} h |")


if __name__ == "__main__":
    main()
