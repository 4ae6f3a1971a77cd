#!/usr/bin/env python3
"""The civil time zone and its UTC offsets from PyPI's timezonefinder (timezone-boundary-builder's polygons, not the
grid Backdrop compiles from them) and Python's zoneinfo (the system's tzdata), at places spread over the world, for the
Swift tests' check of ZoneGrid and CivilClock (Tests/BackdropTests/CivilTimeTests.swift).

usage: timezonefinder_oracle.py [--check | --solar-error]
Writes Tests/BackdropTests/Fixtures/zones-timezonefinder.json; with --check, computes it again and fails unless the
committed file is exactly what timezonefinder gives (so the fixture can only be its own answers). With --solar-error,
reads the committed file and prints the share of land (its uniform points in a zone of a country, not the sea's
Etc/GMT zones) whose civil clock is within an hour of local mean solar time, in January and in July: how often a
reading of the sun by solar time alone would land within the hour either side of a phase boundary
(docs/photos.md).
Places: 6,000 points uniform on the sphere between 60° S and 75° N (seeded), and 2,000 within 30 km of the places
photos come from most (seeded around 40 cities), each with the zone's name and its offsets on 15 January and 15 July
2026 at noon UTC, in seconds.
"""
import json
import math
import os
import random
import sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from timezonefinder import TimezoneFinder

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "BackdropTests", "Fixtures", "zones-timezonefinder.json")
DATES = [datetime(2026, 1, 15, 12, tzinfo=timezone.utc), datetime(2026, 7, 15, 12, tzinfo=timezone.utc)]
CITIES = [(48.86, 2.35), (51.51, -0.13), (40.42, -3.70), (41.90, 12.50), (52.52, 13.40), (59.33, 18.07), (38.72, -9.14),
          (40.71, -74.01), (34.05, -118.24), (41.88, -87.63), (19.43, -99.13), (-23.55, -46.63), (-34.60, -58.38),
          (-33.87, 151.21), (-37.81, 144.96), (-36.85, 174.76), (35.68, 139.69), (37.57, 126.98), (39.90, 116.41),
          (31.23, 121.47), (22.32, 114.17), (1.35, 103.82), (13.76, 100.50), (28.61, 77.21), (19.08, 72.88),
          (22.57, 88.36), (27.72, 85.32), (25.20, 55.27), (41.01, 28.98), (55.76, 37.62), (30.04, 31.24),
          (-1.29, 36.82), (6.52, 3.38), (-33.92, 18.42), (64.15, -21.94), (49.28, -123.12), (45.50, -73.57),
          (21.31, -157.86), (61.22, -149.90), (-12.05, -77.04)]


def offsets(name):
    return [int(ZoneInfo(name).utcoffset(when).total_seconds()) for when in DATES]


def table():
    finder = TimezoneFinder()
    rng = random.Random(2026)
    points = []
    while len(points) < 6000:
        latitude = math.degrees(math.asin(rng.uniform(-1, 1)))
        if -60 <= latitude <= 75:
            points.append((latitude, rng.uniform(-180, 180)))
    for index in range(2000):
        latitude, longitude = CITIES[index % len(CITIES)]
        distance, bearing = 30 * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
        points.append((latitude + distance / 111.2 * math.cos(bearing),
                       longitude + distance / (111.2 * math.cos(math.radians(latitude))) * math.sin(bearing)))
    rows = []
    for latitude, longitude in points:
        latitude, longitude = round(latitude, 4), round(longitude, 4)
        name = finder.timezone_at(lng=longitude, lat=latitude)
        rows.append([latitude, longitude, name] + offsets(name))
    return {"about": "timezonefinder 9.0.0 (timezone-boundary-builder 2026c) and zoneinfo; see timezonefinder_oracle.py",
            "dates": [int(when.timestamp()) for when in DATES], "rows": rows}


def solar_error():
    with open(FIXTURE) as handle:
        rows = json.load(handle)["rows"][:6000]  # the uniform points; the 2,000 near cities would weigh cities
    land = [row for row in rows if not row[2].startswith("Etc/")]
    for index, month in enumerate(["January", "July"]):
        within = sum(abs(row[3 + index] - row[1] * 240) <= 3600 for row in land)
        print(f"{month}: civil clock within an hour of solar time on {100 * within / len(land):.0f} % of land "
              f"({within} of {len(land)} points)")


def main():
    if sys.argv[1:] == ["--solar-error"]:
        solar_error()
        return
    text = json.dumps(table(), separators=(",", ":")) + "\n"
    if sys.argv[1:] == ["--check"]:
        with open(FIXTURE) as handle:
            committed = json.load(handle)
        fresh = json.loads(text)
        if committed["rows"] != fresh["rows"]:
            sys.exit("zones-timezonefinder.json is not what timezonefinder and zoneinfo give: run timezonefinder_oracle.py")
        print("zones-timezonefinder.json: timezonefinder's own answers")
        return
    with open(FIXTURE, "w") as handle:
        handle.write(text)
    print(f"wrote {FIXTURE}")


if __name__ == "__main__":
    main()
