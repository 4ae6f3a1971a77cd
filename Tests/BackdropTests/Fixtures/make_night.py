"""Night photographs as a camera records them, for the quality gate's night limits (PhotoQualityTests): black sky over
half the frame or more, sensor noise, a skyline or shore in near-black, lit windows and street lamps that clip to white
with a soft glow, their reflections on water, stars. Seeded; writes JPEGs at quality 88, as cameras and Commons do."""
import sys
import numpy as np
from PIL import Image, ImageFilter

def glow(canvas, x, y, radius, colour, strength):
    h, w, _ = canvas.shape
    ys, xs = np.ogrid[:h, :w]
    d2 = (xs - x) ** 2 + (ys - y) ** 2
    g = np.exp(-d2 / (2.0 * radius * radius))[..., None] * strength
    canvas += g * np.array(colour)[None, None, :]

def scene(kind, seed, w=1600, h=1067):
    rng = np.random.default_rng(seed)
    img = np.zeros((h, w, 3))
    horizon = int(h * rng.uniform(0.5, 0.68))
    # the sky: black, a faint gradient of city light near the horizon
    grad = np.clip((np.arange(h) - horizon * 0.55) / (horizon * 0.45), 0, 1)[:, None, None]
    img += grad * np.array([14.0, 10.0, 18.0])[None, None, :] * (1.0 if kind != "stars" else 0.3)
    if kind == "stars":
        for _ in range(900):
            x, y = rng.integers(0, w), rng.integers(0, horizon)
            img[y, x] += rng.uniform(60, 255)
    # the land: buildings as a skyline of near-black blocks
    x = 0
    while x < w:
        bw = int(rng.uniform(30, 140)); top = horizon - int(rng.uniform(0, 260 if kind == "city" else 40))
        img[top:, x:x + bw] = rng.uniform(4, 16)
        if kind in ("city", "harbour"):
            for wy in range(top + 8, horizon, 14):
                for wx in range(x + 4, min(w, x + bw) - 6, 11):
                    if rng.random() < 0.35:
                        img[wy:wy + 6, wx:wx + 5] = np.array([255, rng.uniform(190, 235), rng.uniform(90, 150)])
        x += bw
    # street lamps: clipped cores with glows
    for _ in range(int(rng.integers(6, 16))):
        lx, ly = rng.uniform(0, w), rng.uniform(horizon - 60, h - 40)
        glow(img, lx, ly, rng.uniform(4, 16), (255, 200, 120), rng.uniform(1.0, 3.0))
    if kind == "harbour":  # water: the lights' reflections, smeared vertically
        water = img[horizon - (h - horizon):horizon][::-1].copy()
        refl = Image.fromarray(np.clip(water, 0, 255).astype(np.uint8)).filter(ImageFilter.BoxBlur(3))
        img[horizon:] = np.asarray(refl).astype(float)[:h - horizon] * 0.6
    if kind == "street":  # a lit street below: brighter, with a road in sodium light
        img[horizon:] += np.linspace(10, 70, h - horizon)[:, None, None] * np.array([1.0, 0.7, 0.35])[None, None, :]
    img += rng.normal(0, 2.2, img.shape)  # sensor noise, stronger in the dark
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.6))

if __name__ == "__main__":
    out = sys.argv[1]
    for i, kind in enumerate(["city", "harbour", "stars", "street"]):
        scene(kind, 20261126 + i).save(f"{out}/night-{kind}.jpg", quality=88)
