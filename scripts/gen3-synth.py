#!/usr/bin/env python3
"""gen3 - independent synthetic brightfield hemocytometer / trypan-blue image generator.

Renders 1920x1080 RGB photographs of a Neubauer-improved counting chamber with
trypan-blue stained cells, plus a label file (fixture label format v1) next to
each image.

    python3 scripts/gen3-synth.py --out DIR --seed N --per-condition K [--jobs J]

Only numpy and Pillow are used.  Output is deterministic for a given seed and K
(every image draws from its own generator seeded by (seed, condition, index)).

Written for cellqa's eighteenth session by a contributor who read only labels-v1 and a brief,
never the pipeline or the other generators: a third opinion on generalisation. Its live cells
mix four looks (a phase-bright disc in a thin dark outline, a grey disc inside a light halo, a
ring at background level with an off-centre refractile spot, slightly elliptical cells with
irregular edges); it draws heavy triple lines (3-6 px strokes), mottled grey debris blobs,
fibres and glare. Not part of CI; `cellqa run DIR` scores a set.

Coordinates: x right, y down, origin at the centre of the top-left pixel.  The
renderer evaluates every shape at pixel centres (pixel column j has x == j), so
label centres are exactly the centres that were drawn.
"""
import argparse
import colorsys
import json
import math
import os
import sys

import numpy as np
from PIL import Image

W, H = 1920, 1080
CONDITIONS = ["standard", "dense", "sparse", "blank", "hard"]
CHAMBER_UM = 3000.0
VISIBLE_MIN = 12.0  # min 90th-percentile |difference| (8-bit levels) a labelled cell must make
VISIBLE_SNR = 1.5   # ... and at least this many times the local sensor-noise sigma


# ----------------------------------------------------------------------------
# small numeric helpers
# ----------------------------------------------------------------------------

def gkernel(s):
    rad = max(1, int(math.ceil(3.0 * s)))
    x = np.arange(-rad, rad + 1, dtype=np.float32)
    k = np.exp(-x * x / (2.0 * s * s))
    return (k / k.sum()).astype(np.float32), rad


def blur(a, s):
    """Separable Gaussian blur over the first two axes (edge padding)."""
    if s is None or s < 0.3:
        return a
    k, rad = gkernel(s)
    out = a.astype(np.float32, copy=False)
    for ax in (0, 1):
        n = out.shape[ax]
        pad = [(0, 0)] * out.ndim
        pad[ax] = (rad, rad)
        p = np.pad(out, pad, mode="edge")
        acc = np.zeros_like(out)
        for i, kv in enumerate(k):
            sl = [slice(None)] * out.ndim
            sl[ax] = slice(i, i + n)
            acc += kv * p[tuple(sl)]
        out = acc
    return out


def smooth_field(rng, h, w, ny, nx):
    small = rng.standard_normal((ny, nx)).astype(np.float32)
    im = Image.fromarray(small).resize((w, h), Image.Resampling.BICUBIC)
    return np.asarray(im, dtype=np.float32)


def hsv_rgb(h_deg, s, v):
    return np.array(colorsys.hsv_to_rgb((h_deg % 360) / 360.0, s, v), dtype=np.float32)


def patch_noise(rng, shape, sigma):
    n = rng.standard_normal(shape).astype(np.float32)
    n = blur(n, sigma)
    sd = n.std()
    return n / sd if sd > 0 else n


# ----------------------------------------------------------------------------
# geometry: chamber (um) -> image (px) homography
# ----------------------------------------------------------------------------

def make_homography(s, theta, u0, v0, px, py):
    c, si = math.cos(theta), math.sin(theta)
    T0 = np.array([[1, 0, -u0], [0, 1, -v0], [0, 0, 1]], float)
    RS = np.array([[s * c, -s * si, 0], [s * si, s * c, 0], [0, 0, 1]], float)
    P = np.array([[1, 0, 0], [0, 1, 0], [px, py, 1]], float)
    T1 = np.array([[1, 0, (W - 1) / 2.0], [0, 1, (H - 1) / 2.0], [0, 0, 1]], float)
    return T1 @ P @ RS @ T0


def apply_h(Hm, pts):
    pts = np.asarray(pts, float)
    q = np.c_[pts, np.ones(len(pts))] @ Hm.T
    return q[:, :2] / q[:, 2:3]


# ----------------------------------------------------------------------------
# scene description (all randomness is drawn here)
# ----------------------------------------------------------------------------

def shape_params(rng, irregular):
    if irregular:
        q = rng.uniform(1.08, 1.25)
        harm = [(k, rng.uniform(0.015, 0.045) / (k - 1.5), rng.uniform(0, 2 * math.pi))
                for k in (3, 4, 5, 6)]
    else:
        q = rng.uniform(1.0, 1.07)
        harm = [(k, rng.uniform(0.0, 0.012), rng.uniform(0, 2 * math.pi)) for k in (3, 4)]
    return dict(q=q, ang=rng.uniform(0, math.pi), harm=harm)


def live_params(rng, kind):
    p = dict(kind=kind, label="live", noise_seed=int(rng.integers(2**31)))
    p.update(shape_params(rng, kind == "d"))
    if kind == "a":      # phase-bright flat disc, thin sharp dark outline
        p.update(bright=rng.uniform(0.15, 0.35), od=rng.uniform(0.45, 0.8),
                 osig=rng.uniform(0.45, 0.75), k=rng.uniform(0.75, 0.9))
    elif kind == "b":    # grey disc a bit darker than background, light halo outside
        p.update(grey=rng.uniform(0.72, 0.88), halo=rng.uniform(0.08, 0.22),
                 hoff=rng.uniform(1.2, 2.2), hsig=rng.uniform(0.8, 1.4),
                 k=rng.uniform(0.8, 0.95), tex=rng.uniform(0.01, 0.035))
    elif kind == "c":    # background-level inside, dark ring, off-centre refractile spot
        p.update(rd=rng.uniform(0.35, 0.65), rw=rng.uniform(1.2, 2.4),
                 k=rng.uniform(0.7, 0.9), sfrac=rng.uniform(0.25, 0.55),
                 sang=rng.uniform(0, 2 * math.pi), ssig=rng.uniform(0.7, 1.4),
                 samp=rng.uniform(0.5, 1.1))
    else:                # "d": elliptical, irregular edge, granular interior
        p.update(c0=rng.uniform(0.88, 1.04), tex=rng.uniform(0.05, 0.11),
                 ed=rng.uniform(0.3, 0.6), es0=rng.uniform(0.6, 1.2),
                 esph=rng.uniform(0, 2 * math.pi), k=rng.uniform(0.8, 0.95))
    p["cblur"] = rng.uniform(0.6, 1.6) if rng.random() < 0.25 else 0.0
    return p


def dead_params(rng, cast):
    kind = "f" if rng.random() < 0.5 else "m"
    p = dict(kind=kind, label="dead", noise_seed=int(rng.integers(2**31)))
    p.update(shape_params(rng, rng.random() < 0.3))
    hue = rng.uniform(205, 235)
    sat = rng.uniform(0.3, 0.6)
    val = rng.uniform(0.4, 0.7)
    # relative colour such that (background cast * rel) has the intended hue
    p["col"] = (val * hsv_rgb(hue, sat, 1.0) * cast.max() / cast).tolist()
    p["hue"] = hue
    if kind == "f":
        p.update(shade=rng.uniform(0.05, 0.2), od=rng.uniform(0.15, 0.4),
                 k=rng.uniform(0.88, 0.97))
    else:
        p.update(mott=rng.uniform(0.08, 0.18), edge=rng.uniform(0.3, 0.5),
                 ew=rng.uniform(1.0, 2.0), k=rng.uniform(0.88, 0.97))
    p["cblur"] = rng.uniform(0.6, 1.4) if rng.random() < 0.2 else 0.0
    return p


COND_CFG = {
    #            n cells      clump frac     glare p  blur p  heavy p faint p  tilt
    "standard": dict(n=(60, 150), clump=(0.05, 0.15), glare=0.2, blur=0.1, heavy=0.2, faint=0.25),
    "dense": dict(n=(300, 600), clump=(0.2, 0.4), glare=0.15, blur=0.1, heavy=0.2, faint=0.2),
    "sparse": dict(n=(10, 30), clump=(0.0, 0.1), glare=0.2, blur=0.1, heavy=0.2, faint=0.25),
    "blank": dict(n=(0, 0), clump=(0.0, 0.0), glare=0.2, blur=0.1, heavy=0.2, faint=0.25),
    "hard": dict(n=(80, 200), clump=(0.1, 0.25), glare=1.0, blur=1.0, heavy=1.0, faint=0.0),
}


def make_scene(seed, cond, idx, jpeg):
    rng = np.random.default_rng([seed, CONDITIONS.index(cond), idx, 3])
    cfg = COND_CFG[cond]
    hard = cond == "hard"
    sc = dict(cond=cond, idx=idx, jpeg=bool(jpeg or hard))

    # --- optics / scale / chamber pose
    ump = rng.uniform(0.8, 1.25)                 # um per pixel at the image centre
    s = 1.0 / ump
    if hard:
        tilt = rng.uniform(3.0, 8.0) * rng.choice([-1, 1])
    elif rng.random() < 0.5:
        tilt = rng.uniform(-2.0, 2.0)
    else:
        tilt = rng.uniform(2.2, 8.0) * rng.choice([-1, 1])
    theta = math.radians(tilt)
    px, py = rng.uniform(-3e-5, 3e-5, 2)
    corners_px = [(0, 0), (W - 1, 0), (W - 1, H - 1), (0, H - 1)]
    for _ in range(2000):
        if rng.random() < 0.5:
            u0, v0 = rng.uniform(1000, 2000, 2)   # around the central square
        else:
            u0, v0 = rng.uniform(300, 2700, 2)
        Hm = make_homography(s, theta, u0, v0, px, py)
        uv = apply_h(np.linalg.inv(Hm), corners_px)
        if uv.min() > 20 and uv.max() < CHAMBER_UM - 20:   # whole frame on the ruled area
            break
    else:
        raise RuntimeError("could not place the frame inside the ruled area")
    sc.update(ump=ump, s=s, tilt=tilt, Hm=Hm)

    # --- grid style
    r_ = rng.random()
    if hard or r_ < cfg["heavy"]:
        gstyle, gw, gd = "heavy", rng.uniform(3.0, 6.0), rng.uniform(0.72, 0.92)
    elif r_ < cfg["heavy"] + cfg["faint"]:
        gstyle, gw, gd = "faint", rng.uniform(0.8, 1.3), rng.uniform(0.12, 0.3)
    else:
        gstyle, gw, gd = "normal", rng.uniform(1.2, 2.5), rng.uniform(0.35, 0.7)
    sc["grid"] = dict(style=gstyle, w=gw, dark=gd, w1=gw * rng.uniform(0.65, 1.0),
                      d1=gd * rng.uniform(0.7, 1.0), gap=rng.uniform(1.5, 3.5),
                      blur=rng.uniform(0.0, 0.8), fringe=rng.uniform(0.0, 0.08))

    # --- illumination
    yellow = rng.random() < 0.6
    cast = (np.array([1.0, rng.uniform(0.95, 0.99), rng.uniform(0.8, 0.92)]) if yellow else
            np.array([1.0, rng.uniform(0.98, 1.01), rng.uniform(0.96, 1.0)]))
    cast = (cast / cast.max()).astype(np.float32)
    sc["illum"] = dict(level=rng.uniform(0.72, 0.88), cast=cast, gang=rng.uniform(0, 2 * math.pi),
                       grad=rng.uniform(0.0, 0.12), vig=rng.uniform(0.05, 0.3),
                       vcx=rng.uniform(0.35, 0.65) * W, vcy=rng.uniform(0.35, 0.65) * H,
                       mottle=rng.uniform(0.005, 0.018), field_seed=int(rng.integers(2**31)))
    sc["cast_name"] = "yellow" if yellow else "grey"

    # --- glare
    glare = []
    if rng.random() < cfg["glare"]:
        if rng.random() < 0.35:
            glare.append(dict(kind="streak", x=rng.uniform(0.2, 0.8) * W, y=rng.uniform(0.2, 0.8) * H,
                              ang=rng.uniform(0, math.pi), sig=rng.uniform(8, 30),
                              len=rng.uniform(300, 900), amp=rng.uniform(0.3, 0.6)))
        for _ in range(int(rng.integers(0 if glare else 1, 4))):
            glare.append(dict(kind="patch", x=rng.uniform(0, W), y=rng.uniform(0, H),
                              sx=rng.uniform(60, 220), sy=rng.uniform(60, 220),
                              ang=rng.uniform(0, math.pi), amp=rng.uniform(0.25, 0.6)))
    sc["glare"] = glare
    sc["defocus"] = (rng.uniform(0.8, 2.0) if hard else
                     (rng.uniform(0.8, 1.3) if rng.random() < cfg["blur"] else 0.0))
    sc["photons"] = rng.uniform(400, 900) if hard else rng.uniform(700, 2000)
    sc["read"] = rng.uniform(0.002, 0.006)
    sc["noise_seed"] = int(rng.integers(2**31))

    G = glare_map(glare)
    bgl = illum_level(sc["illum"])
    sat_free = (bgl + G) < 0.95        # cells are not placed in saturated glare cores

    # --- cells
    n = int(rng.integers(cfg["n"][0], cfg["n"][1] + 1))
    rmin, rmax = max(5.0, 5.0 / ump), min(12.0, 10.0 / ump)
    dead_frac = rng.uniform(0.0, 0.5) if cond == "sparse" else rng.uniform(0.1, 0.6)
    w_kinds = rng.dirichlet([1.5] * 4)
    # make sure several appearance models are present
    w_kinds = np.maximum(w_kinds, 0.08)
    w_kinds /= w_kinds.sum()

    def new_cell_params(x, y):
        if rng.random() < dead_frac:
            r = float(np.clip(rng.uniform(rmin, rmax) * rng.uniform(0.8, 1.25), 5.0, 12.0))
            p = dead_params(rng, cast)
        else:
            r = float(rng.uniform(rmin, rmax))
            p = live_params(rng, "abcd"[int(rng.choice(4, p=w_kinds))])
        p.update(x=float(x), y=float(y), r=r)
        return p

    cells = []
    xs = np.zeros(0)
    ys = np.zeros(0)
    ext = np.zeros(0)

    def ok_pos(x, y, r, extra_check=None):
        if not (0.3 * r <= x <= W - 1 - 0.3 * r and 0.3 * r <= y <= H - 1 - 0.3 * r):
            return False
        if not sat_free[int(round(y)), int(round(x))]:
            return False
        return True

    n_clump_target = int(round(n * rng.uniform(*cfg["clump"])))
    n_in_clumps = 0
    clusters = 0
    guard = 0
    while n_in_clumps < n_clump_target and guard < 400:
        guard += 1
        size = int(rng.choice([2, 2, 2, 3, 3, 4, 5, 6]))
        size = min(size, max(2, n_clump_target - n_in_clumps))
        chain = rng.random() < 0.4
        c0 = new_cell_params(rng.uniform(0, W - 1), rng.uniform(0, H - 1))
        if not ok_pos(c0["x"], c0["y"], c0["r"]):
            continue
        if len(xs) and np.any(np.hypot(xs - c0["x"], ys - c0["y"]) < ext + 1.15 * c0["r"] + 3):
            continue
        members = [c0]
        last_ang = rng.uniform(0, 2 * math.pi)
        for _m in range(1, size):
            placed = False
            for _t in range(40):
                base = members[-1] if chain else members[int(rng.integers(len(members)))]
                c2 = new_cell_params(0, 0)
                ang = (last_ang + rng.uniform(-1.0, 1.0)) if chain else rng.uniform(0, 2 * math.pi)
                ov = rng.uniform(0.0, 0.15) * min(base["r"], c2["r"])
                d = base["r"] + c2["r"] - ov
                nx, ny = base["x"] + d * math.cos(ang), base["y"] + d * math.sin(ang)
                if not ok_pos(nx, ny, c2["r"]):
                    continue
                good = True
                for mm in members:
                    if mm is base:
                        continue
                    if math.hypot(mm["x"] - nx, mm["y"] - ny) < mm["r"] + c2["r"] - 0.15 * min(mm["r"], c2["r"]):
                        good = False
                        break
                if not good:
                    continue
                if len(xs) and np.any(np.hypot(xs - nx, ys - ny) < ext + 1.15 * c2["r"] + 3):
                    continue
                c2["x"], c2["y"] = float(nx), float(ny)
                members.append(c2)
                last_ang = ang
                placed = True
                break
            if not placed:
                break
        if len(members) >= 2:
            clusters += 1
            for mm in members:
                mm["cluster"] = clusters
            cells.extend(members)
            n_in_clumps += len(members)
            xs = np.r_[xs, [m["x"] for m in members]]
            ys = np.r_[ys, [m["y"] for m in members]]
            ext = np.r_[ext, [1.15 * m["r"] for m in members]]
    guard = 0
    while len(cells) < n and guard < 200000:
        guard += 1
        c = new_cell_params(rng.uniform(0, W - 1), rng.uniform(0, H - 1))
        if not ok_pos(c["x"], c["y"], c["r"]):
            continue
        if len(xs) and np.any(np.hypot(xs - c["x"], ys - c["y"]) < ext + 1.15 * c["r"] + 2):
            continue
        cells.append(c)
        xs = np.r_[xs, c["x"]]
        ys = np.r_[ys, c["y"]]
        ext = np.r_[ext, 1.15 * c["r"]]
    rng.shuffle(cells)           # draw order independent of placement order
    sc["cells"] = cells
    sc["n_clusters"] = clusters
    sc["n_in_clumps"] = n_in_clumps

    # --- debris
    if cond == "blank":
        n_part, n_blob, n_fib, n_spk = (int(rng.integers(200, 500)), int(rng.integers(25, 60)),
                                        int(rng.integers(4, 11)), int(rng.integers(10, 31)))
    else:
        n_part, n_blob, n_fib, n_spk = (int(rng.integers(30, 121)), int(rng.integers(4, 16)),
                                        int(rng.integers(0, 4)), int(rng.integers(2, 11)))
    parts = []
    for _ in range(n_part):
        d = rng.uniform(1.0, 4.0)
        lumps = [(rng.normal(0, d * 0.3), rng.normal(0, d * 0.3), max(0.45, d / rng.uniform(2.5, 4.0)))
                 for _ in range(int(rng.integers(1, 4)))]
        parts.append(dict(x=rng.uniform(0, W - 1), y=rng.uniform(0, H - 1), lumps=lumps,
                          dark=rng.uniform(0.3, 0.7), brown=rng.uniform(0.0, 0.15)))
    blobs = []
    tries = 0
    while len(blobs) < n_blob and tries < 5000:
        tries += 1
        D = rng.uniform(4.0, 15.0)
        x, y = rng.uniform(0, W - 1), rng.uniform(0, H - 1)
        R0 = D / 2.0
        elong = rng.uniform(1.2, 2.2)
        if len(xs) and np.any(np.hypot(xs - x, ys - y) < ext + R0 * elong + 3):
            continue
        neutral = rng.random() < 0.5
        tint = (np.ones(3, np.float32) if neutral else
                hsv_rgb(rng.uniform(20, 60), rng.uniform(0.05, 0.2), 1.0))
        blobs.append(dict(x=x, y=y, R0=R0, elong=elong, ang=rng.uniform(0, math.pi),
                          harm=[(k, rng.uniform(0.08, 0.25) / math.sqrt(k - 1), rng.uniform(0, 2 * math.pi))
                                for k in range(2, 8)],
                          grey=rng.uniform(0.45, 0.85), tint=(tint / tint.max()).tolist(),
                          k=rng.uniform(0.6, 0.9), tex=rng.uniform(0.04, 0.12),
                          noise_seed=int(rng.integers(2**31))))
    fibres = []
    for _ in range(n_fib):
        L = rng.uniform(30, 250)
        x, y = rng.uniform(0, W - 1), rng.uniform(0, H - 1)
        a = rng.uniform(0, 2 * math.pi)
        curv = rng.normal(0, 0.01)
        pts = []
        step = 0.5
        for _i in range(int(L / step)):
            pts.append((x, y))
            a += curv * step + rng.normal(0, 0.01)
            x += step * math.cos(a)
            y += step * math.sin(a)
        fibres.append(dict(pts=pts, w=rng.uniform(0.7, 2.0), dark=rng.uniform(0.25, 0.6)))
    specks = []
    tries = 0
    while len(specks) < n_spk and tries < 2000:
        tries += 1
        x, y = rng.uniform(0, W - 1), rng.uniform(0, H - 1)
        if len(xs) and np.any(np.hypot(xs - x, ys - y) < ext + 4):
            continue
        specks.append(dict(x=x, y=y, sig=rng.uniform(0.5, 1.0), amp=rng.uniform(0.3, 0.8)))
    sc["debris"] = dict(parts=parts, blobs=blobs, fibres=fibres, specks=specks)
    return sc


# ----------------------------------------------------------------------------
# rendering
# ----------------------------------------------------------------------------

_YY, _XX = np.mgrid[0:H, 0:W].astype(np.float32)


def illum_level(il):
    gx = (_XX - W / 2) / W
    gy = (_YY - H / 2) / H
    grad = 1.0 + il["grad"] * (math.cos(il["gang"]) * gx + math.sin(il["gang"]) * gy) * 2
    rr = ((_XX - il["vcx"]) ** 2 + (_YY - il["vcy"]) ** 2) / (0.6 * W) ** 2
    vig = 1.0 - il["vig"] * np.clip(rr, 0, 2.0) / 1.0
    return (il["level"] * grad * np.clip(vig, 0.4, 1.0)).astype(np.float32)


def background(il):
    rng = np.random.default_rng(il["field_seed"])
    lvl = illum_level(il)
    mott = 1.0 + il["mottle"] * smooth_field(rng, H, W, 9, 16) \
        + 0.4 * il["mottle"] * smooth_field(rng, H, W, 27, 48)
    return (lvl * mott)[..., None] * il["cast"][None, None, :]


def glare_map(glare):
    G = np.zeros((H, W), np.float32)
    for g in glare:
        dx, dy = _XX - g["x"], _YY - g["y"]
        c, s = math.cos(g["ang"]), math.sin(g["ang"])
        a = c * dx + s * dy
        b = -s * dx + c * dy
        if g["kind"] == "patch":
            G += g["amp"] * np.exp(-0.5 * ((a / g["sx"]) ** 2 + (b / g["sy"]) ** 2))
        else:
            G += g["amp"] * np.exp(-0.5 * (b / g["sig"]) ** 2) * np.exp(-0.5 * (a / g["len"]) ** 2)
    return G


def line_cov(dpx, w):
    """Box-filtered (anti-aliased) coverage of a line of width w at distance dpx."""
    return np.clip(w / 2.0 + 0.5 - dpx, 0.0, 1.0)


def render_grid(sc):
    """Return darkness map in [0,1] of the Neubauer-improved ruling."""
    g = sc["grid"]
    s = sc["s"]
    Hi = np.linalg.inv(sc["Hm"])
    X = _XX.astype(np.float64)
    Y = _YY.astype(np.float64)
    den = Hi[2, 0] * X + Hi[2, 1] * Y + Hi[2, 2]
    U = (Hi[0, 0] * X + Hi[0, 1] * Y + Hi[0, 2]) / den
    V = (Hi[1, 0] * X + Hi[1, 1] * Y + Hi[1, 2]) / den
    # local scale (px per um) varies slightly under perspective: use the jacobian norm
    sl = s * den / den[H // 2, W // 2]
    triple_pos = np.array([0.0, 1000.0, 1200.0, 1400.0, 1600.0, 1800.0, 2000.0, 3000.0])
    single_pos = np.array([250.0, 500.0, 750.0, 2250.0, 2500.0, 2750.0])
    sp_um = (g["w"] + g["gap"]) / s            # triple-line spacing (centre to centre)
    ends = lambda q, lo, hi: np.clip((q - lo) * sl + 0.5, 0, 1) * np.clip((hi - q) * sl + 0.5, 0, 1)
    dark = np.zeros((H, W), np.float64)
    for T, Q in ((U, V), (V, U)):
        # triple lines (1 mm borders and 200 um group borders of the central square)
        d = np.full(T.shape, 1e9)
        for p in triple_pos:
            for off in (-sp_um, 0.0, sp_um):
                np.minimum(d, np.abs(T - p - off), out=d)
        c = line_cov(d * sl, g["w"]) * ends(Q, -sp_um, CHAMBER_UM + sp_um)
        np.maximum(dark, g["dark"] * c, out=dark)
        # single lines every 250 um across the outer columns/rows
        d = np.full(T.shape, 1e9)
        for p in single_pos:
            np.minimum(d, np.abs(T - p), out=d)
        c = line_cov(d * sl, g["w1"]) * ends(Q, 0.0, CHAMBER_UM)
        np.maximum(dark, g["d1"] * c, out=dark)
        # single lines every 50 um inside the central square (not where triples are)
        kk = np.rint((T - 1000.0) / 50.0)
        d = np.abs(T - 1000.0 - 50.0 * kk)
        valid = (kk >= 1) & (kk <= 19) & (np.mod(kk, 4) != 0)
        c = line_cov(d * sl, g["w1"]) * ends(Q, 1000.0, 2000.0) * valid
        np.maximum(dark, g["d1"] * c, out=dark)
    dark = dark.astype(np.float32)
    if g["blur"] >= 0.3:
        dark = blur(dark, g["blur"])
    return dark


def cell_geometry(c, pad_extra):
    q = c["q"]
    r = c["r"]
    a = 2 * r * q / (1 + q)
    b = 2 * r / (1 + q)
    hsum = sum(h[1] for h in c["harm"])
    rext = a * (1 + hsum)
    pad = int(math.ceil(rext + pad_extra))
    x0 = int(math.floor(c["x"])) - pad
    y0 = int(math.floor(c["y"])) - pad
    n = 2 * pad + 2
    X = np.arange(x0, x0 + n, dtype=np.float32) - c["x"]
    Y = np.arange(y0, y0 + n, dtype=np.float32) - c["y"]
    DX, DY = np.meshgrid(X, Y)
    ca, sa = math.cos(c["ang"]), math.sin(c["ang"])
    u = ca * DX + sa * DY
    v = -sa * DX + ca * DY
    phi = np.arctan2(v, u)
    dist = np.hypot(u, v)
    Re = a * b / np.sqrt((b * np.cos(phi)) ** 2 + (a * np.sin(phi)) ** 2)
    mod = 1.0
    for k, amp, ph in c["harm"]:
        mod = mod + amp * np.cos(k * phi + ph)
    R = Re * mod
    sd = dist - R
    return x0, y0, DX, DY, dist, R, sd, phi


def cell_layer(c):
    """Return (x0, y0, alpha, P, M) for one cell; colours relative to background."""
    rng = np.random.default_rng(c["noise_seed"])
    blur_s = c.get("cblur", 0.0)
    x0, y0, DX, DY, dist, R, sd, phi = cell_geometry(c, 6 + 3 * blur_s)
    shp = dist.shape
    cov = np.clip(0.5 - sd, 0.0, 1.0)
    M = np.ones(shp, np.float32)
    kind = c["kind"]
    if kind == "a":
        col = 1.0 + c["bright"] * (1.0 - 0.25 * np.clip(dist / R, 0, 1) ** 2)
        col = np.repeat(col[..., None], 3, axis=2)
        # dark outline lies just inside the boundary, so its outer edge is the label radius
        M = 1.0 - c["od"] * np.exp(-((sd + 0.2 + c["osig"]) ** 2) / (2 * c["osig"] ** 2))
    elif kind == "b":
        cov = np.clip(0.5 - sd / 1.3, 0.0, 1.0)
        col = c["grey"] + c["tex"] * patch_noise(rng, shp, 1.0)
        col = np.repeat(col[..., None], 3, axis=2)
        M = 1.0 + c["halo"] * np.exp(-((sd - c["hoff"]) ** 2) / (2 * c["hsig"] ** 2)) * np.clip(sd + 0.5, 0, 1)
    elif kind == "c":
        sx = c["sfrac"] * c["r"] * math.cos(c["sang"])
        sy = c["sfrac"] * c["r"] * math.sin(c["sang"])
        spot = c["samp"] * np.exp(-((DX - sx) ** 2 + (DY - sy) ** 2) / (2 * c["ssig"] ** 2))
        col = 1.0 + 0.02 * patch_noise(rng, shp, 1.0) + spot
        col = np.repeat(col[..., None], 3, axis=2)
        hw = c["rw"] / 2.0
        M = 1.0 - c["rd"] * np.exp(-((sd + hw) ** 2) / (2 * hw ** 2))
    elif kind == "d":
        col = c["c0"] + c["tex"] * patch_noise(rng, shp, 0.9)
        col = np.repeat(col[..., None], 3, axis=2)
        es = c["es0"] * (1.0 + 0.4 * np.cos(2 * phi + c["esph"]))
        M = 1.0 - c["ed"] * np.exp(-((sd + es) ** 2) / (2 * es ** 2))
    elif kind == "f":
        base = np.array(c["col"], np.float32)
        shade = 1.0 - c["shade"] * np.clip(dist / R, 0, 1) ** 2
        col = shade[..., None] * base[None, None, :]
        M = 1.0 - c["od"] * np.exp(-((sd + 0.5) ** 2) / (2 * 0.6 ** 2))
    else:  # "m": mottled interior, darker edge
        base = np.array(c["col"], np.float32)
        mott = 1.0 + c["mott"] * patch_noise(rng, shp, 1.1)
        edge = 1.0 - c["edge"] * np.exp(-((sd + c["ew"]) ** 2) / (2 * (0.6 * c["ew"] + 0.3) ** 2))
        centre = 1.0 + 0.12 * (1.0 - np.clip(dist / R, 0, 1) ** 2)
        col = (np.clip(mott * edge * centre, 0.2, 1.6))[..., None] * base[None, None, :]
        M = 1.0 - 0.2 * np.exp(-((sd + 0.3) ** 2) / (2 * 0.5 ** 2))
    alpha = (c["k"] * cov).astype(np.float32)
    P = (alpha[..., None] * col).astype(np.float32)
    M = np.repeat(M.astype(np.float32)[..., None], 3, axis=2)
    if blur_s >= 0.3:
        alpha = blur(alpha, blur_s)
        P = blur(P, blur_s)
        M = 1.0 + blur(M - 1.0, blur_s)
    return x0, y0, alpha, P, M


def composite(I, bg, x0, y0, alpha, P, M):
    h, w = alpha.shape
    xa, ya = max(x0, 0), max(y0, 0)
    xb, yb = min(x0 + w, W), min(y0 + h, H)
    if xa >= xb or ya >= yb:
        return
    sy = slice(ya - y0, yb - y0)
    sx = slice(xa - x0, xb - x0)
    Ii = I[ya:yb, xa:xb]
    out = Ii * (1.0 - alpha[sy, sx][..., None])
    if P is not None:
        out += P[sy, sx] * bg[ya:yb, xa:xb]
    if M is not None:
        out *= M[sy, sx]
    I[ya:yb, xa:xb] = out


def render_debris(I, bg, deb):
    for p in deb["parts"]:
        pad = 6
        x0, y0 = int(math.floor(p["x"])) - pad, int(math.floor(p["y"])) - pad
        n = 2 * pad + 2
        DX, DY = np.meshgrid(np.arange(x0, x0 + n) - p["x"], np.arange(y0, y0 + n) - p["y"])
        acc = np.zeros(DX.shape, np.float32)
        for lx, ly, ls in p["lumps"]:
            acc = np.maximum(acc, np.exp(-((DX - lx) ** 2 + (DY - ly) ** 2) / (2 * ls * ls)))
        d = p["dark"] * acc
        M = np.stack([1 - d, 1 - d * (1 + p["brown"]), 1 - d * (1 + 2 * p["brown"])], axis=2)
        composite(I, bg, x0, y0, np.zeros(DX.shape, np.float32), None, np.clip(M, 0, 1).astype(np.float32))
    for b in deb["blobs"]:
        rng = np.random.default_rng(b["noise_seed"])
        ext = b["R0"] * b["elong"] * 1.8 + 4
        pad = int(math.ceil(ext))
        x0, y0 = int(math.floor(b["x"])) - pad, int(math.floor(b["y"])) - pad
        n = 2 * pad + 2
        DX, DY = np.meshgrid(np.arange(x0, x0 + n) - b["x"], np.arange(y0, y0 + n) - b["y"])
        ca, sa = math.cos(b["ang"]), math.sin(b["ang"])
        u = (ca * DX + sa * DY) / b["elong"]
        v = -sa * DX + ca * DY
        phi = np.arctan2(v, u)
        mod = 1.0
        for k, amp, ph in b["harm"]:
            mod = mod + amp * np.cos(k * phi + ph)
        Rr = b["R0"] * np.clip(mod, 0.35, 2.0)
        sd = (np.hypot(u, v) - Rr) * 1.0
        cov = np.clip(0.5 - sd / 1.2, 0, 1)
        col = (b["grey"] + b["tex"] * patch_noise(rng, DX.shape, 0.8))[..., None] * \
            np.array(b["tint"], np.float32)[None, None, :]
        alpha = (b["k"] * cov).astype(np.float32)
        P = (alpha[..., None] * col).astype(np.float32)
        composite(I, bg, x0, y0, alpha, P, None)
    for f in deb["fibres"]:
        pts = np.array(f["pts"], np.float32)
        if len(pts) < 2:
            continue
        pad = 4
        x0 = int(math.floor(pts[:, 0].min())) - pad
        y0 = int(math.floor(pts[:, 1].min())) - pad
        x1 = int(math.ceil(pts[:, 0].max())) + pad
        y1 = int(math.ceil(pts[:, 1].max())) + pad
        GX, GY = np.meshgrid(np.arange(x0, x1 + 1, dtype=np.float32), np.arange(y0, y1 + 1, dtype=np.float32))
        dmin = np.full(GX.shape, 1e9, np.float32)
        for i in range(0, len(pts), 64):
            ch = pts[i:i + 64]
            dd = np.sqrt((GX[..., None] - ch[:, 0]) ** 2 + (GY[..., None] - ch[:, 1]) ** 2).min(axis=2)
            np.minimum(dmin, dd, out=dmin)
        d = f["dark"] * line_cov(dmin, f["w"])
        M = np.repeat((1.0 - d)[..., None], 3, axis=2).astype(np.float32)
        composite(I, bg, x0, y0, np.zeros(GX.shape, np.float32), None, M)
    for s in deb["specks"]:
        pad = 4
        x0, y0 = int(math.floor(s["x"])) - pad, int(math.floor(s["y"])) - pad
        n = 2 * pad + 2
        DX, DY = np.meshgrid(np.arange(x0, x0 + n) - s["x"], np.arange(y0, y0 + n) - s["y"])
        M = 1.0 + s["amp"] * np.exp(-(DX ** 2 + DY ** 2) / (2 * s["sig"] ** 2))
        composite(I, bg, x0, y0, np.zeros(DX.shape, np.float32), None,
                  np.repeat(M[..., None], 3, axis=2).astype(np.float32))


def render_base(sc):
    bg = background(sc["illum"])
    dark = render_grid(sc)
    fr = sc["grid"]["fringe"]
    # lines: dark core plus a faint bright phase fringe around them
    halo = blur(dark, 1.5) - dark
    I = bg * (1.0 - dark[..., None]) * (1.0 + fr * np.clip(halo, 0, 1)[..., None] * 3)
    I = I.astype(np.float32)
    render_debris(I, bg, sc["debris"])
    return I, bg


def add_cells(I, bg, cells):
    I = I.copy()
    for c in cells:
        x0, y0, alpha, P, M = cell_layer(c)
        composite(I, bg, x0, y0, alpha, P, M)
    return I


def optics(I, sc, G):
    tint = np.array([1.0, 1.0, 0.97], np.float32)
    J = I + G[..., None] * tint
    J = blur(J, sc["defocus"])
    return J


def sensor(J, sc):
    rng = np.random.default_rng(sc["noise_seed"])
    N = sc["photons"]
    J = np.clip(J, 0.0, 1.0)
    out = rng.poisson(J * N).astype(np.float32) / N + rng.normal(0, sc["read"], J.shape).astype(np.float32)
    return np.clip(np.rint(out * 255.0), 0, 255).astype(np.uint8)


def visibility(Jc, J0, cells, photons):
    """Per cell: 90th percentile (over the disc of radius r+1) of the max-channel change the
    cell makes in the noise-free image, in 8-bit levels, divided by the required level
    max(VISIBLE_MIN, VISIBLE_SNR * local Poisson noise sigma).  >= 1 means visible."""
    J0c = np.clip(J0, 0, 1)
    D = np.abs(np.clip(Jc, 0, 1) - J0c).max(axis=2) * 255.0
    vis = []
    for c in cells:
        r = c["r"] + 1.0
        xa, xb = max(0, int(c["x"] - r) - 1), min(W, int(c["x"] + r) + 2)
        ya, yb = max(0, int(c["y"] - r) - 1), min(H, int(c["y"] + r) + 2)
        gx, gy = np.meshgrid(np.arange(xa, xb), np.arange(ya, yb))
        m = (gx - c["x"]) ** 2 + (gy - c["y"]) ** 2 <= r * r
        if not m.any():
            vis.append(0.0)
            continue
        sig = 255.0 * math.sqrt(float(J0c[ya:yb, xa:xb][m].mean()) / photons)
        need = max(VISIBLE_MIN, VISIBLE_SNR * sig)
        vis.append(float(np.percentile(D[ya:yb, xa:xb][m], 90)) / need)
    return vis


def render(sc):
    G = glare_map(sc["glare"])
    base, bg = render_base(sc)
    J0 = optics(base, sc, G)
    cells = list(sc["cells"])
    dropped = []
    while True:
        Ic = add_cells(base, bg, cells)
        Jc = optics(Ic, sc, G)
        vis = visibility(Jc, J0, cells, sc["photons"])
        bad = set(i for i, v in enumerate(vis) if v < 1.0)
        if not bad:
            break
        # a cell that makes no visible difference is neither drawn nor labelled
        dropped += [cells[i] for i in sorted(bad)]
        cells = [c for i, c in enumerate(cells) if i not in bad]
    img = sensor(Jc, sc)
    return img, cells, dropped, vis


# ----------------------------------------------------------------------------
# labels
# ----------------------------------------------------------------------------

def label_doc(sc, fname, cells):
    Hm = sc["Hm"]
    corners = apply_h(Hm, [(0, 0), (CHAMBER_UM, 0), (CHAMBER_UM, CHAMBER_UM), (0, CHAMBER_UM)])
    tags = ["synthetic", "gen3", sc["cond"]]
    if sc["cond"] == "blank":
        tags.append("blank-control")
    if sc["jpeg"]:
        tags.append("jpeg")
    if sc["defocus"] >= 0.8:
        tags.append("blurred")
    if sc["glare"]:
        tags.append("glare")
    if abs(sc["tilt"]) > 2.0:
        tags.append("tilted")
    if sc["grid"]["style"] == "heavy":
        tags.append("heavy-grid")
    elif sc["grid"]["style"] == "faint":
        tags.append("faint-grid")
    if sc["n_clusters"] > 0 and cells:
        tags.append("clumps")
    return {
        "version": 1,
        "image": fname,
        "width": W,
        "height": H,
        "umPerPixel": round(sc["ump"], 4),
        "grid": {"corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
                 "widthUm": 3000, "heightUm": 3000},
        "cells": [{"x": round(c["x"], 2), "y": round(c["y"], 2), "r": round(c["r"], 2),
                   "label": c["label"]} for c in cells],
        "tags": tags,
    }


def validate_doc(doc, img_w, img_h):
    """Check a label document against the v1 rules; return list of problems."""
    errs = []
    if doc.get("version") != 1 or isinstance(doc.get("version"), bool):
        errs.append("version must be the integer 1")
    for k in ("width", "height"):
        if not isinstance(doc.get(k), int) or doc[k] <= 0:
            errs.append(f"{k} must be a positive integer")
    if (doc.get("width"), doc.get("height")) != (img_w, img_h):
        errs.append("width/height differ from the decoded image")
    u = doc.get("umPerPixel")
    if u is not None and not (isinstance(u, (int, float)) and math.isfinite(u) and u > 0):
        errs.append("umPerPixel must be a positive number")
    g = doc.get("grid")
    if g is not None:
        cs = g.get("corners")
        if not (isinstance(cs, list) and len(cs) == 4 and all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(v, (int, float)) and math.isfinite(v) for v in p)
                for p in cs)):
            errs.append("grid.corners must be 4 [x, y] pairs")
        else:
            # clockwise in image coordinates (y down) => positive shoelace sum
            area = sum(cs[i][0] * cs[(i + 1) % 4][1] - cs[(i + 1) % 4][0] * cs[i][1] for i in range(4))
            if area <= 0:
                errs.append("grid.corners not clockwise")
        for k in ("widthUm", "heightUm"):
            if not (isinstance(g.get(k), (int, float)) and g[k] > 0):
                errs.append(f"grid.{k} must be positive")
    cells = doc.get("cells")
    if not isinstance(cells, list):
        errs.append("cells must be a list")
        cells = []
    for i, c in enumerate(cells):
        x, y, r = c.get("x"), c.get("y"), c.get("r", 0.0)
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (x, y, r)):
            errs.append(f"cells[{i}] non-numeric")
            continue
        if r < 0:
            errs.append(f"cells[{i}] negative radius")
        if x < -r or y < -r or x > img_w - 1 + r or y > img_h - 1 + r:
            errs.append(f"cells[{i}] outside the image")
        if c.get("label") not in (None, "live", "dead"):
            errs.append(f"cells[{i}] bad label")
    tags = doc.get("tags", [])
    if not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
        errs.append("tags must be strings")
    return errs


# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------

def jpeg_plan(seed, K):
    """Choose which images are JPEG: all hard ones, plus enough others for ~half."""
    rng = np.random.default_rng([seed, 99])
    others = [c for c in CONDITIONS if c != "hard"]
    need = min(len(others) * K, max(0, int(round(len(CONDITIONS) * K / 2.0)) - K))
    # spread over the non-hard conditions as evenly as possible
    per = {c: need // len(others) for c in others}
    for c in rng.permutation(others)[:need % len(others)]:
        per[str(c)] += 1
    plan = set()
    for c in others:
        for i in rng.permutation(K)[:per[c]]:
            plan.add((c, int(i)))
    return plan


def make_one(args):
    out, seed, cond, idx, jpeg = args
    sc = make_scene(seed, cond, idx, jpeg)
    img, cells, dropped, vis = render(sc)
    stem = f"gen3_{cond}_{idx:02d}"
    fname = stem + (".jpg" if sc["jpeg"] else ".png")
    path = os.path.join(out, fname)
    im = Image.fromarray(img, "RGB")
    if sc["jpeg"]:
        im.save(path, quality=60)
    else:
        im.save(path, optimize=False)
    doc = label_doc(sc, fname, cells)
    dec = Image.open(path)
    errs = validate_doc(doc, dec.size[0], dec.size[1])
    if errs:
        raise RuntimeError(f"{fname}: label validation failed: {errs}")
    with open(os.path.join(out, stem + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
    nd = sum(1 for c in cells if c["label"] == "dead")
    return dict(file=fname, cond=cond, cells=len(cells), dead=nd, live=len(cells) - nd,
                dropped=len(dropped), clumped=sum(1 for c in cells if "cluster" in c),
                min_vis=(min(vis) if vis else None), tags=doc["tags"], ump=sc["ump"],
                tilt=sc["tilt"], defocus=sc["defocus"], grid=sc["grid"]["style"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--per-condition", type=int, default=6)
    ap.add_argument("--jobs", type=int, default=1, help="parallel worker processes (output is identical)")
    ap.add_argument("--conditions", default=",".join(CONDITIONS))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    jp = jpeg_plan(a.seed, a.per_condition)
    conds = [c for c in a.conditions.split(",") if c]
    for c in conds:
        if c not in CONDITIONS:
            ap.error(f"unknown condition {c}")
    jobs = [(a.out, a.seed, c, i, (c, i) in jp) for c in conds for i in range(a.per_condition)]
    if a.jobs > 1:
        import multiprocessing as mp
        with mp.Pool(a.jobs) as pool:
            res = pool.map(make_one, jobs)
    else:
        res = [make_one(j) for j in jobs]
    tot = 0
    for r in res:
        tot += r["cells"]
        print(f"{r['file']:28s} cells={r['cells']:4d} live={r['live']:4d} dead={r['dead']:4d} "
              f"clumped={r['clumped']:3d} dropped={r['dropped']} um/px={r['ump']:.3f} "
              f"tilt={r['tilt']:+.1f} blur={r['defocus']:.2f} grid={r['grid']} tags={','.join(r['tags'][3:])}")
    print(f"images={len(res)} labelled cells={tot}")


if __name__ == "__main__":
    main()
