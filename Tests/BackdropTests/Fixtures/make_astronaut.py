#!/usr/bin/env python3
"""astronaut.jpg: a portrait, for the face detector and the ranking of photos of people (PhotoContentTests,
SafetyTests). scikit-image's bundled `astronaut` (Eileen Collins, NASA photo, public domain), taken from the
scikit-image 0.26.0 wheel on PyPI (skimage/data/astronaut.png, 512x512) and stored as a JPEG at quality 88.

    pip download --no-deps scikit-image==0.26.0 && unzip -j scikit_image-*.whl skimage/data/astronaut.png
    python3 make_astronaut.py astronaut.png
"""
import os
import sys

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    Image.open(sys.argv[1]).convert("RGB").save(os.path.join(HERE, "astronaut.jpg"), quality=88)
