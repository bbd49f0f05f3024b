#!/usr/bin/env python3
"""Brightfield views with cells and no counting-chamber ruling (numpy + Pillow only).

Why: a high-magnification view, or a sample slide, shows no ruling, and the grid stage
must then report "no-grid" rather than a chance ruling (with a made-up calibration and
concentration). The other generators always draw a ruling, so they cannot tell how often
that happens. Each view holds round cells (dark rim, lighter centre), a quarter of them in
small clumps, 0-3 straight fibres, vignetting and sensor noise; four densities by turns
(20, 80, 300, 900 cells). Labels-v1 JSON beside each image lists every cell drawn and no
calibration, so `cellqa run` scores detection too.

Usage (needs python3 with numpy and Pillow; not part of CI):
  python3 scripts/no-ruling-synth.py --out DIR [--seed 5] [--count 40]
  cellqa count DIR/*.png | grep -vc no-grid      # views given a ruling, plus the header
"""
import argparse
import json
import os

import numpy as np
from PIL import Image

W, H = 1920, 1080
DENSITIES = [20, 80, 300, 900]


def background(rng):
    """An empty vignetted field (float, about 200 in the middle) and its pixel coordinates."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    img = np.full((H, W), 200.0, np.float32)
    img *= 1 - (((xx - W / 2) / W) ** 2 + ((yy - H / 2) / H) ** 2) * rng.uniform(0.2, 1)
    return img, xx, yy


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="output folder (images and labels-v1 JSON)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--count", type=int, default=40)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    for i in range(args.count):
        img, xx, yy = background(rng)
        centres = []
        for _ in range(DENSITIES[i % len(DENSITIES)]):
            if centres and rng.random() < 0.4:
                # Beside an earlier cell: clumps.
                cx, cy = centres[rng.integers(len(centres))][:2]
                a, d = rng.uniform(0, 2 * np.pi), rng.uniform(12, 20)
                cx, cy = cx + d * np.cos(a), cy + d * np.sin(a)
            else:
                cx, cy = rng.uniform(0, W), rng.uniform(0, H)
            centres.append((cx, cy, rng.uniform(5, 11)))
        cells = []
        for cx, cy, r in centres:
            x0, x1 = int(max(0, cx - 2 * r)), int(min(W, cx + 2 * r))
            y0, y1 = int(max(0, cy - 2 * r)), int(min(H, cy + 2 * r))
            if x0 >= x1 or y0 >= y1:
                continue
            d = np.hypot(xx[y0:y1, x0:x1] - cx, yy[y0:y1, x0:x1] - cy) / r
            img[y0:y1, x0:x1] *= 1 - 0.5 * np.exp(-(((d - 1) / 0.15) ** 2)) + 0.15 * np.exp(-((d / 0.5) ** 2))
            if 0 <= cx <= W - 1 and 0 <= cy <= H - 1:
                cells.append({"x": round(float(cx), 3), "y": round(float(cy), 3), "r": round(float(r), 3),
                              "label": "live"})
        for _ in range(rng.integers(0, 4)):
            # A straight fibre through the view.
            a, c0, c1 = rng.uniform(0, np.pi), rng.uniform(0, W), rng.uniform(0, H)
            dist = np.abs((xx - c0) * np.sin(a) - (yy - c1) * np.cos(a))
            img *= 1 - 0.2 * np.exp(-((dist / 1.5) ** 2))
        img += rng.normal(0, rng.uniform(1, 6), img.shape)
        grey = np.clip(img, 0, 255)
        rgb = np.clip(np.stack([grey * 0.95, grey, grey * 0.9], -1), 0, 255).astype(np.uint8)
        name = f"no-ruling-{i:03d}"
        Image.fromarray(rgb).save(os.path.join(args.out, name + ".png"))
        label = {"version": 1, "image": name + ".png", "width": W, "height": H, "cells": cells,
                 "tags": ["synthetic", "no-ruling", f"density:{DENSITIES[i % len(DENSITIES)]}"]}
        with open(os.path.join(args.out, name + ".json"), "w") as f:
            json.dump(label, f, indent=1)


if __name__ == "__main__":
    main()
