#!/usr/bin/env python3
"""gen6-synth: physically-motivated synthetic hemocytometer photographs (labels-v1).

Renders 1920x1080 brightfield photographs of a Neubauer-improved counting
chamber with trypan-blue stained cells, each with a labels-v1 JSON beside it.

    python3 scripts/gen6-synth.py --out DIR --seed N --per-condition K

Conditions: standard, dense, sparse, blank (debris only, tag blank-control)
and hard (a random mix of JPEG q60, heavy lines, heavy debris, defocus, tilted
grid, glare, uneven illumination, sensor noise; each one used is tagged).

How an image forms here (instead of painting dark/bright discs):

1. Specimen as a thin complex transmittance.  Everything in the focal plane
   is described by two maps on a padded canvas: optical path difference
   OPD (um) and per-channel absorbance OD (R, G, B).
   * Ruling: the 3x3 mm ruled area (nine 1 mm squares; centre square split by
     triple lines into 5x5 groups of 200 um, each 4x4 small 50 um squares;
     corner squares 4x4 of 250 um by single lines; the 1 mm boundaries of the
     centre square are triple lines) is mapped into the image through a
     homography (scale 0.5-1.3 um/px, rotation, slight perspective, random
     view offset).  Each pixel is mapped back into chamber micrometres and
     its distance to the nearest rule gives an antialiased groove profile,
     which carries a small phase step plus either absorption (dark rules) or
     negative absorbance (the bright, light-piping rules some chambers show).
   * Cells: refractive spheres/ellipsoids (thickness 2*sqrt(R^2-rho^2), slight
     ellipticity and boundary wobble, membrane ring, granular texture, optional
     nucleus).  Live cells are pure phase objects (dn 0.015-0.04); dead cells
     are less refractive and absorb with the trypan-blue spectrum (strong in
     red, weaker in green, little in blue), so they come out blue and darker.
   * Debris: specks, irregular grey particles, curved fibres (absorbing),
     faceted crystals (strong phase ramps, little absorption) and glass
     scratches.  Debris is never labelled.
2. Optics.  Per colour channel the field sqrt(T)*exp(i*2*pi*OPD/lambda) is
   propagated with the angular-spectrum method to a slightly defocused image
   plane (defocus differs per wavelength: longitudinal chromatic aberration),
   low-passed by the objective pupil (NA/lambda), giving real refraction
   rims, bright lens-focused centres, halos and Fresnel fringes on the rules.
   Partial coherence of the condenser is a Gaussian blur growing with
   defocus (plus residual aberration/pixel blur, and extra blur in the
   defocus hard case).  Lateral chromatic aberration rescales R and B slightly.
3. Illumination: halogen-lamp colour, off-centre Koehler field, vignetting,
   shadows of out-of-focus dust on the coverslip, optional glare (saturating).
4. Sensor: RGGB Bayer mosaic, Poisson shot noise + read noise, 12-bit
   quantisation with clipping at full well, OpenCV demosaic, imperfect white
   balance (colour casts), colour matrix, gamma, mild unsharp mask, then PNG or
   JPEG (q 75-95, q 60 for the jpeg60 hard case).

Labels: every cell whose centre lies inside the image (x in [0, W-1], y in
[0, H-1]) with its radius and live/dead label; cells cut by the border are
rendered either way.  Grid corners are the ruled area's corners (u, v in um,
(0,0),(3000,0),(3000,3000),(0,3000)) mapped through the homography, i.e.
clockwise from top-left; they may lie outside the image.
"""
import argparse
import json
import math
import os

import cv2
import numpy as np
from scipy import fft as sfft
from scipy import ndimage

W, H = 1920, 1080
PAD = 64                                   # canvas margin against FFT wrap-around
CW, CH = W + 2 * PAD, H + 2 * PAD
LAMBDA = np.array([0.61, 0.54, 0.465])     # um, R G B
N_MED = 1.335
TRYPAN = np.array([1.0, 0.82, 0.45])       # relative absorbance of trypan blue, R G B
CONDITIONS = ["standard", "dense", "sparse", "blank", "hard"]
HARD_EFFECTS = ["jpeg60", "heavy-lines", "debris", "defocus", "tilted",
                "glare", "uneven-illumination", "noise"]


# ----------------------------------------------------------------------------- parameters
def sample_params(rng, cond):
    p = {"cond": cond, "umpp": float(rng.uniform(0.5, 1.3))}
    eff = set()
    if cond == "hard":
        k = int(rng.integers(2, 5))
        eff = set(rng.choice(HARD_EFFECTS, size=k, replace=False).tolist())
    p["effects"] = eff
    # geometry
    tilt = "tilted" in eff
    p["rot"] = float(rng.uniform(15, 30) * rng.choice([-1, 1])) if tilt else float(rng.uniform(-10, 10))
    pmax = 7e-5 if tilt else 2.5e-5
    p["persp"] = rng.uniform(-pmax, pmax, 2)
    p["view"] = rng.uniform(150, 2850, 2)      # chamber point (um) at image centre
    # optics
    p["dz"] = float(rng.uniform(35, 70) if "defocus" in eff else rng.uniform(8, 22))
    p["lca"] = float(rng.uniform(-6, 6))        # um of focus shift between R and B
    p["na"] = float(rng.uniform(0.22, 0.4))
    p["na_cond"] = float(rng.uniform(0.05, 0.15))
    p["blur0"] = float(rng.uniform(0.5, 0.9))   # px: residual aberrations + pixel aperture
    p["defocus_blur"] = float(rng.uniform(1.5, 3.5) if "defocus" in eff else 0.0)
    p["lat_ca"] = float(rng.uniform(-0.0015, 0.0015))
    # ruling appearance
    heavy = "heavy-lines" in eff
    p["line_w"] = float(rng.uniform(4.5, 9) if heavy else rng.uniform(1.2, 3.0))
    p["triple_gap"] = float(rng.uniform(4, 7) + (p["line_w"] if heavy else 0))
    bright = rng.random() < 0.45
    p["line_od"] = float(-rng.uniform(0.2, 0.45) if bright else rng.uniform(0.25, 0.9))
    if heavy:
        p["line_od"] = float(np.clip(p["line_od"] * 1.6, -0.45, 1.5))
    p["line_opd"] = float(rng.uniform(-0.25, 0.25))
    p["line_mode"] = "bright" if bright else "dark"
    # cells
    n = {"standard": rng.integers(60, 200), "dense": rng.integers(300, 700),
         "sparse": rng.integers(15, 45), "blank": 0,
         "hard": rng.integers(30, 320)}[cond]
    p["n_cells"] = int(n)
    p["r_mean"] = float(rng.uniform(6.0, 10.0))
    p["dead_frac"] = float(rng.uniform(0.05, 0.6))
    p["clump_frac"] = float(rng.uniform(0.3, 0.6) if cond == "dense" else rng.uniform(0.0, 0.15))
    # debris
    p["debris"] = float(rng.uniform(0.5, 1.5) * (3.0 if ("debris" in eff or cond == "blank") else 1.0))
    # illumination + camera
    p["lamp"] = np.array([1.0, rng.uniform(0.7, 0.85), rng.uniform(0.38, 0.55)])
    p["wb_err"] = np.exp(rng.normal([0.02, 0.0, -0.04], 0.05))
    p["illum_grad"] = float(rng.uniform(0.25, 0.5) if "uneven-illumination" in eff else rng.uniform(0.0, 0.1))
    p["vignette"] = float(rng.uniform(0.05, 0.3))
    p["glare"] = "glare" in eff
    noisy = "noise" in eff
    p["full_well"] = float(rng.uniform(300, 900) if noisy else rng.uniform(4000, 15000))
    p["read_noise"] = float(rng.uniform(8, 20) if noisy else rng.uniform(1.5, 6))
    p["expo"] = float(rng.uniform(0.35, 0.6))
    p["bg_level"] = float(rng.uniform(0.25, 0.5))
    p["sharpen"] = float(rng.uniform(0.0, 0.8))
    p["saturation"] = float(rng.uniform(0.9, 1.3))
    if "jpeg60" in eff:
        p["fmt"], p["quality"] = "jpg", 60
    else:
        p["fmt"] = "jpg" if rng.random() < 0.5 else "png"
        p["quality"] = int(rng.integers(75, 96))
    return p


# ----------------------------------------------------------------------------- geometry
def homography(p):
    """3x3 map from chamber micrometres (u, v) to output pixel coordinates."""
    s = 1.0 / p["umpp"]
    c, sn = math.cos(math.radians(p["rot"])), math.sin(math.radians(p["rot"]))
    T0 = np.array([[1, 0, -p["view"][0]], [0, 1, -p["view"][1]], [0, 0, 1.0]])
    RS = np.array([[s * c, -s * sn, 0], [s * sn, s * c, 0], [0, 0, 1.0]])
    P = np.array([[1, 0, 0], [0, 1, 0], [p["persp"][0], p["persp"][1], 1.0]])
    T1 = np.array([[1, 0, (W - 1) / 2], [0, 1, (H - 1) / 2], [0, 0, 1.0]])
    return T1 @ P @ RS @ T0


def apply_h(Hm, pts):
    pts = np.asarray(pts, float)
    q = np.c_[pts, np.ones(len(pts))] @ Hm.T
    return q[:, :2] / q[:, 2:3]


def rule_families(gap):
    """(positions along one axis, extent [lo, hi] along the other) in um."""
    def triple(ps):
        return [x + d for x in ps for d in (-gap, 0.0, gap)]
    centre_single = [1000 + 50 * k for k in range(1, 20) if k % 4]
    return [
        ([0.0, 3000.0] + triple([1000.0, 2000.0]), [(0, 3000)]),
        (triple([1200.0, 1400.0, 1600.0, 1800.0]) + centre_single, [(1000, 2000)]),
        ([250.0, 500.0, 750.0, 2250.0, 2500.0, 2750.0], [(0, 1000), (2000, 3000)]),
    ]


def render_ruling(p, Hm):
    """Antialiased groove profile (0..1) of the ruling on the padded canvas."""
    Hinv = np.linalg.inv(Hm)
    ys, xs = np.mgrid[0:CH, 0:CW].astype(np.float32)
    xs -= PAD
    ys -= PAD
    den = Hinv[2, 0] * xs + Hinv[2, 1] * ys + Hinv[2, 2]
    u = (Hinv[0, 0] * xs + Hinv[0, 1] * ys + Hinv[0, 2]) / den
    v = (Hinv[1, 0] * xs + Hinv[1, 1] * ys + Hinv[1, 2]) / den
    del xs, ys, den
    w = p["line_w"]
    soft = 0.35 * p["umpp"]
    prof = np.zeros((CH, CW), np.float32)
    for a, b in ((u, v), (v, u)):
        for positions, extents in rule_families(p["triple_gap"]):
            P = np.array(sorted(positions), np.float32)
            i = np.clip(np.searchsorted(P, a), 1, len(P) - 1)
            d = np.minimum(np.abs(a - P[i - 1]), np.abs(a - P[i]))
            m = np.zeros_like(prof, dtype=bool)
            for lo, hi in extents:
                m |= (b >= lo - w / 2) & (b <= hi + w / 2)
            line = 1.0 / (1.0 + np.exp(np.clip((d - w / 2) / soft, -30, 30)))
            np.maximum(prof, np.where(m, line, 0), out=prof)
    return prof


# ----------------------------------------------------------------------------- cells
def place_cells(rng, p):
    n, rmean = p["n_cells"], p["r_mean"]
    cells, buckets, B = [], {}, 32
    tries = 0
    while len(cells) < n and tries < n * 80:
        tries += 1
        dead = rng.random() < p["dead_frac"]
        r = float(np.clip(rng.normal(rmean * (1.05 if dead else 1.0), 0.13 * rmean), 5.0, 12.0))
        if cells and rng.random() < p["clump_frac"]:
            c0 = cells[int(rng.integers(len(cells)))]
            a = rng.uniform(0, 2 * math.pi)
            d = (r + c0["r"]) * rng.uniform(0.93, 1.02)
            x, y = c0["x"] + d * math.cos(a), c0["y"] + d * math.sin(a)
        else:
            x, y = rng.uniform(-r, W - 1 + r), rng.uniform(-r, H - 1 + r)
        if not (-r <= x <= W - 1 + r and -r <= y <= H - 1 + r):
            continue
        bx, by = int(x // B), int(y // B)
        ok = True
        for j in range(by - 1, by + 2):
            for i in range(bx - 1, bx + 2):
                for c in buckets.get((i, j), ()):
                    if math.hypot(c["x"] - x, c["y"] - y) < 0.92 * (c["r"] + r):
                        ok = False
        if not ok:
            continue
        c = {"x": x, "y": y, "r": r, "dead": dead}
        cells.append(c)
        buckets.setdefault((bx, by), []).append(c)
    return cells


def patch(x, y, R, ss=2):
    """Supersampled local coordinates around canvas point (x, y)."""
    x0, y0 = int(math.floor(x)) - R, int(math.floor(y)) - R
    x1, y1 = x0 + 2 * R + 1, y0 + 2 * R + 1
    x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, CW), min(y1, CH)
    if x1c <= x0c or y1c <= y0c:
        return None
    off = (np.arange(ss) + 0.5) / ss - 0.5
    gx = (np.arange(x0c, x1c)[:, None] + off[None, :]).ravel() - x
    gy = (np.arange(y0c, y1c)[:, None] + off[None, :]).ravel() - y
    dy, dx = np.meshgrid(gy, gx, indexing="ij")
    return (slice(y0c, y1c), slice(x0c, x1c)), dx, dy, ss


def down(a, ss):
    h, w = a.shape[0] // ss, a.shape[1] // ss
    return a.reshape(h, ss, w, ss).mean(axis=(1, 3))


def stamp_cell(rng, c, umpp, opd, od):
    r = c["r"]
    pt = patch(c["x"] + PAD, c["y"] + PAD, int(math.ceil(r * 1.3)) + 2)
    if pt is None:
        return
    sl, dx, dy, ss = pt
    th = rng.uniform(0, math.pi)
    e = rng.uniform(0, 0.12 if c["dead"] else 0.07)
    ca, sa = math.cos(th), math.sin(th)
    xr, yr = dx * ca + dy * sa, -dx * sa + dy * ca
    rho = np.hypot(xr / (1 + e), yr / (1 - e))
    ang = np.arctan2(yr, xr)
    wob = np.ones_like(rho)
    for k in (2, 3, 5):
        wob += rng.normal(0, 0.035 if c["dead"] else 0.012) * np.cos(k * ang + rng.uniform(0, 6.3))
    rn = rho / (r * wob)
    t = np.sqrt(np.clip(1 - rn ** 2, 0, 1))
    tex = ndimage.gaussian_filter(rng.normal(0, 1, rn.shape), 1.2 * ss)
    tex /= tex.std() + 1e-6
    thick = 2 * r * umpp * rng.uniform(0.7, 1.0)          # um
    if c["dead"]:
        dn = rng.uniform(0.004, 0.014)
        stain = rng.uniform(0.35, 1.1)
        a = stain * t ** 0.5 * np.clip(1 + 0.25 * tex, 0.3, 2) * (rn < 1)
        od[:, sl[0], sl[1]] += TRYPAN[:, None, None] * down(a, ss)[None]
    else:
        dn = rng.uniform(0.02, 0.05)
        od[:, sl[0], sl[1]] += 0.03 * down(t, ss)[None]
    o = dn * thick * t * (1 + 0.08 * tex)
    o += rng.uniform(0.15, 0.45) * np.exp(-((rn - 0.95) / 0.06) ** 2)   # membrane
    if rng.random() < 0.5:                                  # nucleus
        nx, ny = rng.normal(0, 0.2 * r, 2)
        nr = r * rng.uniform(0.35, 0.55)
        o += 0.6 * dn * thick * np.sqrt(np.clip(1 - ((dx - nx) ** 2 + (dy - ny) ** 2) / nr ** 2, 0, 1))
    opd[sl] += down(o, ss)


# ----------------------------------------------------------------------------- debris
def poly_mask(rng, size, nv, jag):
    """Random polygon mask on a (2*size+1)^2 patch, antialiased."""
    R = size
    ang = np.sort(rng.uniform(0, 2 * math.pi, nv))
    rad = R * 0.8 * (1 - jag * rng.random(nv))
    pts = np.c_[R + rad * np.cos(ang), R + rad * np.sin(ang)]
    m = np.zeros((2 * R + 1, 2 * R + 1), np.uint8)
    cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return m.astype(np.float32) / 255, pts


def add_at(arr, x, y, a):
    """Add patch a centred at canvas (x, y) into arr (2-D or 3-D with channel first)."""
    h, w = a.shape[-2:]
    x0, y0 = int(round(x)) - w // 2, int(round(y)) - h // 2
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, CW), min(y0 + h, CH)
    if xb <= xa or yb <= ya:
        return
    sub = a[..., ya - y0:yb - y0, xa - x0:xb - x0]
    arr[..., ya:yb, xa:xb] += sub


def far_from_cells(x, y, rad, cells):
    return all(math.hypot(c["x"] - x, c["y"] - y) > c["r"] + rad + 2 for c in cells)


def render_debris(rng, p, cells, opd, od):
    k = p["debris"]
    rnd_xy = lambda: (rng.uniform(0, CW), rng.uniform(0, CH))
    # tiny specks and faint round particles (a few px, below cell size)
    for _ in range(int(rng.integers(30, 150) * k)):
        x, y = rnd_xy()
        s = rng.uniform(0.6, 2.8)
        R = int(math.ceil(s * 2)) + 1
        yy, xx = np.mgrid[-R:R + 1, -R:R + 1]
        g = np.exp(-(xx ** 2 + yy ** 2) / (2 * s ** 2))
        if rng.random() < 0.5:
            add_at(od, x, y, (rng.uniform(0.1, 0.7) * g)[None] * np.ones((3, 1, 1)))
        add_at(opd, x, y, rng.uniform(-0.1, 0.25) * g)
    # irregular grey particles (jagged, absorbing, textured)
    for _ in range(int(rng.integers(4, 20) * k)):
        x, y = rnd_xy()
        size = int(rng.integers(3, 18))
        if not far_from_cells(x - PAD, y - PAD, size, cells):
            continue
        m, _ = poly_mask(rng, size, int(rng.integers(5, 11)), rng.uniform(0.4, 0.8))
        tex = 1 + 0.4 * ndimage.gaussian_filter(rng.normal(0, 1, m.shape), 1.0) * 3
        m = ndimage.gaussian_filter(m, 0.6) * np.clip(tex, 0.2, 2)
        grey = rng.uniform(0.15, 0.8) * np.array([1.0, 1.0, rng.uniform(0.85, 1.1)])
        add_at(od, x, y, grey[:, None, None] * m[None])
        add_at(opd, x, y, rng.uniform(0.0, 0.3) * m)
    # fibres: smooth random walks, thin, weakly absorbing
    for _ in range(int(rng.integers(0, 5) * k)):
        x, y = rnd_xy()
        L = rng.uniform(60, 450)
        a, cur = rng.uniform(0, 2 * math.pi), rng.normal(0, 0.01)
        pts = []
        for _s in range(int(L / 4)):
            pts.append((x, y))
            cur += rng.normal(0, 0.004)
            a += cur
            x, y = x + 4 * math.cos(a), y + 4 * math.sin(a)
        m = np.zeros((CH, CW), np.uint8)
        cv2.polylines(m, [np.round(np.array(pts) * 16).astype(np.int32)], False, 255,
                      int(rng.integers(1, 4)), cv2.LINE_AA, shift=4)
        m = ndimage.gaussian_filter(m.astype(np.float32) / 255, 0.5)
        od += rng.uniform(0.05, 0.35) * m[None]
        opd += rng.uniform(0.05, 0.35) * m
    # crystals: straight-edged, refractive facets (linear OPD ramps), little absorption
    for _ in range(int(rng.integers(0, 6) * k)):
        x, y = rnd_xy()
        size = int(rng.integers(4, 16))
        if not far_from_cells(x - PAD, y - PAD, size, cells):
            continue
        nv = int(rng.choice([3, 4, 4, 6]))
        m, pts = poly_mask(rng, size, nv, 0.15)
        yy, xx = np.mgrid[0:m.shape[0], 0:m.shape[1]] - size
        ramp = rng.uniform(0.3, 1.2) + 0.08 * (rng.normal() * xx + rng.normal() * yy)
        add_at(opd, x, y, m * ramp)
        add_at(od, x, y, (0.05 * m)[None] * np.ones((3, 1, 1)))
    # scratches on the glass: long straight faint phase lines
    for _ in range(int(rng.integers(0, 3))):
        m = np.zeros((CH, CW), np.uint8)
        x, y = rnd_xy()
        a = rng.uniform(0, math.pi)
        d = 3000
        cv2.line(m, (int(x - d * math.cos(a)), int(y - d * math.sin(a))),
                 (int(x + d * math.cos(a)), int(y + d * math.sin(a))), 255, 1, cv2.LINE_AA)
        opd += rng.uniform(0.02, 0.06) * ndimage.gaussian_filter(m.astype(np.float32) / 255, 0.7)


# ----------------------------------------------------------------------------- optics
def propagate(p, opd, od):
    """Angular-spectrum propagation per channel; returns intensity (3, H, W)."""
    fx = sfft.fftfreq(CW, d=p["umpp"]).astype(np.float32)
    fy = sfft.fftfreq(CH, d=p["umpp"]).astype(np.float32)
    f2 = fy[:, None] ** 2 + fx[None, :] ** 2
    out = np.empty((3, H, W), np.float32)
    for ch in range(3):
        lam = LAMBDA[ch]
        dz = p["dz"] + p["lca"] * (lam - 0.54) / 0.145
        k = N_MED / lam
        field = np.power(10.0, -0.5 * od[ch]) * np.exp(1j * (2 * np.pi / lam) * opd)
        F = sfft.fft2(field.astype(np.complex64), workers=-1)
        kz = np.sqrt(np.maximum(k * k - f2, 0)) - k
        cut = p["na"] / lam
        pupil = np.clip((cut - np.sqrt(f2)) / (0.04 * cut) + 0.5, 0, 1)
        F *= (pupil * np.exp(1j * 2 * np.pi * dz * kz)).astype(np.complex64)
        I = np.abs(sfft.ifft2(F, workers=-1)) ** 2
        pc = min(2.0, abs(dz) * p["na_cond"] / p["umpp"] * 0.35)
        sig = math.sqrt(p["blur0"] ** 2 + pc ** 2 + p["defocus_blur"] ** 2)
        I = ndimage.gaussian_filter(I.astype(np.float32), sig)
        out[ch] = I[PAD:PAD + H, PAD:PAD + W]
    # lateral chromatic aberration: R and B magnified slightly differently
    for ch, s in ((0, 1 + p["lat_ca"]), (2, 1 - p["lat_ca"])):
        M = np.array([[s, 0, (1 - s) * (W - 1) / 2], [0, s, (1 - s) * (H - 1) / 2]], np.float32)
        out[ch] = cv2.warpAffine(out[ch], M, (W, H), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)
    return out


def illumination(rng, p):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xn, yn = (xx - W / 2) / (W / 2), (yy - H / 2) / (W / 2)
    cx, cy = rng.normal(0, 0.25, 2)
    r2 = (xn - cx) ** 2 + (yn - cy) ** 2
    a = rng.uniform(0, 2 * math.pi)
    I = (1 - p["vignette"] * r2) * (1 + p["illum_grad"] * (math.cos(a) * xn + math.sin(a) * yn))
    if p["illum_grad"] > 0.2:                     # lamp filament / off-axis hotspot
        hx, hy = rng.uniform(-0.8, 0.8), rng.uniform(-0.4, 0.4)
        I *= 1 + 0.3 * np.exp(-((xn - hx) ** 2 + (yn - hy) ** 2) / 0.15)
    for _ in range(int(rng.integers(0, 6))):       # shadows of dust far out of focus
        x, y, s = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(15, 90)
        I *= 1 - rng.uniform(0.03, 0.12) * np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * s * s))
    return np.clip(I, 0.05, None)


# ----------------------------------------------------------------------------- camera
def camera(rng, p, lin):
    raw = lin * (p["lamp"] * p["expo"])[:, None, None]
    if p["glare"]:
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        for _ in range(int(rng.integers(1, 3))):
            x, y = rng.uniform(0, W), rng.uniform(0, H)
            sx, sy = rng.uniform(60, 260, 2)
            blob = np.exp(-((xx - x) ** 2 / (2 * sx * sx) + (yy - y) ** 2 / (2 * sy * sy)))
            raw += (rng.uniform(0.6, 1.6) * blob)[None] * np.array([1, 0.95, 0.85])[:, None, None]
    mos = np.empty((H, W), np.float32)            # RGGB
    mos[0::2, 0::2] = raw[0, 0::2, 0::2]
    mos[0::2, 1::2] = raw[1, 0::2, 1::2]
    mos[1::2, 0::2] = raw[1, 1::2, 0::2]
    mos[1::2, 1::2] = raw[2, 1::2, 1::2]
    fw = p["full_well"]
    e = rng.poisson(np.clip(mos, 0, 1.5) * fw).astype(np.float32)
    e += rng.normal(0, p["read_noise"], e.shape).astype(np.float32)
    for _ in range(int(rng.integers(0, 30))):     # hot pixels
        e[rng.integers(0, H), rng.integers(0, W)] += fw * rng.uniform(0.2, 1)
    dn = np.clip(np.round(e / fw * 4095 + 16), 0, 4095).astype(np.uint16)
    rgb = cv2.cvtColor(dn, cv2.COLOR_BayerBG2RGB).astype(np.float32)
    rgb = np.clip(rgb - 16, 0, None) / 4095 / p["expo"]
    gains = p["wb_err"] / p["lamp"]
    rgb *= (gains * p["bg_level"])[None, None, :]
    s = p["saturation"]
    ccm = np.full((3, 3), (1 - s) / 3) + np.eye(3) * s
    rgb = np.clip(rgb @ ccm.T, 0, 1)
    img = np.power(rgb, 1 / 2.2)
    if p["sharpen"] > 0:
        img = img + p["sharpen"] * (img - cv2.GaussianBlur(img, (0, 0), 1.2))
    return np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------- driver
def render(rng, p):
    Hm = homography(p)
    opd = np.zeros((CH, CW), np.float32)
    od = np.zeros((3, CH, CW), np.float32)
    prof = render_ruling(p, Hm)
    od += p["line_od"] * prof[None]
    opd += p["line_opd"] * prof
    del prof
    cells = place_cells(rng, p)
    for c in cells:
        stamp_cell(rng, c, p["umpp"], opd, od)
    render_debris(rng, p, cells, opd, od)
    lin = propagate(p, opd, od) * illumination(rng, p)[None]
    img = camera(rng, p, lin)
    corners = apply_h(Hm, [(0, 0), (3000, 0), (3000, 3000), (0, 3000)])
    return img, cells, corners


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--per-condition", type=int, default=4)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for ci, cond in enumerate(CONDITIONS):
        for idx in range(a.per_condition):
            rng = np.random.default_rng(np.random.SeedSequence([6, a.seed, ci, idx]))
            p = sample_params(rng, cond)
            img, cells, corners = render(rng, p)
            stem = f"gen6-s{a.seed}-{cond}-{idx:02d}"
            name = f"{stem}.{p['fmt']}"
            bgr = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
            if p["fmt"] == "jpg":
                cv2.imwrite(os.path.join(a.out, name), bgr, [cv2.IMWRITE_JPEG_QUALITY, p["quality"]])
            else:
                cv2.imwrite(os.path.join(a.out, name), bgr, [cv2.IMWRITE_PNG_COMPRESSION, 3])
            lab = [{"x": round(c["x"], 2), "y": round(c["y"], 2), "r": round(c["r"], 2),
                    "label": "dead" if c["dead"] else "live"}
                   for c in cells if 0 <= c["x"] <= W - 1 and 0 <= c["y"] <= H - 1]
            tags = ["synthetic", "gen6", cond, "lines-" + p["line_mode"],
                    "jpeg" if p["fmt"] == "jpg" else "png"] + sorted(p["effects"])
            if cond == "blank":
                tags.append("blank-control")
            doc = {"version": 1, "image": name, "width": W, "height": H,
                   "umPerPixel": round(p["umpp"], 5), "dilution": 1.0,
                   "grid": {"corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
                            "widthUm": 3000, "heightUm": 3000},
                   "cells": lab, "tags": tags,
                   "generator": {"name": "gen6-synth", "seed": a.seed, "condition": cond,
                                 "index": idx, "defocusUm": round(p["dz"], 2),
                                 "rotationDeg": round(p["rot"], 2)}}
            with open(os.path.join(a.out, stem + ".json"), "w") as f:
                json.dump(doc, f, indent=1)
            print(f"{name}: {len(lab)} cells ({sum(c['label'] == 'dead' for c in lab)} dead)")


if __name__ == "__main__":
    main()
