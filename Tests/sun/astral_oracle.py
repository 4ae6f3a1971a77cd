#!/usr/bin/env python3
"""The sun's elevation and azimuth from PyPI's `astral` (an independent implementation) over a grid of places and times,
for the Swift tests' check of SunPhase (Tests/BackdropTests/SunPhaseTests.swift).

usage: astral_oracle.py [--check]
Writes Tests/BackdropTests/Fixtures/sun-astral.json; with --check, computes it again and fails unless the committed
file is exactly what astral gives (so the fixture can only be astral's own answers).
Grid: latitudes from pole to pole (polar day and night included), longitudes around the world, the 2026 equinoxes
and solstices and two other days, every three hours in UTC: elevation without refraction and azimuth, in degrees.
"""
import datetime
import json
import os
import sys

from astral import Observer
from astral.sun import azimuth, elevation

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "BackdropTests", "Fixtures", "sun-astral.json")
LATITUDES = [-89.5, -78, -66.6, -45, -23.4, 0, 12.5, 23.4, 48.85, 66.6, 78, 89.5]
LONGITUDES = [-179.5, -122.4, -58.4, -0.1, 2.35, 77.2, 139.7, 179.5]
DAYS = ["2026-03-20", "2026-06-21", "2026-09-23", "2026-12-21", "2026-02-14", "2026-11-25"]
HOURS = range(0, 24, 3)


def table():
    rows = []
    for day in DAYS:
        for hour in HOURS:
            moment = datetime.datetime.fromisoformat(day).replace(hour=hour, minute=7, tzinfo=datetime.timezone.utc)
            for lat in LATITUDES:
                for lon in LONGITUDES:
                    observer = Observer(lat, lon, 0)
                    rows.append([lat, lon, int(moment.timestamp()), round(elevation(observer, moment, with_refraction=False), 4),
                                 round(azimuth(observer, moment), 4)])
    return {"source": "astral 3.2, elevation without refraction; rows: latitude, longitude, unix time, elevation, azimuth",
            "rows": rows}


def main():
    text = json.dumps(table(), separators=(",", ":")) + "\n"
    if "--check" in sys.argv:
        same = open(FIXTURE).read() == text
        print(f"sun: {len(json.loads(text)['rows'])} rows; the committed fixture is astral's own: {'yes' if same else 'NO'}")
        print(f"sun: {1 if same else 0} passed, {0 if same else 1} failed")
        sys.exit(0 if same else 1)
    with open(FIXTURE, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
