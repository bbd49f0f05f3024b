#!/usr/bin/env python3
"""Independent synthetic hemocytometer image generator (numpy + Pillow only).

Renders brightfield photographs of a Neubauer-improved counting chamber with a
trypan-blue stained cell suspension and writes labels-v1 JSON labels next to
each image.  Written from scratch; shares no code with the counter's own
synthesiser.

World coordinates are micrometres on the ruled area, origin at its top-left
corner, ruled area [0, 3000] x [0, 3000]:
  * nine 1000 um large squares;
  * central square: 5 x 5 groups of 200 um bounded by TRIPLE lines, each group
    subdivided into 4 x 4 small squares of 50 um by single lines; the triple
    lines continue through the four middle side squares;
  * corner squares (and the other direction of the side squares): single lines
    every 250 um.
(--tile-um changes the triple-line pitch, e.g. 250, for the variant where the
central square is split into 250 um squares of 5 x 5 50 um squares.)

Pixel coordinates follow labels-v1: x right, y down, origin at the centre of the
top-left pixel (pixel (row i, col j) has centre (x=j, y=i)).

Usage (needs python3 with numpy and Pillow; not part of CI):
  python3 scripts/indep-synth.py --out DIR [--seed N] [--per-condition 8] [--tile-um 200]
  cellqa run DIR --acceptance ACCEPTANCE.json   # e.g. one without gates
"""
import argparse
import json
import math
import os

import numpy as np
from PIL import Image

W, H = 1920, 1080
CONDITIONS = ["standard", "dense", "sparse", "blank", "hard"]


# ----------------------------------------------------------------------------
# small numpy helpers
# ----------------------------------------------------------------------------

def gaussian_blur(img, sigma):
    """Separable Gaussian blur of an (H, W) or (H, W, C) float32 array."""
    if sigma < 0.25:
        return img
    rad = int(math.ceil(3.0 * sigma))
    k = np.exp(-0.5 * (np.arange(-rad, rad + 1) / sigma) ** 2)
    k = (k / k.sum()).astype(np.float32)
    out = img
    for axis in (0, 1):
        pad = [(0, 0)] * img.ndim
        pad[axis] = (rad, rad)
        p = np.pad(out, pad, mode="reflect")
        acc = np.zeros_like(out)
        n = out.shape[axis]
        for t, w in enumerate(k):
            sl = [slice(None)] * img.ndim
            sl[axis] = slice(t, t + n)
            acc += w * p[tuple(sl)]
        out = acc
    return out


def smooth_noise(rng, h, w, scale):
    """Low-frequency noise field in [-1, 1] (bilinear upsampled coarse grid)."""
    gh, gw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    ys = np.linspace(0, gh - 1.001, h, dtype=np.float32)
    xs = np.linspace(0, gw - 1.001, w, dtype=np.float32)
    y0, x0 = ys.astype(int), xs.astype(int)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    a = g[y0][:, x0]
    b = g[y0][:, x0 + 1]
    c = g[y0 + 1][:, x0]
    d = g[y0 + 1][:, x0 + 1]
    f = a * (1 - fx) * (1 - fy) + b * fx * (1 - fy) + c * (1 - fx) * fy + d * fx * fy
    return f / (np.abs(f).max() + 1e-6)


# ----------------------------------------------------------------------------
# background / optics
# ----------------------------------------------------------------------------

def render_background(rng, p):
    base = np.array([180.0, 175.0, 160.0])
    cast = rng.normal(0, 7, 3)
    grey_mix = rng.uniform(0, 0.5)  # some lamps are greyer (less beige)
    col = base + cast
    col = (1 - grey_mix) * col + grey_mix * col.mean()
    col *= rng.uniform(0.88, 1.12)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    # illumination gradient
    gx, gy = rng.uniform(-0.12, 0.12, 2)
    illum = 1.0 + gx * (xx - W / 2) / W + gy * (yy - H / 2) / H
    # vignetting, centre slightly off the image centre
    vc = np.array([W / 2 + rng.normal(0, 80), H / 2 + rng.normal(0, 60)])
    rr2 = ((xx - vc[0]) ** 2 + (yy - vc[1]) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
    v = rng.uniform(0.10, 0.30)
    illum *= 1.0 - v * np.clip(rr2, 0, 1.5) ** rng.uniform(0.9, 1.4)
    # very gentle low-frequency unevenness
    illum *= 1.0 + 0.02 * smooth_noise(rng, H, W, 300)
    p["vignette"] = float(v)
    return col.astype(np.float32)[None, None, :] * illum[..., None], xx, yy


def add_glare(rng, img, xx, yy, strength=1.0):
    cx, cy = rng.uniform(0.1 * W, 0.9 * W), rng.uniform(0.1 * H, 0.9 * H)
    size = rng.uniform(200, 500) / 2.0  # radius-ish of the region
    ax = rng.uniform(0.7, 1.3)
    d2 = ((xx - cx) / (size * ax)) ** 2 + ((yy - cy) / (size / ax)) ** 2
    g = np.exp(-0.5 * d2 * 1.8) * strength
    # push towards near-saturation (255) by a random fraction
    amt = rng.uniform(0.45, 0.9)
    img += (252.0 - img) * (amt * g)[..., None]


# ----------------------------------------------------------------------------
# Neubauer ruling
# ----------------------------------------------------------------------------

def make_homography(rng, scale, hard):
    """World (um) -> pixel homography and its inverse."""
    ang = math.radians(rng.uniform(-8, 8))
    # view centre in world um; mostly on the central square, sometimes out near
    # the side / corner squares
    if rng.random() < 0.7:
        wc = rng.uniform(1000, 2000, 2)
    else:
        wc = rng.uniform(500, 2500, 2)
    c, s = math.cos(ang), math.sin(ang)
    A = np.array([[c / scale, -s / scale, 0], [s / scale, c / scale, 0], [0, 0, 1.0]])
    Tw = np.array([[1, 0, -wc[0]], [0, 1, -wc[1]], [0, 0, 1.0]])
    if rng.random() < 0.5:
        px, py = rng.uniform(-1.5e-5, 1.5e-5, 2)
    else:
        px = py = 0.0
    P = np.array([[1, 0, 0], [0, 1, 0], [px, py, 1.0]])
    Tc = np.array([[1, 0, (W - 1) / 2], [0, 1, (H - 1) / 2], [0, 0, 1.0]])
    Hm = Tc @ P @ A @ Tw
    return Hm, np.linalg.inv(Hm), math.degrees(ang), (px, py)


def family_coverage(u, v, pitch, lo, hi, vlo, vhi, offsets, width_px, scale):
    """Coverage of lines at u = lo + k*pitch (k*pitch <= hi-lo), each a stroke set
    at the given offsets (um), running only where vlo <= v <= vhi."""
    rel = u - lo
    k = np.clip(np.round(rel / pitch), 0, round((hi - lo) / pitch))
    d = rel - k * pitch  # signed um from the nearest line position
    cov = np.zeros_like(u)
    for o in offsets:
        dpx = np.abs(d - o) / scale
        cov = np.maximum(cov, np.clip(width_px / 2 - dpx + 0.5, 0, 1))
    # soft ends along the line
    end = np.minimum(v - vlo, vhi - v) / scale + 0.5
    cov *= np.clip(end + width_px / 2, 0, 1)
    return cov


def render_ruling(rng, Hinv, scale, tile_um, heavy):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
    den = Hinv[2, 0] * xx + Hinv[2, 1] * yy + Hinv[2, 2]
    u = ((Hinv[0, 0] * xx + Hinv[0, 1] * yy + Hinv[0, 2]) / den).astype(np.float32)
    v = ((Hinv[1, 0] * xx + Hinv[1, 1] * yy + Hinv[1, 2]) / den).astype(np.float32)
    del xx, yy, den

    w_single = rng.uniform(2.0, 4.0) / scale        # px
    w_fine = rng.uniform(2.0, 3.5) / scale
    w_tri = rng.uniform(2.0, 3.0) / scale
    gap = rng.uniform(4.0, 5.0)                    # um centre-to-centre
    tri = (-gap, 0.0, gap)
    if heavy:
        dark_main = rng.uniform(0.6, 0.85)
    else:
        dark_main = rng.uniform(0.2, 0.7)
    dark_fine = dark_main * rng.uniform(0.75, 1.0)

    cov_main = np.zeros_like(u)
    cov_fine = np.zeros_like(u)
    for a, b in ((u, v), (v, u)):
        # triple lines: central square, continuing through the side squares
        cov_main = np.maximum(cov_main, family_coverage(
            a, b, tile_um, 1000, 2000, 0, 3000, tri, w_tri, scale))
        # 250 um single lines, outer thirds (corner + side squares), incl. border
        for lo, hi in ((0, 1000), (2000, 3000)):
            cov_main = np.maximum(cov_main, family_coverage(
                a, b, 250, lo, hi, 0, 3000, (0.0,), w_single, scale))
        # for side squares the other direction: 250 um lines spanning the middle
        # third along the line direction are already covered above (b range
        # 0..3000).  50 um single lines inside the central square.
        cov_fine = np.maximum(cov_fine, family_coverage(
            a, b, 50, 1000, 2000, 1000, 2000, (0.0,), w_fine, scale))
    # slight unevenness of the ruling darkness along the image
    unev = 1.0 + 0.12 * smooth_noise(rng, H, W, 250)
    trans = (1 - dark_main * cov_main * unev) * (1 - dark_fine * cov_fine * unev)
    return np.clip(trans, 0.05, 1).astype(np.float32), dark_main


# ----------------------------------------------------------------------------
# cells
# ----------------------------------------------------------------------------

def place_cells(rng, n, mean_r, mixed, clump_frac):
    """Return list of (x, y, rx, ry, theta) with centres in an extended frame."""
    cells = []
    xs = np.empty(0)
    ys = np.empty(0)
    rs = np.empty(0)

    def radius():
        if mixed and rng.random() < 0.4:
            m = mean_r * rng.choice([0.6, 1.5])
            m = float(np.clip(m, 4.0, 14.0))
        else:
            m = mean_r
        return m * rng.uniform(0.8, 1.2)

    def ok(x, y, r, slack=0.8):
        if len(xs) == 0:
            return True
        d = np.hypot(xs - x, ys - y)
        return bool(np.all(d >= slack * (rs + r)))

    margin = 14
    attempts = 0
    while len(cells) < n and attempts < n * 60:
        attempts += 1
        r = radius()
        x = rng.uniform(-margin, W - 1 + margin)
        y = rng.uniform(-margin, H - 1 + margin)
        if not ok(x, y, r):
            continue
        group = [(x, y, r)]
        if rng.random() < clump_frac:
            size = int(rng.integers(2, 6))
            tries = 0
            while len(group) < size and tries < 40:
                tries += 1
                bx, by, br = group[int(rng.integers(len(group)))]
                r2 = radius()
                ang = rng.uniform(0, 2 * math.pi)
                dist = (br + r2) * rng.uniform(0.85, 1.0)
                x2, y2 = bx + dist * math.cos(ang), by + dist * math.sin(ang)
                gx = np.array([g[0] for g in group])
                gy = np.array([g[1] for g in group])
                gr = np.array([g[2] for g in group])
                if not ok(x2, y2, r2):
                    continue
                dd = np.hypot(gx - x2, gy - y2)
                if np.any(dd < 0.8 * (gr + r2)):
                    continue
                group.append((x2, y2, r2))
        for (cx, cy, cr) in group:
            if len(cells) >= n:
                break
            e = rng.uniform(1.0, 1.15)
            cells.append((cx, cy, cr * math.sqrt(e), cr / math.sqrt(e),
                          rng.uniform(0, math.pi)))
            xs = np.append(xs, cx)
            ys = np.append(ys, cy)
            rs = np.append(rs, cr)
    return cells


def draw_cell(rng, mult, cx, cy, rx, ry, th, dead):
    rmax = max(rx, ry)
    ext = int(math.ceil(rmax + 7))
    x0, x1 = int(math.floor(cx)) - ext, int(math.floor(cx)) + ext + 1
    y0, y1 = int(math.floor(cy)) - ext, int(math.floor(cy)) + ext + 1
    X0, X1, Y0, Y1 = max(x0, 0), min(x1, W), max(y0, 0), min(y1, H)
    if X0 >= X1 or Y0 >= Y1:
        return
    yy, xx = np.mgrid[Y0:Y1, X0:X1].astype(np.float32)
    dx, dy = xx - cx, yy - cy
    c, s = math.cos(th), math.sin(th)
    a = (dx * c + dy * s) / rx
    b = (-dx * s + dy * c) / ry
    rho = np.sqrt(a * a + b * b)
    # slightly irregular outline
    phi = np.arctan2(b, a)
    wob = 1.0
    for kk in (2, 3, 5):
        wob = wob + rng.normal(0, 0.015) * np.cos(kk * phi + rng.uniform(0, 6.3))
    rho = rho / wob
    rm = 0.5 * (rx + ry)
    sd = (rho - 1.0) * rm  # signed distance to the outline in px (neg inside)
    patch = mult[Y0:Y1, X0:X1]
    if not dead:
        cb = rng.uniform(0.12, 0.35)            # refractile bright centre
        cw = rng.uniform(0.35, 0.6)
        rd = rng.uniform(0.40, 0.70)            # dark refractive rim
        rw = rng.uniform(0.9, 1.6)
        inside = np.clip(0.5 - sd, 0, 1)
        m = 1.0 - rng.uniform(0.0, 0.08) * inside
        m = m + cb * np.exp(-(rho / cw) ** 2)
        m = m * (1.0 - rd * np.exp(-((sd + 0.6) / rw) ** 2))
        if rng.random() < 0.5:                  # faint bright halo
            hh = rng.uniform(0.05, 0.2)
            m = m + hh * np.exp(-((sd - 2.2) / 1.3) ** 2)
        tint = np.array([1.0, 1.0, 1.0 + rng.uniform(0, 0.03)], np.float32)
        m3 = 1.0 + (m[..., None] - 1.0) * tint
    else:
        inside = np.clip(0.5 - sd, 0, 1)
        col = np.array([0.55, 0.65, 0.95], np.float32) * rng.uniform(0.62, 0.9)
        col = col * (1 + rng.normal(0, 0.03, 3).astype(np.float32))
        # mottled interior
        mott = 1.0 + 0.05 * np.cos(3.1 * a + rng.uniform(0, 6)) * np.cos(2.7 * b)
        body = 1.0 - inside[..., None] * (1.0 - col[None, None, :] * mott[..., None])
        edge = 1.0 - rng.uniform(0.12, 0.3) * np.exp(-((sd + 1.0) / 1.2) ** 2)
        m3 = body * edge[..., None]
    patch *= m3.astype(np.float32)


# ----------------------------------------------------------------------------
# debris
# ----------------------------------------------------------------------------

def _patch(cx, cy, ext):
    X0, X1 = max(int(cx) - ext, 0), min(int(cx) + ext + 1, W)
    Y0, Y1 = max(int(cy) - ext, 0), min(int(cy) + ext + 1, H)
    if X0 >= X1 or Y0 >= Y1:
        return None
    yy, xx = np.mgrid[Y0:Y1, X0:X1].astype(np.float32)
    return (slice(Y0, Y1), slice(X0, X1)), xx, yy


def draw_debris(rng, mult, add, amount):
    # dark specks r 1-3 px
    for _ in range(int(rng.integers(15, 120) * amount)):
        cx, cy, r = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(1.0, 3.0)
        pt = _patch(cx, cy, 6)
        if pt is None:
            continue
        sl, xx, yy = pt
        d = np.hypot(xx - cx, yy - cy)
        cov = np.clip(r - d + 0.5, 0, 1)
        mult[sl] *= (1 - rng.uniform(0.3, 0.75) * cov)[..., None]
    # fibres / scratches: smooth random curves
    for _ in range(int(rng.integers(0, 4) * amount + (rng.random() < 0.5))):
        n = 24
        L = rng.uniform(40, 400)
        ang = rng.uniform(0, 2 * math.pi)
        curv = rng.normal(0, 0.06, n).cumsum()
        steps = L / n
        px = np.empty(n + 1)
        py = np.empty(n + 1)
        px[0], py[0] = rng.uniform(0, W), rng.uniform(0, H)
        for i in range(n):
            px[i + 1] = px[i] + steps * math.cos(ang + curv[i])
            py[i + 1] = py[i] + steps * math.sin(ang + curv[i])
        wid = rng.uniform(0.8, 2.5)
        X0, X1 = int(max(px.min() - 6, 0)), int(min(px.max() + 7, W))
        Y0, Y1 = int(max(py.min() - 6, 0)), int(min(py.max() + 7, H))
        if X0 >= X1 or Y0 >= Y1:
            continue
        yy, xx = np.mgrid[Y0:Y1, X0:X1].astype(np.float32)
        dmin = np.full(xx.shape, 1e9, np.float32)
        for i in range(n):
            ax, ay, bx, by = px[i], py[i], px[i + 1], py[i + 1]
            vx, vy = bx - ax, by - ay
            t = np.clip(((xx - ax) * vx + (yy - ay) * vy) / (vx * vx + vy * vy + 1e-9), 0, 1)
            dmin = np.minimum(dmin, np.hypot(xx - ax - t * vx, yy - ay - t * vy))
        cov = np.clip(wid / 2 - dmin + 0.5, 0, 1)
        if rng.random() < 0.8:
            mult[Y0:Y1, X0:X1] *= (1 - rng.uniform(0.2, 0.6) * cov)[..., None]
        else:  # bright scratch
            add[Y0:Y1, X0:X1] += (rng.uniform(15, 40) * cov)[..., None]
    # grey irregular blobs
    for _ in range(int(rng.integers(0, 7) * amount)):
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        R = rng.uniform(4, 18)
        pt = _patch(cx, cy, int(R * 1.6) + 4)
        if pt is None:
            continue
        sl, xx, yy = pt
        phi = np.arctan2(yy - cy, xx - cx)
        rad = np.full(phi.shape, R, np.float32)
        for kk in range(2, 7):
            rad = rad + R * rng.normal(0, 0.12) * np.cos(kk * phi + rng.uniform(0, 6.3))
        d = np.hypot(xx - cx, yy - cy)
        cov = np.clip(rad - d + 0.5, 0, 1)
        tex = 1 + 0.1 * np.cos(0.7 * xx + rng.uniform(0, 6)) * np.cos(0.6 * yy)
        mult[sl] *= (1 - rng.uniform(0.12, 0.35) * cov * tex)[..., None]
    # bright specks
    if rng.random() < 0.5:
        for _ in range(int(rng.integers(3, 30) * amount)):
            cx, cy, r = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(0.8, 2.2)
            pt = _patch(cx, cy, 5)
            if pt is None:
                continue
            sl, xx, yy = pt
            d = np.hypot(xx - cx, yy - cy)
            add[sl] += (rng.uniform(20, 60) * np.exp(-(d / r) ** 2))[..., None]


# ----------------------------------------------------------------------------
# one image
# ----------------------------------------------------------------------------

def generate(cond, idx, base_seed, outdir, tile_um, jpeg_idx):
    ci = CONDITIONS.index(cond)
    rng = np.random.default_rng([base_seed, ci, idx])
    info = {}
    hard = cond == "hard"
    scale = float(rng.uniform(0.6, 1.3))  # um per pixel

    img, xx, yy = render_background(rng, info)
    Hm, Hinv, ang, persp = make_homography(rng, scale, hard)
    trans, grid_dark = render_ruling(rng, Hinv, scale, tile_um, heavy=hard or rng.random() < 0.15)
    img *= trans[..., None]

    # cells
    n = {"standard": (60, 150), "dense": (400, 900), "sparse": (5, 25),
         "blank": (0, 0), "hard": (60, 250)}[cond]
    n_cells = int(rng.integers(n[0], n[1] + 1))
    mean_r = float(rng.uniform(5.0, 12.0))
    if cond == "dense":
        mean_r = float(rng.uniform(5.0, 9.0))  # keeps 900 cells physically plausible
    dead_frac = float(rng.uniform(0.05, 0.5))
    clump = {"standard": 0.15, "dense": 0.3, "sparse": 0.1, "blank": 0.0, "hard": 0.3}[cond]
    cells = place_cells(rng, n_cells, mean_r, mixed=hard, clump_frac=clump)
    mult = np.ones((H, W, 3), np.float32)
    add = np.zeros((H, W, 3), np.float32)
    labels = []
    for (cx, cy, rx, ry, th) in cells:
        dead = bool(rng.random() < dead_frac)
        draw_cell(rng, mult, cx, cy, rx, ry, th, dead)
        if 0.0 <= cx <= W - 1 and 0.0 <= cy <= H - 1:
            labels.append({"x": round(float(cx), 3), "y": round(float(cy), 3),
                           "r": round(float(0.5 * (rx + ry)), 3),
                           "label": "dead" if dead else "live"})

    draw_debris(rng, mult, add, amount=(2.0 if hard else 1.0))
    img = img * mult + add

    glare = rng.random() < (0.85 if hard else 0.3)
    if glare:
        add_glare(rng, img, xx, yy)

    if hard:
        sigma = float(rng.uniform(1.3, 2.5))
    else:
        sigma = float(rng.uniform(0.0, 2.5) if rng.random() < 0.3 else rng.uniform(0.0, 1.2))
    img = gaussian_blur(img.astype(np.float32), sigma)

    # sensor noise: Gaussian 1-4 % plus signal-dependent (Poisson-like) part
    gs = rng.uniform(0.01, 0.04) * 255
    ps = rng.uniform(0.2, 0.6)
    noise = rng.standard_normal(img.shape).astype(np.float32)
    img = img + noise * np.sqrt(gs * gs + ps * ps * np.clip(img, 0, None))
    img8 = np.clip(np.round(img), 0, 255).astype(np.uint8)

    use_jpeg = hard or idx in jpeg_idx
    stem = f"{cond}-{idx:03d}"
    fname = stem + (".jpg" if use_jpeg else ".png")
    pil = Image.fromarray(img8, "RGB")
    if use_jpeg:
        pil.save(os.path.join(outdir, fname), quality=60)
    else:
        pil.save(os.path.join(outdir, fname), compress_level=3)

    corners = []
    for (wu, wv) in ((0, 0), (3000, 0), (3000, 3000), (0, 3000)):
        p = Hm @ np.array([wu, wv, 1.0])
        corners.append([round(float(p[0] / p[2]), 2), round(float(p[1] / p[2]), 2)])

    tags = [cond, "synthetic", "indep"]
    if cond == "blank":
        tags.append("blank-control")
    if use_jpeg:
        tags.append("jpeg")
    if sigma > 1.5:
        tags.append("blurred")
    if glare:
        tags.append("glare")
    label = {
        "version": 1,
        "image": fname,
        "width": W,
        "height": H,
        "umPerPixel": round(scale, 5),
        "grid": {"corners": corners, "widthUm": 3000, "heightUm": 3000},
        "cells": labels,
        "tags": tags,
        "generator": {"name": "indep/gen.py", "seed": [base_seed, ci, idx],
                      "meanRadiusPx": round(mean_r, 3), "blurSigmaPx": round(sigma, 3),
                      "rotationDeg": round(ang, 3), "perspective": [float(persp[0]), float(persp[1])],
                      "gridDarkness": round(float(grid_dark), 3), "tileUm": tile_um,
                      "renderedCells": len(cells)},
    }
    with open(os.path.join(outdir, stem + ".json"), "w") as f:
        json.dump(label, f, indent=1)
    return fname, len(labels)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="output folder (images and labels-v1 JSON)")
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--per-condition", type=int, default=8)
    ap.add_argument("--tile-um", type=float, default=200.0)
    ap.add_argument("--only", default=None, help="comma-separated conditions")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    conds = CONDITIONS if not args.only else args.only.split(",")
    for cond in conds:
        # which indices are saved as JPEG q60 (hard: all). Fixed per condition
        # so every condition has at least 2 JPEGs.
        jr = np.random.default_rng([args.seed, 99, CONDITIONS.index(cond)])
        k = max(2, args.per_condition // 3)
        jpeg_idx = set(int(i) for i in jr.choice(args.per_condition, size=min(k, args.per_condition), replace=False))
        for i in range(args.per_condition):
            fname, n = generate(cond, i, args.seed, args.out, args.tile_um, jpeg_idx)
            print(f"{fname}: {n} labelled cells")


if __name__ == "__main__":
    main()
