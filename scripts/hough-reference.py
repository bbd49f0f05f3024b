#!/usr/bin/env python3
"""A tuned OpenCV HoughCircles counter, scored with the labels-v1 matching rule.

The issue measures cellqa against "a tuned OpenCV HoughCircles pipeline" on its held-out
synthetic set (F1 0.915 there). This script is that kind of reference for our own stand-in
sets, so a set's difficulty can be told apart from cellqa's weakness on it: a set where the
reference scores far below 0.915 is harder than the held-out set, one where it scores near
0.915 while cellqa drops is a set that shows a cellqa weakness.

    scripts/hough-reference.py DIR [DIR...] [--tune] [--params p1,p2,minDist,blur]
    scripts/hough-reference.py DIR --misses REPORT_DIR [--params ...]

With `--misses`, the cells a `cellqa run` report (its detections.csv) missed that the
reference finds are listed as `IMAGE X Y R` lines, by condition: where cellqa is weaker than
the yardstick, ready for `cellqa count IMAGE --explain X,Y`.

Pipeline per image: grey (OpenCV's BGR -> grey), a Gaussian blur of sigma `blur` px (none at
0), `cv2.HoughCircles` (HOUGH_GRADIENT, dp 1, Canny high threshold p1, accumulator threshold
p2, centres at least minDist px apart, radii 5-12 px: the held-out set's cell sizes).
`--tune` searches p1, p2, minDist and blur for the best pooled F1 of each DIR (tuned on the
set it is scored on: an upper bound for a reference tuned elsewhere). Matching follows
labels-v1: one-to-one assignment, a prediction may pair with a labelled cell within 0.5 r of
its centre (5 px without r), maximum matching, then minimum total distance.

Development tool: needs numpy, scipy and opencv-python-headless (pip), not part of CI.
"""
import argparse
import csv
import itertools
import json
import os
import sys

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

IMAGE_EXTS = (".png", ".jpg", ".jpeg")
CONDITIONS = ("standard", "dense", "sparse", "blank", "hard")


def load_set(folder):
    items = []
    for name in sorted(os.listdir(folder)):
        stem, ext = os.path.splitext(name)
        if ext.lower() not in IMAGE_EXTS:
            continue
        label_path = os.path.join(folder, stem + ".json")
        if not os.path.exists(label_path):
            continue
        with open(label_path) as f:
            label = json.load(f)
        cells = [(c["x"], c["y"], c.get("r")) for c in label.get("cells", [])]
        tags = label.get("tags", [])
        blank = "blank-control" in tags
        condition = next((t for t in tags if t in CONDITIONS), "other")
        grey = cv2.imread(os.path.join(folder, name), cv2.IMREAD_GRAYSCALE)
        if grey is None:
            print(f"{name}: cannot decode, skipped", file=sys.stderr)
            continue
        items.append((name, grey, cells, blank, condition))
    return items


def match_count(pred, cells):
    """Matched pairs under the labels-v1 rule (maximum matching, then least distance)."""
    if len(pred) == 0 or len(cells) == 0:
        return 0
    p = np.asarray(pred, dtype=np.float64)[:, :2]
    c = np.asarray([(x, y) for x, y, _ in cells], dtype=np.float64)
    allowed = np.asarray([0.5 * r if r else 5.0 for _, _, r in cells])
    d = np.hypot(p[:, None, 0] - c[None, :, 0], p[:, None, 1] - c[None, :, 1])
    ok = d <= allowed[None, :]
    # An infeasible pair costs more than every feasible assignment together, so the optimum
    # first maximises the number of feasible pairs, then minimises their distance.
    big = 1.0 + d[ok].sum() if ok.any() else 1.0
    rows, cols = linear_sum_assignment(np.where(ok, d, big))
    return int(ok[rows, cols].sum())


def blurred(grey, sigma):
    return grey if sigma <= 0 else cv2.GaussianBlur(grey, (0, 0), sigma)


def detect(image, p1, p2, min_dist):
    found = cv2.HoughCircles(image, cv2.HOUGH_GRADIENT, dp=1, minDist=min_dist,
                             param1=p1, param2=p2, minRadius=5, maxRadius=12)
    return [] if found is None else found[0].tolist()


def score(items, params, cache, by_condition=None):
    p1, p2, min_dist, sigma = params
    tp = fp = fn = blank_fp = blanks = 0
    for name, grey, cells, blank, condition in items:
        key = (name, sigma)
        if key not in cache:
            cache[key] = blurred(grey, sigma)
        pred = detect(cache[key], p1, p2, min_dist)
        m = match_count(pred, cells)
        tp += m
        fp += len(pred) - m
        fn += len(cells) - m
        if by_condition is not None:
            row = by_condition.setdefault(condition, [0, 0, 0])
            row[0] += m
            row[1] += len(pred) - m
            row[2] += len(cells) - m
        if blank:
            blanks += 1
            blank_fp += len(pred)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0
    return f1, tp, fp, fn, blank_fp, blanks


def report(folder, params, result, by_condition):
    f1, tp, fp, fn, blank_fp, blanks = result
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    per_blank = f"{blank_fp / blanks:.1f}" if blanks else "n/a"
    print(f"{folder}: p1 {params[0]} p2 {params[1]} minDist {params[2]} blur {params[3]}  "
          f"P {p:.4f} R {r:.4f} F1 {f1:.4f}  TP/FP/FN {tp}/{fp}/{fn}  "
          f"blank detections per image {per_blank}")
    for condition, (tp, fp, fn) in sorted(by_condition.items()):
        f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0
        print(f"    {condition:10s} TP/FP/FN {tp}/{fp}/{fn}  F1 {f1:.4f}")
    sys.stdout.flush()


def list_misses(items, params, report_dir):
    """Prints the cells the report missed (status FN) that the reference finds."""
    p1, p2, min_dist, sigma = params
    missed = {}
    with open(os.path.join(report_dir, "detections.csv")) as f:
        for row in csv.DictReader(f):
            if row["status"] == "FN":
                name = os.path.basename(row["path"])
                r = float(row["label_r"]) if row["label_r"] else None
                missed.setdefault(name, []).append((float(row["label_x"]), float(row["label_y"]), r))
    by_condition = {}
    for name, grey, _, _, condition in items:
        cells = missed.get(name, [])
        pred = detect(blurred(grey, sigma), p1, p2, min_dist) if cells else []
        found = [c for c in cells if match_count(pred, [c]) == 1]
        row = by_condition.setdefault(condition, [0, 0])
        row[0] += len(found)
        row[1] += len(cells)
        for x, y, r in found:
            print(f"{name} {x} {y} {r if r is not None else ''}".rstrip())
    for condition, (found, total) in sorted(by_condition.items()):
        print(f"# {condition}: the reference finds {found} of cellqa's {total} missed cells", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+", help="dataset folders: images beside labels-v1 JSON")
    ap.add_argument("--tune", action="store_true", help="search the parameters per folder")
    ap.add_argument("--misses", metavar="REPORT_DIR",
                    help="list the cells this cellqa report missed that the reference finds")
    ap.add_argument("--params", default="40,15,10,1.0",
                    help="p1,p2,minDist,blur when not tuning (default %(default)s)")
    args = ap.parse_args()
    fixed = tuple(float(v) for v in args.params.split(","))
    for folder in args.dirs:
        items = load_set(folder)
        cache = {}
        params = fixed
        if args.misses:
            list_misses(items, params, args.misses)
            continue
        if args.tune:
            grid = itertools.product([25, 40, 60], [11, 13, 15, 18], [7, 10], [0.0, 1.0, 2.0])
            params = max(grid, key=lambda g: score(items, g, cache)[0])
        by_condition = {}
        report(folder, params, score(items, params, cache, by_condition), by_condition)


if __name__ == "__main__":
    main()
