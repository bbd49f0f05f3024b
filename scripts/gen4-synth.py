#!/usr/bin/env python3
"""gen4-synth: synthetic brightfield hemocytometer photographs with exact labels.

Written for cellqa's twenty-seventh session by a contributor who saw only the
label contract (labels-v1) and a short brief -- never the detection pipeline
nor the project's other synthetic generators -- so that its images are an
independent opinion of what the held-out acceptance set may look like.
It is a QA tool, not part of CI.

Usage:
    python3 scripts/gen4-synth.py --out DIR --seed N --per-condition K [--jobs J]

Writes K images for each of five conditions (standard, dense, sparse, blank,
hard) as gen4_<condition>_<NN>.png or .jpg (JPEG qualities 60-95), each with a
labels-v1 JSON file of the same stem beside it.  Every image has its own RNG
seeded by (seed, condition, index), so output is byte-identical for a given
seed and K whatever --jobs is.

What is modelled (image formation is done in linear light as
illumination x specimen transmission + stray light, then a sensor and a codec):

* Geometry.  A Neubauer-improved ruling (3 x 3 mm; large-square boundaries and
  the 200 um lines of the central column/row are triple lines; the corner and
  side squares have single lines every 250 um; the central square's 200 um
  squares are split into 4 x 4 single-line 50 um squares).  The microscope view
  is placed on the ruling at a random point (mostly central or corner squares,
  sometimes at the edge of the ruled area), with a scale chosen so that cells
  of 5-7.5 um radius come out 5-12 px (about 0.45-0.85 um/px, a 0.9-1.6 mm
  field), a rotation (up to ~4 deg usually, up to 10 deg when "tilted") and a
  small projective (keystone) term.  The pixel->ruling map is one homography,
  so the label's grid corners are exact under the same model.
* Ruling lines are etched grooves rendered from their distance in pixels
  (local scale from the homography): dark, dark with bright diffraction edges,
  bright (as with a slightly closed condenser, where grooves glint), or faint;
  1-6 px wide, "heavy" lines 4-6 px and high contrast; slight strength
  variation along the lines; faint scratches in the glass.
* Cells lie on the chamber floor (same focal plane as the ruling), placed
  uniformly with a no-overlap rule that allows touching (and a little
  squeezing), plus clumps (doublets in standard images, clusters of up to ~12
  in dense ones); they sit on lines and are cut by the border.  Shape: a
  slightly elliptical outline with small low-order harmonics.  Live cells are
  unstained and refractile: a dark membrane ring whose width and the interior
  brightness depend on a per-image focus offset (bright interior and sometimes
  a dark central spot above focus; grey interior and a bright phase halo
  below), plus fine granular texture.  Dead cells take up trypan blue: a
  Beer-Lambert absorption over a sphere-like thickness with per-channel
  extinction (red >> green > blue, so they look blue), a weaker, softer rim,
  little halo, more irregular outline, coarser granules; a few are only faintly
  stained.  Defocus turns a refractile (phase) cell's edge into broader
  intensity contrast, so strongly blurred live cells get a stronger, wider
  profile before the blur rather than fading away.
* Debris: small dark or refractile specks, irregular grey blobs with no
  membrane ring, fibres (random-walk curves), out-of-focus dust on the optics
  (soft rings/discs), air bubbles (thick dark meniscus ring; no cells inside),
  glare (additive stray light patches or streaks) and veiling flare.
* Optics: defocus blur of the specimen plane, uniform or as a gradient across
  the field (a tilted slide), vignetting, illumination gradients and mottling,
  colour casts (tungsten-yellow, neutral, cool, greenish), low contrast
  (condenser wide open).
* Sensor and processing: shot noise + read noise (some images photon starved),
  optional RGGB mosaic + bilinear demosaic (colour fringes), optional mono
  camera, gamma, optional in-camera sharpening, 8-bit quantisation, and PNG or
  JPEG (quality 60-95; "hard" images are mostly quality 60).

Labels (labels-v1): every drawn cell whose centre lies inside the image gets
{x, y, r, label}; x, y are the exact centres used for drawing in the
convention "origin at the centre of the top-left pixel" (pixel (row i,
column j) is sampled at x=j, y=i); r is the mean outline radius in pixels;
label is "live" or "dead".  Cells whose centres fall outside the image are
drawn (partly visible at the border) but not labelled; no centre is placed
within 1 px of the image boundary (x = -0.5 or x = width-0.5), so the
inside/outside decision is never a knife-edge.  Cells are never placed inside
bubbles.  The JSON also carries umPerPixel (at the image centre), dilution
(2.0: 1:1 trypan blue), the grid corners, tags, and a "gen4" block with the
rendering parameters (an unknown field, ignored by the harness).
"""

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from PIL import Image
from scipy import ndimage

W, H = 1920, 1080
CONDITIONS = ["standard", "dense", "sparse", "blank", "hard"]
GRID_UM = 3000.0

# Per-channel (R, G, B) extinction of trypan blue: it absorbs orange-red light.
TRYPAN_K = np.array([1.0, 0.82, 0.30], dtype=np.float32)


# ----------------------------------------------------------------------------
# small helpers


def lowfreq(rng, shape, cell):
    """Smooth random field, unit-ish amplitude, features about `cell` px."""
    gh = max(2, int(math.ceil(shape[0] / cell)) + 2)
    gw = max(2, int(math.ceil(shape[1] / cell)) + 2)
    g = rng.normal(size=(gh, gw)).astype(np.float32)
    g = ndimage.gaussian_filter(g, 0.8)
    g /= max(1e-6, float(g.std()))
    z = ndimage.zoom(g, (shape[0] / (gh - 2) * 1.0, shape[1] / (gw - 2) * 1.0), order=3)
    return np.ascontiguousarray(z[: shape[0], : shape[1]])


def patch_bounds(cx, cy, pad):
    x0 = max(0, int(math.floor(cx - pad)))
    x1 = min(W, int(math.ceil(cx + pad)) + 1)
    y0 = max(0, int(math.floor(cy - pad)))
    y1 = min(H, int(math.ceil(cy + pad)) + 1)
    return x0, x1, y0, y1


def patch_coords(x0, x1, y0, y1):
    yy, xx = np.mgrid[y0:y1, x0:x1]
    return xx.astype(np.float32), yy.astype(np.float32)


def outline(dx, dy, r, harm):
    """Signed distance to (t) and normalised radius (rho) for a harmonic outline.

    harm: list of (k, amplitude, phase); R(theta) = r * (1 + sum a cos(k(theta - p)))
    """
    dist = np.sqrt(dx * dx + dy * dy)
    th = np.arctan2(dy, dx)
    R = np.full_like(dist, 1.0)
    for k, a, p in harm:
        R += a * np.cos(k * (th - p))
    R = np.maximum(R, 0.25) * r
    return dist - R, dist / np.maximum(R, 1e-3)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))


# ----------------------------------------------------------------------------
# parameters


def choose(rng, items, p=None):
    return items[int(rng.choice(len(items), p=p))]


def sample_params(cond, rng):
    P = {"condition": cond}
    difficulties = set()
    if cond == "hard":
        pool = ["blur", "heavy-lines", "glare", "low-contrast", "noise", "jpeg-q60", "tilt", "debris"]
        k = int(rng.integers(4, 8))
        difficulties = set(pool[i] for i in rng.choice(len(pool), size=k, replace=False))
    P["difficulties"] = sorted(difficulties)

    # magnification: mean cell radius in px, and cell radius in um
    P["r_mean_px"] = float(rng.uniform(6.0, 10.0))
    r_um = float(rng.uniform(5.0, 7.5))
    P["um_per_px"] = float(np.clip(r_um / P["r_mean_px"], 0.45, 0.85))

    # view placement on the ruling (um)
    where = choose(rng, ["central", "corner", "side", "edge"], [0.45, 0.3, 0.17, 0.08])
    if where == "central":
        c = rng.uniform(1050, 1950, size=2)
    elif where == "corner":
        c = np.array([choose(rng, [500.0, 2500.0]), choose(rng, [500.0, 2500.0])]) + rng.uniform(-350, 350, 2)
    elif where == "side":
        a = choose(rng, [500.0, 2500.0])
        b = float(rng.uniform(1100, 1900))
        c = np.array([a, b]) if rng.random() < 0.5 else np.array([b, a])
        c = c + rng.uniform(-300, 300, 2)
    else:
        side = int(rng.integers(4))
        t = float(rng.uniform(200, 2800))
        off = float(rng.uniform(-350, 250))
        c = [np.array([-off, t]), np.array([3000 + off, t]), np.array([t, -off]), np.array([t, 3000 + off])][side]
    P["view"] = where
    P["view_centre_um"] = [float(c[0]), float(c[1])]
    tilt = "tilt" in difficulties or (cond != "hard" and rng.random() < 0.12)
    P["tilt"] = bool(tilt)
    rot_max = 10.0 if tilt else 4.0
    rot = float(rng.uniform(-rot_max, rot_max))
    if tilt and abs(rot) < 4:
        rot = math.copysign(rng.uniform(4, 10), rot)
    P["rotation_deg"] = rot
    pm = 5e-5 if tilt else 1.5e-5
    P["persp"] = [float(rng.uniform(-pm, pm)), float(rng.uniform(-pm, pm))]

    # ruling appearance
    heavy_p = {"standard": 0.15, "dense": 0.1, "sparse": 0.2, "blank": 0.3, "hard": 0.0}[cond]
    heavy = "heavy-lines" in difficulties or rng.random() < heavy_p
    P["heavy_lines"] = bool(heavy)
    if heavy:
        mode = choose(rng, ["dark", "dark-bright-edges", "bright"], [0.5, 0.3, 0.2])
        P["line_width_px"] = float(rng.uniform(4.0, 6.0))
        P["line_strength"] = float(rng.uniform(0.6, 0.9))
    else:
        mode = choose(rng, ["dark", "dark-bright-edges", "bright", "faint"], [0.35, 0.25, 0.2, 0.2])
        P["line_width_px"] = float(rng.uniform(1.0, 4.0))
        P["line_strength"] = float(rng.uniform(0.06, 0.16) if mode == "faint" else rng.uniform(0.2, 0.55))
    P["line_mode"] = mode
    P["triple_spacing_um"] = float(rng.uniform(5.0, 9.0))

    # cells
    n = {"standard": (50, 150), "dense": (300, 700), "sparse": (5, 25), "blank": (0, 0), "hard": (40, 200)}[cond]
    P["n_cells"] = int(rng.integers(n[0], n[1] + 1))
    P["dead_fraction"] = float({"standard": rng.uniform(0.05, 0.4), "dense": rng.uniform(0.05, 0.5),
                                "sparse": rng.uniform(0.0, 0.5), "blank": 0.0,
                                "hard": rng.uniform(0.05, 0.6)}[cond])
    P["clump_fraction"] = float({"standard": rng.uniform(0.05, 0.2), "dense": rng.uniform(0.35, 0.7),
                                 "sparse": rng.uniform(0.0, 0.1), "blank": 0.0,
                                 "hard": rng.uniform(0.1, 0.4)}[cond])
    P["focus"] = float(rng.uniform(-1.0, 1.0))

    # blur of the specimen plane
    if "blur" in difficulties:
        if rng.random() < 0.5:
            P["blur"] = ["uniform", float(rng.uniform(1.8, 3.5))]
        else:
            P["blur"] = ["gradient", float(rng.uniform(0.3, 1.0)), float(rng.uniform(2.8, 4.5)), float(rng.uniform(0, 2 * math.pi))]
    else:
        top = {"standard": 1.0, "dense": 1.0, "sparse": 1.4, "blank": 1.8, "hard": 1.2}[cond]
        if tilt or rng.random() < 0.2:
            P["blur"] = ["gradient", float(rng.uniform(0.0, 0.6)), float(rng.uniform(1.2, 2.6)), float(rng.uniform(0, 2 * math.pi))]
        else:
            P["blur"] = ["uniform", float(rng.uniform(0.0, top))]

    # debris
    dmul = {"standard": 1.0, "dense": 0.8, "sparse": 1.0, "blank": 2.0, "hard": 1.2}[cond]
    if "debris" in difficulties:
        dmul = 3.0
    P["debris"] = {
        "specks": int(rng.uniform(10, 120) * dmul),
        "blobs": int(rng.uniform(0, 8) * dmul),
        "fibres": int(rng.uniform(0, 2.5) * dmul),
        "dust": int(rng.uniform(0, 6) * dmul),
        "scratches": int(rng.uniform(0, 3)),
    }
    bubble_p = {"standard": 0.06, "dense": 0.05, "sparse": 0.1, "blank": 0.3, "hard": 0.3}[cond]
    P["bubbles"] = int(rng.integers(1, 3)) if rng.random() < bubble_p else 0

    glare_p = {"standard": 0.12, "dense": 0.1, "sparse": 0.15, "blank": 0.35, "hard": 0.2}[cond]
    P["glare"] = bool("glare" in difficulties or rng.random() < glare_p)
    P["low_contrast"] = float(rng.uniform(0.5, 0.72)) if "low-contrast" in difficulties else (
        float(rng.uniform(0.7, 0.9)) if rng.random() < 0.1 else 1.0)

    # illumination
    P["cast"] = choose(rng, ["warm", "neutral", "cool", "greenish"], [0.4, 0.35, 0.15, 0.1])
    P["brightness"] = float(rng.uniform(0.35, 0.8))
    P["vignette"] = float(rng.uniform(0.03, 0.4))

    # sensor
    if "noise" in difficulties:
        P["full_well"] = float(rng.uniform(500, 1500))
        P["read_noise"] = float(rng.uniform(2, 6))
    else:
        P["full_well"] = float(math.exp(rng.uniform(math.log(1500), math.log(25000))))
        P["read_noise"] = float(rng.uniform(1, 8))
    P["demosaic"] = bool(rng.random() < 0.5)
    P["mono"] = bool(cond in ("standard", "hard", "sparse") and rng.random() < 0.08)
    P["sharpen"] = float(rng.uniform(0.3, 0.9)) if rng.random() < 0.3 else 0.0

    # file format
    if "jpeg-q60" in difficulties:
        P["format"] = ["jpeg", 60]
    elif rng.random() < 0.55:
        q = choose(rng, [60, 60, 70, 75, 80, 85, 90, 95])
        P["format"] = ["jpeg", int(q)]
    else:
        P["format"] = ["png", 0]
    return P


# ----------------------------------------------------------------------------
# geometry


class View:
    """Pixel <-> ruling (um) map: a homography (rotation, scale, keystone)."""

    def __init__(self, P):
        self.s = P["um_per_px"]
        self.c = np.array(P["view_centre_um"], dtype=np.float64)
        a = math.radians(P["rotation_deg"])
        self.R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        self.p1, self.p2 = P["persp"]

    def pix_to_um(self, x, y):
        xc = x - (W - 1) / 2.0
        yc = y - (H - 1) / 2.0
        den = 1.0 + self.p1 * xc + self.p2 * yc
        xp, yp = xc / den, yc / den
        u = self.c[0] + self.s * (self.R[0, 0] * xp + self.R[0, 1] * yp)
        v = self.c[1] + self.s * (self.R[1, 0] * xp + self.R[1, 1] * yp)
        return u, v, den

    def um_to_pix(self, u, v):
        d = np.array([u - self.c[0], v - self.c[1]]) / self.s
        xp, yp = self.R.T @ d
        den = 1.0 / (1.0 - self.p1 * xp - self.p2 * yp)
        return xp * den + (W - 1) / 2.0, yp * den + (H - 1) / 2.0


# Line families (vertical ones; horizontal ones are the same with u and v swapped):
# (period um, first position, last position, along-from, along-to, triple?)
FAMILIES = [
    (1000.0, 0.0, 3000.0, 0.0, 3000.0, True),     # large 1 mm squares
    (200.0, 1200.0, 1800.0, 0.0, 3000.0, True),   # central column/row, 200 um
    (250.0, 250.0, 750.0, 0.0, 3000.0, False),    # corner/side squares, 250 um
    (250.0, 2250.0, 2750.0, 0.0, 3000.0, False),
    (50.0, 1050.0, 1950.0, 1000.0, 2000.0, False),  # central square, 50 um
]


def render_ruling(P, view, rng):
    """Returns (coverage L in [0,1], bright-edge rim map) at full resolution."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
    u, v, den = view.pix_to_um(xx, yy)
    u = u.astype(np.float32)
    v = v.astype(np.float32)
    px_per_um = (den / view.s).astype(np.float32)
    del xx, yy, den
    w = P["line_width_px"]
    delta = P["triple_spacing_um"]
    L = np.zeros((H, W), np.float32)
    Rim = np.zeros((H, W), np.float32)
    umin = min(float(u.min()), float(v.min()))
    umax = max(float(u.max()), float(v.max()))
    for period, lo, hi, alo, ahi, triple in FAMILIES:
        wf = w * (0.8 if triple and not P["heavy_lines"] else 1.0)
        if not triple and period == 50.0:
            wf = w * 0.85
        half = wf / 2.0
        for a, b in ((u, v), (v, u)):
            if umax < lo - 50 or umin > hi + 50:
                continue
            k = np.clip(np.rint((a - lo) / period), 0, round((hi - lo) / period))
            sd = a - (lo + k * period)
            if triple:
                d = np.minimum(np.abs(sd), np.minimum(np.abs(sd - delta), np.abs(sd + delta)))
                ext = delta
            else:
                d = np.abs(sd)
                ext = 0.0
            dpx = d * px_per_um
            mask = ((b >= alo - ext) & (b <= ahi + ext)).astype(np.float32)
            core = mask / (1.0 + (dpx / half) ** 6)
            np.maximum(L, core, out=L)
            rim = mask * np.exp(-(((dpx - half - 0.9) / 0.9) ** 2))
            np.maximum(Rim, rim, out=Rim)
    Rim *= 1.0 - L
    # the etching is not perfectly uniform
    L *= 1.0 + 0.15 * lowfreq(rng, (H, W), 160)
    return L, Rim, u, v


# ----------------------------------------------------------------------------
# cells


def place_cells(P, rng, bubbles):
    n_target = P["n_cells"]
    rm = P["r_mean_px"]
    cap = 24 * n_target + 200
    xs = np.zeros(cap, np.float64)
    ys = np.zeros(cap, np.float64)
    rs = np.zeros(cap, np.float64)
    dead = np.zeros(cap, bool)
    n = 0
    inside = 0
    attempts = 0
    margin = 12.0

    def sample_r(is_dead):
        while True:
            r = rm * math.exp(rng.normal(0, 0.13)) * (1.06 if is_dead else 1.0)
            if 5.0 <= r <= 12.0:
                return r

    def in_image(x, y):
        return (-0.5 <= x < W - 0.5) and (-0.5 <= y < H - 0.5)

    def ok(x, y, r):
        if not (-r * 0.9 <= x <= W - 1 + r * 0.9 and -r * 0.9 <= y <= H - 1 + r * 0.9):
            return False
        # dead zone of 1 px either side of the image boundary
        for c, size in ((x, W), (y, H)):
            if abs(c + 0.5) < 1.0 or abs(c - (size - 0.5)) < 1.0:
                return False
        for bx, by, br in bubbles:
            if (x - bx) ** 2 + (y - by) ** 2 < (br + r) ** 2:
                return False
        if n:
            d2 = (xs[:n] - x) ** 2 + (ys[:n] - y) ** 2
            lim = 0.86 * (rs[:n] + r)
            if np.any(d2 < lim * lim):
                return False
        return True

    while inside < n_target and attempts < 60 * n_target + 100:
        attempts += 1
        is_dead = rng.random() < P["dead_fraction"]
        if n and rng.random() < P["clump_fraction"]:
            # attach to an existing cell: touching neighbour
            j = int(rng.integers(n))
            r = sample_r(is_dead)
            ang = rng.uniform(0, 2 * math.pi)
            dist = (rs[j] + r) * rng.uniform(0.88, 1.02)
            x = xs[j] + dist * math.cos(ang)
            y = ys[j] + dist * math.sin(ang)
        else:
            r = sample_r(is_dead)
            x = rng.uniform(-margin, W - 1 + margin)
            y = rng.uniform(-margin, H - 1 + margin)
        x, y, r = round(x, 3), round(y, 3), round(r, 3)
        if not ok(x, y, r):
            continue
        xs[n], ys[n], rs[n], dead[n] = x, y, r, is_dead
        n += 1
        if in_image(x, y):
            inside += 1
    cells = []
    for i in range(n):
        cells.append({"x": float(xs[i]), "y": float(ys[i]), "r": float(rs[i]), "dead": bool(dead[i]),
                      "inside": in_image(xs[i], ys[i])})
    return cells


def local_blur(spec, x, y):
    """Defocus blur sigma (px) of the specimen plane at (x, y)."""
    if spec[0] == "uniform":
        return spec[1]
    s0, s1, ang = spec[1], spec[2], spec[3]
    proj = (x - W / 2) * math.cos(ang) + (y - H / 2) * math.sin(ang)
    span = abs(W / 2 * math.cos(ang)) + abs(H / 2 * math.sin(ang))
    return s0 + (s1 - s0) * min(1.0, max(0.0, (proj / span + 1) / 2))


def draw_cell(T, c, P, rng):
    cx, cy, r, is_dead = c["x"], c["y"], c["r"], c["dead"]
    f = float(np.clip(P["focus"] + rng.normal(0, 0.2), -1, 1))
    # A refractile cell is a phase object: defocus turns phase into intensity
    # contrast (bright/dark centre, halo), so a strongly defocused live cell
    # keeps a visible, if smooth, contrast rather than fading away.
    sb = local_blur(P["blur"], cx, cy)
    fmin = min(1.0, sb / 2.0)
    if abs(f) < fmin:
        f = math.copysign(fmin, f if f != 0 else 1.0)
    boost = 1.0 + 0.55 * sb
    ecc = rng.uniform(0.0, 0.12)
    harm = [(2, ecc, rng.uniform(0, math.pi)),
            (3, rng.uniform(0, 0.03 if not is_dead else 0.06), rng.uniform(0, 2 * math.pi)),
            (4, rng.uniform(0, 0.02 if not is_dead else 0.05), rng.uniform(0, 2 * math.pi))]
    if is_dead:
        harm.append((int(rng.integers(5, 9)), rng.uniform(0, 0.04), rng.uniform(0, 2 * math.pi)))
    pad = r * 1.3 + 6
    x0, x1, y0, y1 = patch_bounds(cx, cy, pad)
    if x0 >= x1 or y0 >= y1:
        return
    xx, yy = patch_coords(x0, x1, y0, y1)
    dx, dy = xx - np.float32(cx), yy - np.float32(cy)
    t, rho = outline(dx, dy, r, harm)
    ins = sigmoid(-t / 0.6)
    shp = t.shape
    gran = ndimage.gaussian_filter(rng.normal(size=shp).astype(np.float32), 0.7 if not is_dead else 1.0)
    gran /= max(1e-6, float(gran.std()))
    M = np.ones(shp, np.float32)
    if not is_dead:
        a_ring = rng.uniform(0.3, 0.6)
        wr = 0.7 + 0.6 * abs(f) + rng.uniform(0, 0.4)
        M -= a_ring * np.exp(-((t + 0.3) / wr) ** 2)
        if f >= 0:
            bright = rng.uniform(0.15, 0.4) * f
            M += ins * bright * np.exp(-(((rho - 0.62) / 0.28) ** 2))
            if rng.random() < 0.6:
                M -= ins * rng.uniform(0.1, 0.3) * f * np.exp(-((rho / 0.3) ** 2))
            M -= 0.08 * f * np.exp(-(((t - 2.2) / 1.5) ** 2))
            M += ins * rng.uniform(-0.04, 0.08)
        else:
            g = -f
            M += ins * (-rng.uniform(0.08, 0.25) * g * (1 - 0.5 * rho ** 2))
            hw = 1.0 + 0.9 * g
            M += g * rng.uniform(0.2, 0.5) * np.exp(-(((t - 1.0 - 0.8 * g) / hw) ** 2))
        M += ins * rng.uniform(0.015, 0.05) * gran
        M = 1.0 + boost * (M - 1.0)
        T[y0:y1, x0:x1, :] *= np.clip(M, 0.02, None)[..., None]
    else:
        faint = rng.random() < 0.12
        od = rng.uniform(0.15, 0.3) if faint else rng.uniform(0.4, 1.2)
        thick = np.sqrt(np.clip(1.0 - rho ** 2, 0, 1)) * ins
        dens = od * (0.45 + 0.55 * thick) * ins * (1.0 + rng.uniform(0.08, 0.2) * gran)
        dens = np.clip(dens, 0, None)
        a_ring = rng.uniform(0.15, 0.4)
        wr = 1.0 + 0.5 * abs(f) + rng.uniform(0, 0.6)
        M -= a_ring * np.exp(-((t + 0.2) / wr) ** 2)
        if f < 0:
            M += 0.3 * (-f) * rng.uniform(0.1, 0.3) * np.exp(-(((t - 1.5) / 1.5) ** 2))
        absorb = np.exp(-dens[..., None] * TRYPAN_K[None, None, :])
        T[y0:y1, x0:x1, :] *= np.clip(M, 0.02, None)[..., None] * absorb


# ----------------------------------------------------------------------------
# debris and other artefacts


def draw_speck(T, rng):
    x, y = rng.uniform(-5, W + 5), rng.uniform(-5, H + 5)
    r = float(np.exp(rng.uniform(math.log(0.6), math.log(3.5))))
    harm = [(k, rng.uniform(0, 0.25), rng.uniform(0, 2 * math.pi)) for k in (2, 3, 5)]
    x0, x1, y0, y1 = patch_bounds(x, y, r * 1.6 + 4)
    if x0 >= x1 or y0 >= y1:
        return
    xx, yy = patch_coords(x0, x1, y0, y1)
    t, rho = outline(xx - x, yy - y, r, harm)
    ins = sigmoid(-t / 0.5)
    if rng.random() < 0.3:  # refractile particle: dark edge, bright core
        M = 1 - rng.uniform(0.2, 0.5) * np.exp(-(t / 0.8) ** 2) + rng.uniform(0.1, 0.4) * ins * np.exp(-(rho / 0.5) ** 2)
    else:
        M = 1 - rng.uniform(0.15, 0.7) * ins
    tint = 1 + rng.uniform(-0.06, 0.06, 3).astype(np.float32)
    T[y0:y1, x0:x1, :] *= np.clip(M, 0.05, None)[..., None] ** tint


def draw_blob(T, rng, P):
    """Irregular grey debris of cell-like size, no membrane ring."""
    x, y = rng.uniform(-10, W + 10), rng.uniform(-10, H + 10)
    r = rng.uniform(3.0, 10.0)
    harm = [(k, rng.uniform(0.05, 0.28), rng.uniform(0, 2 * math.pi)) for k in (2, 3, 4, 5)]
    x0, x1, y0, y1 = patch_bounds(x, y, r * 2.3 + 4)
    if x0 >= x1 or y0 >= y1:
        return
    xx, yy = patch_coords(x0, x1, y0, y1)
    t, rho = outline(xx - x, yy - y, r, harm)
    ins = sigmoid(-t / rng.uniform(0.6, 1.5))
    tex = ndimage.gaussian_filter(rng.normal(size=t.shape).astype(np.float32), 1.2)
    tex /= max(1e-6, float(tex.std()))
    a = rng.uniform(0.1, 0.35)
    M = 1 - ins * a * (1 + 0.35 * tex)
    tint = np.array([1.0, 1.0 + rng.uniform(-0.05, 0.1), 1.0 + rng.uniform(0.0, 0.3)], np.float32)  # brownish
    T[y0:y1, x0:x1, :] *= np.clip(M, 0.05, None)[..., None] ** tint


def draw_fibre(T, rng):
    n = int(rng.integers(6, 20))
    step = rng.uniform(8, 25)
    ang = rng.uniform(0, 2 * math.pi)
    pts = [(rng.uniform(0, W), rng.uniform(0, H))]
    for _ in range(n):
        ang += rng.normal(0, 0.25)
        px, py = pts[-1]
        pts.append((px + step * math.cos(ang), py + step * math.sin(ang)))
    pts = np.array(pts, np.float32)
    wdt = rng.uniform(0.6, 1.6)
    dark = rng.uniform(0.15, 0.5)
    pad = wdt * 3 + 3
    x0, x1, y0, y1 = patch_bounds(float(pts[:, 0].min() + pts[:, 0].max()) / 2, float(pts[:, 1].min() + pts[:, 1].max()) / 2, 0)
    x0 = max(0, int(pts[:, 0].min() - pad)); x1 = min(W, int(pts[:, 0].max() + pad) + 1)
    y0 = max(0, int(pts[:, 1].min() - pad)); y1 = min(H, int(pts[:, 1].max() + pad) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    xx, yy = patch_coords(x0, x1, y0, y1)
    d2 = np.full(xx.shape, 1e9, np.float32)
    for a, b in zip(pts[:-1], pts[1:]):
        ab = b - a
        tt = np.clip(((xx - a[0]) * ab[0] + (yy - a[1]) * ab[1]) / max(1e-6, float(ab @ ab)), 0, 1)
        ex = xx - (a[0] + tt * ab[0])
        ey = yy - (a[1] + tt * ab[1])
        np.minimum(d2, ex * ex + ey * ey, out=d2)
    M = 1 - dark * np.exp(-d2 / (2 * wdt * wdt))
    T[y0:y1, x0:x1, :] *= M[..., None]


def draw_bubble(T, b, rng):
    x, y, R = b
    wth = rng.uniform(3, 12)
    x0, x1, y0, y1 = patch_bounds(x, y, R + 4 * wth)
    if x0 >= x1 or y0 >= y1:
        return
    xx, yy = patch_coords(x0, x1, y0, y1)
    d = np.sqrt((xx - x) ** 2 + (yy - y) ** 2) - R
    ins = sigmoid(-d / 1.0)
    M = (1 + rng.uniform(0.02, 0.12) * ins
         - rng.uniform(0.5, 0.85) * np.exp(-(((d + wth / 2) / (wth / 2)) ** 4))
         + rng.uniform(0.1, 0.3) * np.exp(-(((d + wth + 1.5) / 1.2) ** 2)))
    T[y0:y1, x0:x1, :] *= np.clip(M, 0.05, None)[..., None]


def draw_dust(Tdust, rng):
    """Out-of-focus particle on an optical surface: a soft, faint ring or disc."""
    x, y = rng.uniform(0, W), rng.uniform(0, H)
    R = rng.uniform(10, 60)
    x0, x1, y0, y1 = patch_bounds(x, y, R * 1.6 + 4)
    xx, yy = patch_coords(x0, x1, y0, y1)
    rho = np.sqrt((xx - x) ** 2 + (yy - y) ** 2) / R
    a = rng.uniform(0.015, 0.07)
    ringness = rng.uniform(0, 1)
    M = 1 - a * (ringness * np.exp(-(((rho - 0.9) / 0.18) ** 2)) + (1 - ringness) * sigmoid((1 - rho) / 0.12))
    Tdust[y0:y1, x0:x1] *= M


def draw_scratch(T, rng):
    """A long faint straight scratch in the glass."""
    ang = rng.uniform(0, math.pi)
    nx, ny = -math.sin(ang), math.cos(ang)
    px, py = rng.uniform(0, W), rng.uniform(0, H)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    d = (xx - px) * nx + (yy - py) * ny
    M = 1 - rng.uniform(0.02, 0.08) * np.exp(-(d / rng.uniform(0.5, 1.2)) ** 2)
    T *= M[..., None]


def blur_plane(T, spec, rng):
    kind = spec[0]
    if kind == "uniform":
        s = spec[1]
        if s < 0.25:
            return T
        return ndimage.gaussian_filter(T, (s, s, 0))
    s0, s1, ang = spec[1], spec[2], spec[3]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    proj = (xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)
    span = abs(W / 2 * math.cos(ang)) + abs(H / 2 * math.sin(ang))
    tmap = np.clip((proj / span + 1) / 2, 0, 1)
    sig = s0 + (s1 - s0) * tmap
    levels = np.linspace(s0, s1, 4)
    stack = [T if lv < 0.25 else ndimage.gaussian_filter(T, (lv, lv, 0)) for lv in levels]
    pos = (sig - s0) / max(1e-6, (s1 - s0)) * (len(levels) - 1)
    i0 = np.clip(np.floor(pos).astype(np.int32), 0, len(levels) - 2)
    fr = (pos - i0)[..., None]
    out = np.zeros_like(T)
    for i in range(len(levels) - 1):
        m = (i0 == i)[..., None]
        out += m * ((1 - fr) * stack[i] + fr * stack[i + 1])
    return out


# ----------------------------------------------------------------------------
# full image


def render(seed, cond, idx):
    ci = CONDITIONS.index(cond)
    rng = np.random.default_rng([int(seed), ci, int(idx), 4])
    P = sample_params(cond, rng)
    view = View(P)

    # bubbles first (cells avoid them)
    bubbles = []
    for _ in range(P["bubbles"]):
        bubbles.append((float(rng.uniform(-100, W + 100)), float(rng.uniform(-100, H + 100)), float(rng.uniform(40, 260))))

    cells = place_cells(P, rng, bubbles) if P["n_cells"] > 0 else []

    # specimen plane transmission
    T = np.ones((H, W, 3), np.float32)
    L, Rim, u, v = render_ruling(P, view, rng)
    st = P["line_strength"]
    mode = P["line_mode"]
    if mode == "bright":
        line_m = 1 + st * 1.4 * L - 0.25 * st * Rim
    elif mode == "dark-bright-edges":
        line_m = 1 - st * L + st * 0.6 * Rim
    else:
        line_m = 1 - st * L + 0.1 * st * Rim
    T *= line_m[..., None]
    del L, Rim, line_m, u, v
    for _ in range(P["debris"]["scratches"]):
        draw_scratch(T, rng)
    for b in bubbles:
        draw_bubble(T, b, rng)
    for c in cells:
        draw_cell(T, c, P, rng)
    for _ in range(P["debris"]["specks"]):
        draw_speck(T, rng)
    for _ in range(P["debris"]["blobs"]):
        draw_blob(T, rng, P)
    for _ in range(P["debris"]["fibres"]):
        draw_fibre(T, rng)

    T = blur_plane(T, P["blur"], rng)
    lc = P["low_contrast"]
    if lc < 1.0:
        T = 1 - lc * (1 - T)

    Tdust = np.ones((H, W), np.float32)
    for _ in range(P["debris"]["dust"]):
        draw_dust(Tdust, rng)

    # illumination
    cast = {"warm": [1.0, rng.uniform(0.85, 0.97), rng.uniform(0.45, 0.75)],
            "neutral": [1.0, 1.0 + rng.uniform(-0.04, 0.04), 1.0 + rng.uniform(-0.06, 0.06)],
            "cool": [rng.uniform(0.75, 0.9), rng.uniform(0.9, 1.0), 1.0],
            "greenish": [rng.uniform(0.8, 0.92), 1.0, rng.uniform(0.6, 0.8)]}[P["cast"]]
    cast = np.array(cast, np.float32)
    cast /= cast.max()
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    vx, vy = rng.uniform(0.3, 0.7) * W, rng.uniform(0.3, 0.7) * H
    rr = ((xx - vx) ** 2 + (yy - vy) ** 2) / (0.5 * (W * W + H * H) / 4)
    illum = (1 - P["vignette"] * rr / 2)
    g_ang = rng.uniform(0, 2 * math.pi)
    illum *= 1 + rng.uniform(0, 0.12) * ((xx - W / 2) * math.cos(g_ang) + (yy - H / 2) * math.sin(g_ang)) / (W / 2)
    illum *= 1 + rng.uniform(0.0, 0.03) * lowfreq(rng, (H, W), 220)
    illum = np.clip(illum, 0.05, None) * Tdust * P["brightness"]
    I = illum[..., None] * cast[None, None, :] * T

    # stray light
    if P["glare"]:
        G = np.zeros((H, W), np.float32)
        for _ in range(int(rng.integers(1, 4))):
            gx, gy = rng.uniform(-0.1, 1.1) * W, rng.uniform(-0.1, 1.1) * H
            sx, sy = rng.uniform(60, 450), rng.uniform(40, 300)
            a = rng.uniform(0, math.pi)
            ex = ((xx - gx) * math.cos(a) + (yy - gy) * math.sin(a)) / sx
            ey = (-(xx - gx) * math.sin(a) + (yy - gy) * math.cos(a)) / sy
            if rng.random() < 0.3:  # streak
                ey = ey * rng.uniform(3, 8)
            G += rng.uniform(0.12, 0.6) * np.exp(-0.5 * (ex * ex + ey * ey))
        gtint = np.array([1.0, 1.0, rng.uniform(0.85, 1.1)], np.float32)
        I = I + G[..., None] * gtint[None, None, :]
    if "low-contrast" in P["difficulties"]:
        I = I + rng.uniform(0.03, 0.12) * P["brightness"]  # veiling flare
    del xx, yy

    # sensor
    fw, rn = P["full_well"], P["read_noise"]
    if P["demosaic"]:
        mos = np.empty((H, W), np.float32)
        mos[0::2, 0::2] = I[0::2, 0::2, 0]
        mos[0::2, 1::2] = I[0::2, 1::2, 1]
        mos[1::2, 0::2] = I[1::2, 0::2, 1]
        mos[1::2, 1::2] = I[1::2, 1::2, 2]
        e = mos * fw
        e = e + np.sqrt(np.clip(e, 0, None)) * rng.standard_normal((H, W), dtype=np.float32) \
            + rn * rng.standard_normal((H, W), dtype=np.float32)
        mos = np.clip(e / fw, 0, 1)
        masks = np.zeros((H, W, 3), np.float32)
        masks[0::2, 0::2, 0] = 1
        masks[0::2, 1::2, 1] = 1
        masks[1::2, 0::2, 1] = 1
        masks[1::2, 1::2, 2] = 1
        krb = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32) / 4
        kg = np.array([[0, 1, 0], [1, 4, 1], [0, 1, 0]], np.float32) / 4
        out = np.empty((H, W, 3), np.float32)
        for ch, k in ((0, krb), (1, kg), (2, krb)):
            out[..., ch] = ndimage.convolve(mos * masks[..., ch], k, mode="mirror")
        I = out
    else:
        e = I * fw
        e = e + np.sqrt(np.clip(e, 0, None)) * rng.standard_normal((H, W, 3), dtype=np.float32) \
            + rn * rng.standard_normal((H, W, 3), dtype=np.float32)
        I = np.clip(e / fw, 0, 1)
    if P["mono"]:
        m = I @ np.array([0.3, 0.55, 0.15], np.float32)
        I = np.repeat(m[..., None], 3, axis=2)
    I = np.clip(I, 0, 1) ** (1 / 2.2)
    if P["sharpen"] > 0:
        I = I + P["sharpen"] * (I - ndimage.gaussian_filter(I, (1.0, 1.0, 0)))
    img8 = np.clip(np.rint(I * 255), 0, 255).astype(np.uint8)

    # labels
    corners = [view.um_to_pix(a, b) for a, b in ((0, 0), (GRID_UM, 0), (GRID_UM, GRID_UM), (0, GRID_UM))]
    corners = [[round(float(cx), 2), round(float(cy), 2)] for cx, cy in corners]
    labelled = [c for c in cells if c["inside"]]
    n_dead = sum(1 for c in labelled if c["dead"])
    tags = ["synthetic", "gen4", "hemocytometer", "brightfield", "trypan-blue", "condition:" + cond]
    tags.append("blank-control" if cond == "blank" else cond)
    if n_dead:
        tags.append("has-dead")
    blur = P["blur"]
    if (blur[0] == "uniform" and blur[1] >= 1.5) or (blur[0] == "gradient" and blur[2] >= 2.0):
        tags.append("blurred")
    if blur[0] == "gradient":
        tags.append("blur-gradient")
    if P["heavy_lines"]:
        tags.append("heavy-lines")
    tags.append("lines:" + P["line_mode"])
    if P["glare"]:
        tags.append("glare")
    if P["bubbles"]:
        tags.append("bubble")
    if P["debris"]["blobs"] + P["debris"]["fibres"] > 6 or P["debris"]["specks"] > 150:
        tags.append("debris")
    if P["tilt"]:
        tags.append("tilt")
    if P["low_contrast"] < 0.75:
        tags.append("low-contrast")
    if P["full_well"] < 1500:
        tags.append("noisy")
    if P["mono"]:
        tags.append("grayscale")
    fmt, q = P["format"]
    if fmt == "jpeg":
        tags.append("jpeg-q%d" % q)
    tags.append("cast:" + P["cast"])
    for d in P["difficulties"]:
        tags.append("difficulty:" + d)

    stem = "gen4_%s_%02d" % (cond, idx)
    fname = stem + (".jpg" if fmt == "jpeg" else ".png")
    gen = {k: P[k] for k in ("view", "view_centre_um", "rotation_deg", "persp", "line_mode", "line_width_px",
                             "line_strength", "focus", "blur", "dead_fraction", "clump_fraction",
                             "full_well", "read_noise", "demosaic", "format", "r_mean_px")}
    gen["seed"] = [int(seed), cond, int(idx)]
    gen["cells_drawn"] = len(cells)
    label = {
        "version": 1,
        "image": fname,
        "width": W,
        "height": H,
        "umPerPixel": round(P["um_per_px"], 5),
        "dilution": 2.0,
        "grid": {"corners": corners, "widthUm": 3000, "heightUm": 3000},
        "cells": [{"x": c["x"], "y": c["y"], "r": c["r"], "label": "dead" if c["dead"] else "live"} for c in labelled],
        "tags": tags,
        "gen4": gen,
    }
    return stem, fname, img8, label, (len(labelled), n_dead)


def label_json(label):
    """labels-v1 JSON with one cell per line (readable diffs)."""
    head = {k: v for k, v in label.items() if k != "cells"}
    parts = ["{"]
    keys = list(label.keys())
    for i, k in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        if k == "cells":
            if not label["cells"]:
                parts.append(' "cells": []' + comma)
            else:
                parts.append(' "cells": [')
                cl = label["cells"]
                for j, c in enumerate(cl):
                    parts.append("  " + json.dumps(c) + ("," if j < len(cl) - 1 else ""))
                parts.append(" ]" + comma)
        else:
            parts.append(" " + json.dumps(k) + ": " + json.dumps(head[k]) + comma)
    parts.append("}")
    return "\n".join(parts) + "\n"


def job(args):
    out, seed, cond, idx = args
    t0 = time.time()
    stem, fname, img8, label, (n, nd) = render(seed, cond, idx)
    im = Image.fromarray(img8, "RGB")
    path = os.path.join(out, fname)
    if fname.endswith(".jpg"):
        im.save(path, "JPEG", quality=int(label["gen4"]["format"][1]), optimize=False)
    else:
        im.save(path, "PNG", compress_level=6)
    with open(os.path.join(out, stem + ".json"), "w") as fh:
        fh.write(label_json(label))
    return fname, cond, n, nd, time.time() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--per-condition", type=int, required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--conditions", default=",".join(CONDITIONS),
                    help="comma-separated subset of " + ",".join(CONDITIONS))
    a = ap.parse_args(argv)
    conds = [c for c in a.conditions.split(",") if c]
    for c in conds:
        if c not in CONDITIONS:
            ap.error("unknown condition %r" % c)
    os.makedirs(a.out, exist_ok=True)
    tasks = [(a.out, a.seed, c, i) for c in conds for i in range(a.per_condition)]
    t0 = time.time()
    if a.jobs > 1:
        with ProcessPoolExecutor(max_workers=a.jobs) as ex:
            results = list(ex.map(job, tasks))
    else:
        results = [job(t) for t in tasks]
    per = {}
    for fname, cond, n, nd, dt in results:
        print("%-24s %5d cells (%4d dead) %5.2fs" % (fname, n, nd, dt))
        per.setdefault(cond, []).append(n)
    for c in conds:
        ns = per.get(c, [])
        if ns:
            print("%-9s images=%d cells min=%d max=%d total=%d" % (c, len(ns), min(ns), max(ns), sum(ns)))
    print("%d images in %.1fs -> %s" % (len(results), time.time() - t0, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
