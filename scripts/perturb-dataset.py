#!/usr/bin/env python3
"""Copies of a labelled dataset under photometric and geometric changes, labels kept valid.

How robust is a counter to what the fixtures did not render? Score the same images mirrored,
turned, under another gamma, a colour cast, haze, another exposure, or compressed harder, and
compare with the original (`cellqa run` on each output folder). Labels follow the image (a
mirror moves the cells and reorders the grid corners so that they stay clockwise from
top-left; a turn moves them and the corners, keeps the cells whose centre stays in the
picture, gives the crop's size and drops `expect`, whose counts no longer hold); every other
field of a label is kept, so tags (blank-control ...) still apply.

Usage (python3 with numpy and Pillow; not part of CI):
  python3 scripts/perturb-dataset.py DATASET OUT [--only NAME ...]
  cellqa run OUT/NAME --acceptance ACCEPTANCE.json     # for each NAME

Writes OUT/NAME/ for each change (names below); images of the dataset without a label next to
them (<stem>.json) are skipped. The dataset is only read.
"""
import argparse
import glob
import json
import os

import numpy as np
from PIL import Image, ImageFilter


def as_image(a):
    """The float RGB array `a` as an 8-bit Pillow image (rounded, clipped to 0 ... 255)."""
    return Image.fromarray(np.clip(np.round(a), 0, 255).astype(np.uint8))


def blurred(a, sigma):
    """The float RGB array `a` blurred with a Gaussian of `sigma` pixels (Pillow's)."""
    return np.asarray(as_image(a).filter(ImageFilter.GaussianBlur(sigma))).astype(np.float32)


def noise(a, sigma):
    """Gaussian noise the shape of `a`, drawn from a seed the image's own pixels give, so that a
    second run writes the same files."""
    rng = np.random.default_rng(int(a.sum()) % (1 << 32))
    return rng.normal(0, sigma, a.shape)


def shading(a):
    """Per-pixel factor (height x width x 1): 0.55 at the left edge rising linearly to 1."""
    width = a.shape[1]
    return (0.55 + 0.45 * np.arange(width) / max(1, width - 1))[None, :, None]


def middle(width, height):
    """The middle two thirds of a width x height picture, which a turn of up to 15 degrees
    fills: its left and top offsets and its size, pixels."""
    x0, y0 = width // 6, height // 6
    return x0, y0, width - 2 * x0, height - 2 * y0


def turned(a, degrees):
    """The float RGB array `a` turned `degrees` anticlockwise about its centre (bicubic), then
    cropped to its middle (`middle`)."""
    image = as_image(a)
    if degrees:
        image = image.rotate(degrees, resample=Image.BICUBIC)
    x0, y0, w, h = middle(a.shape[1], a.shape[0])
    return np.asarray(image.crop((x0, y0, x0 + w, y0 + h))).astype(np.float32)


def turned_point(x, y, degrees, width, height):
    """Where pixel (x, y) lands under `turned`: Pillow turns about the image's centre
    (width / 2, height / 2) in pixel-corner coordinates, i.e. (width - 1) / 2 in pixel-centre ones."""
    t = np.radians(degrees)
    cx, cy = (width - 1) / 2, (height - 1) / 2
    dx, dy = x - cx, y - cy
    x0, y0, _, _ = middle(width, height)
    # Anticlockwise on screen (y down): x' = cx + dx cos + dy sin, y' = cy - dx sin + dy cos.
    return cx + dx * np.cos(t) + dy * np.sin(t) - x0, cy - dx * np.sin(t) + dy * np.cos(t) - y0


def turned_label(label, degrees, width, height):
    label = json.loads(json.dumps(label))
    _, _, cw, ch = middle(width, height)
    cells = []
    for cell in label.get("cells", []):
        x, y = turned_point(cell["x"], cell["y"], degrees, width, height)
        if 0 <= x <= cw - 1 and 0 <= y <= ch - 1:
            cell["x"], cell["y"] = round(float(x), 3), round(float(y), 3)
            cells.append(cell)
    label["cells"] = cells
    grid = label.get("grid")
    if isinstance(grid, dict) and isinstance(grid.get("corners"), list) and len(grid["corners"]) == 4:
        grid["corners"] = [[round(float(v), 3) for v in turned_point(x, y, degrees, width, height)]
                           for x, y in grid["corners"]]
    for key, value in (("width", cw), ("height", ch)):
        if key in label:
            label[key] = value
    label.pop("expect", None)
    return label


# name: (what it does, function of the float RGB array, JPEG quality or None to keep the format)
CHANGES = {
    "mirror": ("mirrored left to right (labels and grid corners moved)", lambda a: a[:, ::-1], None),
    "gamma07": ("gamma 0.7 (brighter mid-tones)", lambda a: 255 * (a / 255) ** 0.7, None),
    "gamma14": ("gamma 1.4 (darker mid-tones)", lambda a: 255 * (a / 255) ** 1.4, None),
    "warm": ("warm lamp: channels x 1.08, 1.0, 0.78", lambda a: a * np.array([1.08, 1.0, 0.78]), None),
    "cool": ("cool lamp: channels x 0.85, 0.95, 1.05", lambda a: a * np.array([0.85, 0.95, 1.05]), None),
    "haze": ("haze: 0.6 x + 86 (contrast to 60 %)", lambda a: 0.6 * a + 86, None),
    "dark": ("under-exposed: x 0.55", lambda a: a * 0.55, None),
    "q40": ("re-encoded as JPEG quality 40", lambda a: a, 40),
    "blur12": ("defocused: Gaussian blur of sigma 1.2 px", lambda a: blurred(a, 1.2), None),
    "noise8": ("sensor noise: Gaussian, sigma 8 levels per channel", lambda a: a + noise(a, 8), None),
    "shading": ("uneven light: brightness falling to 55 % at the left edge", lambda a: a * shading(a), None),
    "warm-q60": ("warm lamp, then JPEG quality 60", lambda a: a * np.array([1.08, 1.0, 0.75]), 60),
}

# The geometric changes (`turned`), by the degrees each turns; `crop` (0) is the turns' reference.
TURNS = {"crop": 0, "turn5": 5, "turn15": 15}
for _name, _degrees in TURNS.items():
    CHANGES[_name] = (f"turned {_degrees} degrees anticlockwise, middle two thirds" if _degrees
                      else "the middle two thirds each way (the turns' reference)",
                      lambda a, d=_degrees: turned(a, d), None)


def image_for(label_path):
    stem = label_path[: -len(".json")]
    for ext in (".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"):
        if os.path.exists(stem + ext):
            return stem + ext
    return None


def mirrored_label(label, width):
    label = json.loads(json.dumps(label))
    for cell in label.get("cells", []):
        cell["x"] = round(width - 1 - cell["x"], 3)
    grid = label.get("grid")
    if isinstance(grid, dict) and isinstance(grid.get("corners"), list) and len(grid["corners"]) == 4:
        c = [[width - 1 - x, y] for x, y in grid["corners"]]
        # Mirrored, the top-right corner becomes the top-left: reorder to stay clockwise.
        grid["corners"] = [c[1], c[0], c[3], c[2]]
    return label


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset", help="folder of images with labels-v1 JSON beside them")
    ap.add_argument("out", help="output folder (one subfolder per change)")
    ap.add_argument("--only", nargs="*", choices=sorted(CHANGES), help="changes to make (default: all)")
    args = ap.parse_args()
    if os.path.abspath(args.out) == os.path.abspath(args.dataset):
        ap.error("OUT must not be the dataset folder")
    labels = sorted(glob.glob(os.path.join(args.dataset, "*.json")))
    pairs = [(p, image_for(p)) for p in labels]
    pairs = [(p, i) for p, i in pairs if i is not None]
    if not pairs:
        ap.error(f"no image with a label beside it in {args.dataset}")
    for name in args.only or sorted(CHANGES):
        what, change, quality = CHANGES[name]
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        for label_path, image_path in pairs:
            with open(label_path) as f:
                label = json.load(f)
            a = np.asarray(Image.open(image_path).convert("RGB")).astype(np.float32)
            out = as_image(change(a))
            stem = os.path.splitext(os.path.basename(image_path))[0]
            jpeg = quality is not None or image_path.lower().endswith((".jpg", ".jpeg"))
            ext = ".jpg" if jpeg else ".png"
            if name == "mirror":
                label = mirrored_label(label, a.shape[1])
            if name in TURNS:
                label = turned_label(label, TURNS[name], a.shape[1], a.shape[0])
            label["image"] = stem + ext
            if jpeg:
                out.save(os.path.join(folder, stem + ext), quality=quality or 90)
            else:
                out.save(os.path.join(folder, stem + ext), compress_level=1)
            with open(os.path.join(folder, stem + ".json"), "w") as f:
                json.dump(label, f)
        print(f"{folder}: {len(pairs)} images, {what}")


if __name__ == "__main__":
    main()
