#!/usr/bin/env python3
"""Writes Sources/Backdrop/Imaging/Analysis/Faces/FaceModel.swift from OpenCV's LBP frontal-face cascade as Debian's
opencv-data ships it (/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml), and its stamp
(Tools/stamps/face-model.json); or checks that the file is what it would write (--check: `make test` runs it, so the
model compiled in is the package's), by the stamp when the tool and the model are as it records, else by making it again
(--check --full always does).

The Swift file holds the cascade as plain numbers in one string, read once at start (``FaceCascade``):
  line 1: window width and height
  then per stage: `stage THRESHOLD COUNT`, then COUNT lines `FEATURE S0 .. S7 PASS FAIL`
  (the LBP code's 256-bit subset as eight 32-bit words, the leaf values when the code is in it and when not)
  then `features COUNT` and COUNT blocks `X Y W H`, eight to a line.
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import stamps

MODEL = Path("/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml")
OUTPUT = Path(__file__).resolve().parent.parent / "Sources/Backdrop/Imaging/Analysis/Faces/FaceModel.swift"


def numbers(model: Path) -> str:
    cascade = ET.parse(model).getroot().find("cascade")
    lines = [f"{cascade.findtext('width').strip()} {cascade.findtext('height').strip()}"]
    for stage in cascade.find("stages"):
        weak = stage.find("weakClassifiers")
        lines.append(f"stage {float(stage.findtext('stageThreshold')):.17g} {len(weak)}")
        for classifier in weak:
            nodes = classifier.findtext("internalNodes").split()
            assert nodes[0] == "0" and nodes[1] == "-1" and len(nodes) == 11, "stumps with an 8-word subset only"
            leaves = [f"{float(v):.17g}" for v in classifier.findtext("leafValues").split()]
            lines.append(" ".join(nodes[2:] + leaves))
    features = cascade.find("features")
    lines.append(f"features {len(features)}")
    rects = [" ".join(f.findtext("rect").split()) for f in features]
    lines += ["  ".join(rects[i:i + 8]) for i in range(0, len(rects), 8)]
    return "\n".join(lines)


def swift(model: Path) -> str:
    indented = "\n".join("        " + line for line in numbers(model).split("\n"))
    return f'''// Made by Tools/face_model.py from {model} (Debian 12's opencv-data 4.6.0):
// OpenCV's LBP frontal-face cascade, under OpenCV's licences as Debian records them (Apache-2.0 and BSD-3-Clause,
// /usr/share/doc/opencv-data/copyright: Copyright 2000-2022 Intel Corporation, Willow Garage, NVIDIA, AMD, OpenCV
// Foundation, Itseez, Xperience AI and the OpenCV contributors). Do not edit; run the tool.

extension FaceCascade {{
    /// The cascade's numbers (the format is in Tools/face_model.py).
    static let frontalFaceNumbers = """
{indented}
        """
}}
'''


if __name__ == "__main__":
    made_from = stamps.inputs(files=[__file__, MODEL])
    if "--check" in sys.argv:
        stamps.check("face-model", OUTPUT, made_from, lambda: swift(MODEL), full="--full" in sys.argv)
    else:
        stamps.write("face-model", OUTPUT, made_from, swift(MODEL))
