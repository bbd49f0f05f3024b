#!/usr/bin/env python3
"""gen5-synth: synthetic brightfield hemocytometer photographs (trypan blue) with labels.

What it renders
---------------
1920x1080 colour (sometimes monochrome) photographs of a Neubauer-improved
counting chamber loaded with a trypan-blue stained cell suspension, as a phone
on an eyepiece or a benchtop counter camera would record them.  Each image
comes with a labels-v1 JSON (see ../shared/labels-v1.md beside the repository) with the exact
centre and radius of every cell drawn (live / dead) and nothing for debris.

The scene is built as a thin transmissive specimen in *log-intensity*
(optical density) space, then passed through optics, sensor and ISP:

* Ruling: true Neubauer-improved geometry in micrometres (3 x 3 mm, nine 1 mm
  squares; central square split by triple lines into 25 x 200 um groups of
  16 x 50 um squares; corner squares 16 x 250 um by single lines; the triple
  and 250 um lines run on through the side squares).  It is mapped to the
  image by a homography: 0.5-1.2 um/px, random view offset, rotation up to
  +-10 deg, slight keystone.  Line strokes are analytic profiles of the
  distance to the nearest line in plane coordinates (dark scatterers, or
  "phase" grooves = bright core with dark flanks, or faint), with variable
  width, contrast and optional extra defocus across part of the field.
* Cells (each rendered in a local patch): irregular ellipses.  Live cells are
  phase objects: the bright refractile centre and the dark annulus come from
  a transport-of-intensity term -k*lap(phi) of a dome-shaped phase, scaled by
  the local defocus of the field (so cell contrast varies with focus); plus a
  thin dark rim (scatter), an optional bright halo and faint granules.  Dead
  cells absorb with a trypan-blue spectral OD vector (R>G>>B), flat-ish or
  with a darker rim, mottled, sometimes pale.  Touching cells are flattened
  against each other along the radical line (shared contact wall).
* Confounders (never labelled): dust specks, grey cell-sized irregular
  debris without refractile centre, membrane "ghosts", granular clusters,
  angular dark-blue dye precipitate and needle crystals, fibres, air-bubble
  edges (no cells inside the bubble), scratches, out-of-focus dust on the
  optics, uneven illumination / vignetting, glare (additive, saturating),
  lamp colour casts with partial white balance.
* Optics: spatially varying Gaussian defocus tied to a tilted/curved focus
  field, optional motion blur, longitudinal + lateral chromatic aberration.
* Sensor/ISP: RGGB Bayer mosaic with shot + read noise and bilinear
  demosaic (or per-channel noise, or a mono sensor), white balance, gamma,
  saturation, optional unsharp mask, 8-bit, PNG or JPEG (q60 or q75-95).

Conditions: standard (80-200 cells), dense (300-600, touching pairs and clumps
of 3-8), sparse (10-30), blank (0 cells, tagged blank-control, debris only),
hard (standard density with 3-5 difficulties combined).

Usage
-----
    python3 scripts/gen5-synth.py --out DIR --seed S --per-condition N

writes 5*N images DIR/gen5-s<S>-<condition>-<k>.{png,jpg} plus one .json each.
Each image draws from numpy.random.default_rng(SeedSequence([S, condition
index, k])), so a given (seed, condition, k) image is reproducible and does
not depend on N.  Requires Python 3, numpy and Pillow only.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np
from PIL import Image

W, H = 1920, 1080
CONDITIONS = ["standard", "dense", "sparse", "blank", "hard"]
F32 = np.float32
PAD_Y, PAD_X = 36, 64          # FFT padding: (1080+72, 1920+128) = (1152, 2048)

# trypan blue optical density per camera channel (absorbs red/green, passes blue)
TRYPAN = np.array([1.0, 0.80, 0.22], F32)
NEUTRAL = np.array([1.0, 1.0, 1.0], F32)
BROWN = np.array([0.85, 0.97, 1.2], F32)   # yellow-brown debris absorbs blue most


def sig(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


# --------------------------------------------------------------------------
# canvas in log-intensity space
# --------------------------------------------------------------------------
class Canvas:
    def __init__(self):
        self.li = np.zeros((H, W, 3), F32)

    @staticmethod
    def patch(cx, cy, rad):
        """Full (unclipped) patch grid around (cx, cy): x0, y0, dx, dy."""
        x0 = int(math.floor(cx - rad))
        y0 = int(math.floor(cy - rad))
        x1 = int(math.ceil(cx + rad)) + 1
        y1 = int(math.ceil(cy + rad)) + 1
        if x1 <= 0 or y1 <= 0 or x0 >= W or y0 >= H:
            return None
        dx = (np.arange(x0, x1, dtype=F32) - F32(cx))[None, :]
        dy = (np.arange(y0, y1, dtype=F32) - F32(cy))[:, None]
        return x0, y0, dx, dy

    def add(self, x0, y0, field, vec):
        """li[patch] += field * vec (field 2-D, vec length-3), clipped to image."""
        h, w = field.shape
        ax0, ay0 = max(x0, 0), max(y0, 0)
        ax1, ay1 = min(x0 + w, W), min(y0 + h, H)
        if ax0 >= ax1 or ay0 >= ay1:
            return
        f = field[ay0 - y0:ay1 - y0, ax0 - x0:ax1 - x0]
        self.li[ay0:ay1, ax0:ax1, :] += f[..., None] * np.asarray(vec, F32)


def lap(a):
    out = np.zeros_like(a)
    out[1:-1, 1:-1] = (a[1:-1, 2:] + a[1:-1, :-2] + a[2:, 1:-1] + a[:-2, 1:-1]
                       - 4.0 * a[1:-1, 1:-1])
    return out


def blur_patch(a, s):
    """Small separable Gaussian blur of a 2-D patch (zero padded)."""
    if s < 0.3:
        return a
    k = int(math.ceil(3 * s))
    t = np.arange(-k, k + 1, dtype=F32)
    ker = np.exp(-0.5 * (t / s) ** 2)
    ker /= ker.sum()
    p = np.pad(a, ((k, k), (k, k)))
    h, w = a.shape
    tmp = np.zeros((h + 2 * k, w), F32)
    for i in range(2 * k + 1):
        tmp += ker[i] * p[:, i:i + w]
    out = np.zeros((h, w), F32)
    for i in range(2 * k + 1):
        out += ker[i] * tmp[i:i + h, :]
    return out


def irregular_shape(rng, R, ell_max, harm_amp, kmax=5):
    e = rng.uniform(0, ell_max)
    harm = []
    for k in range(2, kmax + 1):
        amp = harm_amp * rng.uniform(0, 1) / (k - 1) ** 0.6
        harm.append((k, amp, rng.uniform(0, 2 * np.pi)))
    ang = rng.uniform(0, np.pi)
    return dict(a=R * (1 + e), b=R / (1 + e), cos=math.cos(ang), sin=math.sin(ang),
                harm=harm, extent=R * (1 + e) * (1 + sum(h[1] for h in harm)))


def shape_depth(dx, dy, sh):
    """Signed radial depth inside the boundary (px, >0 inside) and boundary radius."""
    u = dx * sh['cos'] + dy * sh['sin']
    v = -dx * sh['sin'] + dy * sh['cos']
    r = np.sqrt(u * u + v * v)
    th = np.arctan2(v, u)
    m = np.ones_like(r)
    for k, amp, ph in sh['harm']:
        m += amp * np.cos(k * th + ph)
    a, b = sh['a'], sh['b']
    rb = m * (a * b) / np.sqrt((b * np.cos(th)) ** 2 + (a * np.sin(th)) ** 2)
    return rb - r, rb


def granules(dx, dy, rng, n, R, smin, smax):
    g = np.zeros(np.broadcast(dx, dy).shape, F32)
    for _ in range(n):
        rr = R * 0.75 * math.sqrt(rng.random())
        a = rng.uniform(0, 2 * np.pi)
        s = rng.uniform(smin, smax)
        g += rng.uniform(0.3, 1.0) * np.exp(
            -((dx - rr * math.cos(a)) ** 2 + (dy - rr * math.sin(a)) ** 2) / (2 * s * s))
    return g


# --------------------------------------------------------------------------
# Neubauer-improved ruling
# --------------------------------------------------------------------------
def make_homography(s, theta, u0, v0, kx, ky):
    c, si = math.cos(theta), math.sin(theta)
    A = np.array([[c / s, -si / s, -(c * u0 - si * v0) / s],
                  [si / s, c / s, -(si * u0 + c * v0) / s],
                  [0, 0, 1.0]])
    P = np.array([[1, 0, 0], [0, 1, 0], [kx, ky, 1.0]])
    T = np.array([[1, 0, (W - 1) / 2], [0, 1, (H - 1) / 2], [0, 0, 1.0]])
    return T @ P @ A


def apply_h(Hm, pts):
    pts = np.asarray(pts, float)
    q = np.c_[pts, np.ones(len(pts))] @ Hm.T
    return q[:, :2] / q[:, 2:3]


def line_list():
    """(position, extent_min, extent_max, kind) of lines of one orientation (um)."""
    out = []
    for p in (0, 1000, 1200, 1400, 1600, 1800, 2000, 3000):
        out.append((p, 0.0, 3000.0, 'triple'))
    for p in (250, 500, 750, 2250, 2500, 2750):
        out.append((p, 0.0, 3000.0, 'single'))
    for p in range(1050, 2000, 50):
        if p % 200:
            out.append((p, 1000.0, 2000.0, 'fine'))
    return out


def ruling_field(U, V, G, focus):
    """Log-intensity of the ruling over the image. U, V: plane coords (um)."""
    w, g = G['w'], G['gap']
    ccore, cedge, eoff, ew = G['core'], G['edge'], G['eoff'], G['ew']
    ext_soft = 1.5

    def stroke(d, wmap, amp):
        z = d / wmap
        core = np.exp(-0.5 * z * z)
        out = ccore * core
        if cedge != 0.0:
            e1 = (d - eoff * wmap) / (ew * wmap)
            e2 = (d + eoff * wmap) / (ew * wmap)
            out = out + cedge * (np.exp(-0.5 * e1 * e1) + np.exp(-0.5 * e2 * e2))
        return out * amp

    total = np.zeros(U.shape, F32)
    # extra defocus of the ruling over part of the field: widen + weaken profile
    wmap = np.sqrt(w * w + G['xblur'] ** 2).astype(F32) if np.ndim(G['xblur']) else F32(w)
    amp = (w / wmap).astype(F32) if np.ndim(wmap) else F32(1.0)
    if G['style'] == 'bright':
        amp = amp * np.clip(focus / G['f0'], 0.25, 1.6).astype(F32)
    for a, b in ((U, V), (V, U)):
        along = (1.0 + G['mod'] * np.sin(b * G['modf'] + G['modp'])).astype(F32)
        # triple lines: multiples of 200 inside 1000..2000, multiples of 1000 in 0..3000
        m2 = np.round(a / 200.0) * 200.0
        m1 = np.round(a / 1000.0) * 1000.0
        v2 = (m2 >= 1000) & (m2 <= 2000)
        v1 = (m1 >= 0) & (m1 <= 3000)
        d = np.where(v2, a - m2, np.where(v1, a - m1, 1e4)).astype(F32)
        near = np.abs(d) < (g + 6 * w + 20)
        if near.any():
            dd = d[near]
            bn = b[near]
            wm = wmap[near] if np.ndim(wmap) else wmap
            am = amp[near] if np.ndim(amp) else amp
            prof = (stroke(dd - g, wm, am) + stroke(dd, wm, am) + stroke(dd + g, wm, am))
            over = g + 1.5 * w      # triple lines end on the outer stroke of the border line
            ext = sig((bn + over) / ext_soft) * sig((3000.0 + over - bn) / ext_soft)
            total[near] += prof * ext * along[near]
        def add_single(m, ok, lo, hi, k=1.0):
            # single lines at positions m (where ok), running from lo to hi um along the line
            d = np.where(ok, a - m, 1e4).astype(F32)
            near = np.abs(d) < (6 * w + 20)
            if near.any():
                bn = b[near]
                wm = wmap[near] if np.ndim(wmap) else wmap
                am = amp[near] if np.ndim(amp) else amp
                ext = sig((bn - lo) / ext_soft) * sig((hi - bn) / ext_soft)
                total[near] += stroke(d[near], wm, am) * ext * along[near] * k
        # single 250 um lines in the outer columns (incl. side squares)
        m = np.round(a / 250.0) * 250.0
        add_single(m, (np.mod(m, 1000) != 0) & ((m < 1000) | (m > 2000)) & (m > 0) & (m < 3000), 0.0, 3000.0)
        # fine 50 um lines inside the central square
        m = np.round(a / 50.0) * 50.0
        add_single(m, (m > 1000) & (m < 2000) & (np.mod(m, 200) != 0), 1000.0, 2000.0, G['fine_k'])
    return np.clip(total, -3.0, 1.0)


# --------------------------------------------------------------------------
# cells
# --------------------------------------------------------------------------
def render_cell(cv, c, P, rng):
    sh = c['shape']
    R = c['R']
    margin = 6.0 + 3.0 * c['blur']
    pt = Canvas.patch(c['x'], c['y'], sh['extent'] + margin)
    if pt is None:
        return
    x0, y0, dx, dy = pt
    delta, rb = shape_depth(dx, dy, sh)
    for (nx, ny, nR) in c['nb']:
        ddx, ddy = nx - c['x'], ny - c['y']
        D = math.hypot(ddx, ddy)
        pi = dx * dx + dy * dy - R * R
        pj = (dx - ddx) ** 2 + (dy - ddy) ** 2 - nR * nR
        delta = np.minimum(delta, (pj - pi) / (2 * D) - 0.4)
    inside = sig(delta / 0.45)
    rho = np.clip(1.0 - delta / np.maximum(rb, 1.0), 0.0, 1.0)
    thick = np.sqrt(np.clip(1.0 - rho * rho, 0.0, 1.0))
    f = c['focus']
    neutral = np.zeros(delta.shape, F32)
    dyefield = np.zeros(delta.shape, F32)

    # refractile term: transport-of-intensity on a dome-shaped phase
    if abs(c['refr'] * f) > 1e-3:
        qs = c['qs'] * R
        q2 = ((dx - c['ox']) ** 2 + (dy - c['oy']) ** 2) / (qs * qs)
        p = c['p']
        phi = inside * np.clip(1.0 - q2, 0.0, 1.0) ** p
        L = lap(phi) * (qs * qs) / (4.0 * p)
        neutral += -c['refr'] * f * L
    # thin dark rim (light scattered out of the aperture at the membrane)
    neutral -= c['rim'] * np.exp(-0.5 * (delta / c['rimw']) ** 2)
    if c['halo'] > 0:
        neutral += c['halo'] * f * np.exp(-0.5 * ((delta + c['halo_off']) / c['halo_w']) ** 2)
    gr = granules(dx, dy, rng, c['ngran'], R, 0.7, 1.8)
    if c['label'] == 'live':
        neutral -= inside * thick * c['cyto'] * (1.0 + 0.8 * gr)
        # the cell displaces dyed medium: slightly less blue absorption inside
        dyefield -= inside * thick * c['displace']
    else:
        od = c['dye'] * inside * (c['flat'] + (1.0 - c['flat']) * thick) * (1.0 + c['tex'] * (gr - 0.4))
        od += c['dye'] * c['rimdye'] * np.exp(-0.5 * ((delta - 1.2) / 1.1) ** 2)
        dyefield += od
        neutral -= inside * 0.03 * gr
    if c['blur'] >= 0.3:
        neutral = blur_patch(neutral, c['blur'])
        dyefield = blur_patch(dyefield, c['blur'])
    cv.add(x0, y0, neutral, NEUTRAL)
    cv.add(x0, y0, -dyefield, P['dye_vec'])


class Placer:
    def __init__(self, cell=32):
        self.cs = cell
        self.grid = {}
        self.cells = []

    def _near(self, x, y, rad):
        cs = self.cs
        i0, i1 = int((x - rad) // cs), int((x + rad) // cs)
        j0, j1 = int((y - rad) // cs), int((y + rad) // cs)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                for k in self.grid.get((i, j), ()):
                    yield k

    def ok(self, x, y, R, clump, gap, tight):
        for k in self._near(x, y, R + 14 + gap):
            c = self.cells[k]
            d = math.hypot(c['x'] - x, c['y'] - y)
            if clump is not None and c['clump'] == clump:
                if d < tight * (R + c['R']):
                    return False
            elif d < R + c['R'] + gap:
                return False
        return True

    def add(self, c):
        k = len(self.cells)
        self.cells.append(c)
        self.grid.setdefault((int(c['x'] // self.cs), int(c['y'] // self.cs)), []).append(k)

    def neighbours(self):
        for c in self.cells:
            c['nb'] = []
            for k in self._near(c['x'], c['y'], c['R'] + 14):
                o = self.cells[k]
                if o is c:
                    continue
                d = math.hypot(o['x'] - c['x'], o['y'] - c['y'])
                if 1e-3 < d < c['R'] + o['R'] + 0.5:
                    c['nb'].append((o['x'], o['y'], o['R']))


def inside_image(x, y):
    return 0.0 <= x <= W - 1 and 0.0 <= y <= H - 1


def border_band(x, y):
    """Centres in the sub-pixel band just outside the pixel-centre box are ambiguous."""
    return (-1.0 < x < 0.0) or (W - 1 < x < W) or (-1.0 < y < 0.0) or (H - 1 < y < H)


def place_cells(rng, P, S):
    n_target = S['n_cells']
    pl = Placer()
    if n_target == 0:
        return pl
    # smooth density field (cells settle unevenly)
    bumps = [(rng.uniform(0, W), rng.uniform(0, H), rng.uniform(200, 700), rng.uniform(-0.5, 1.0))
             for _ in range(rng.integers(1, 5))]
    gx, gy = rng.uniform(-0.4, 0.4, 2) * S['uneven']

    def dens(x, y):
        v = 1.0 + gx * (x / W - 0.5) * 2 + gy * (y / H - 0.5) * 2
        for bx, by, br, ba in bumps:
            v += S['uneven'] * ba * math.exp(-((x - bx) ** 2 + (y - by) ** 2) / (2 * br * br))
        return max(v, 0.05)

    dmax = 1.0 + S['uneven'] * 2.5

    def in_bubble(x, y, R):
        b = P.get('bubble')
        if b is None:
            return False
        return math.hypot(x - b['x'], y - b['y']) < b['R'] + b['w'] + R

    def new_cell(x, y, R, clump=None):
        live = rng.random() < S['viability']
        return dict(x=x, y=y, R=R, clump=clump, label='live' if live else 'dead')

    def sample_R(dead=False):
        while True:
            R = S['r_med'] * math.exp(rng.normal(0, S['r_sd']))
            if dead:
                R *= rng.uniform(0.85, 1.05)
            if 5.05 <= R <= 11.95:
                return R

    def rand_pos(R):
        for _ in range(200):
            x = rng.uniform(-0.9 * R, W - 1 + 0.9 * R)
            y = rng.uniform(-0.9 * R, H - 1 + 0.9 * R)
            if rng.random() * dmax < dens(x, y):
                return x, y
        return x, y

    labelled = [0]

    def try_add(c, gap, tight=0.85):
        if border_band(c['x'], c['y']) or in_bubble(c['x'], c['y'], c['R']):
            return False
        if not pl.ok(c['x'], c['y'], c['R'], c['clump'], gap, tight):
            return False
        pl.add(c)
        if inside_image(c['x'], c['y']):
            labelled[0] += 1
        return True

    # 1. clumps and touching pairs
    n_clumped = int(n_target * S['clump_frac'])
    cid = 0
    tries = 0
    while labelled[0] < n_clumped and tries < 4000:
        tries += 1
        size = int(rng.choice(S['clump_sizes']))
        R = sample_R()
        x, y = rand_pos(R)
        c = new_cell(x, y, R, cid)
        if not try_add(c, gap=3.0):
            continue
        members = [c]
        for _ in range(size - 1):
            for _a in range(30):
                base = members[rng.integers(len(members))]
                Rn = sample_R()
                ang = rng.uniform(0, 2 * np.pi)
                d = (base['R'] + Rn) * rng.uniform(0.84, 1.0)
                cn = new_cell(base['x'] + d * math.cos(ang), base['y'] + d * math.sin(ang), Rn, cid)
                if try_add(cn, gap=3.0, tight=0.84):
                    members.append(cn)
                    break
        cid += 1
    # 2. cells lying on ruling lines and at crossings
    targets = P['line_points']
    n_line = int(n_target * S['on_line_frac'])
    k = 0
    tries = 0
    while k < n_line and tries < 600 and len(targets):
        tries += 1
        tx, ty = targets[rng.integers(len(targets))]
        R = sample_R()
        j = rng.uniform(0, 0.35 * R)
        a = rng.uniform(0, 2 * np.pi)
        c = new_cell(tx + j * math.cos(a), ty + j * math.sin(a), R)
        c['online'] = True
        if try_add(c, gap=rng.uniform(0.5, 3)):
            k += 1
    # 3. a few cut by the image border
    for _ in range(S['n_border']):
        for _a in range(40):
            R = sample_R()
            side = rng.integers(4)
            off = rng.uniform(0.1, 0.8) * R
            if side == 0:
                x, y = off, rng.uniform(0, H - 1)
            elif side == 1:
                x, y = W - 1 - off, rng.uniform(0, H - 1)
            elif side == 2:
                x, y = rng.uniform(0, W - 1), off
            else:
                x, y = rng.uniform(0, W - 1), H - 1 - off
            if try_add(new_cell(x, y, R), gap=1.0):
                break
    # 4. free cells
    tries = 0
    while labelled[0] < n_target and tries < 40 * n_target + 2000:
        tries += 1
        R = sample_R()
        x, y = rand_pos(R)
        try_add(new_cell(x, y, R), gap=rng.uniform(0.5, 4.0))
    # dead cells a bit different in size
    pl.neighbours()
    return pl


def dress_cell(c, rng, P, S):
    """Appearance parameters of one cell."""
    R = c['R']
    live = c['label'] == 'live'
    ell = 0.16 if live else 0.2
    c['shape'] = irregular_shape(rng, R, ell, 0.05 if live else 0.09, kmax=6 if live else 8)
    fx = P['focus_at'](c['x'], c['y'])
    z = rng.normal(0, S['z_sd'])
    if rng.random() < S['unsettled_frac']:
        z += rng.choice([-1, 1]) * rng.uniform(0.5, 1.3)
    c['focus'] = fx + z
    c['blur'] = abs(z) * P['kb'] * 1.2
    # refractile spot displaced along the (oblique) illumination direction
    off = rng.uniform(0.0, 0.22) * R
    c['ox'] = P['illum_dir'][0] * off + rng.normal(0, 0.05 * R)
    c['oy'] = P['illum_dir'][1] * off + rng.normal(0, 0.05 * R)
    c['p'] = rng.uniform(2.0, 3.2)
    c['qs'] = rng.uniform(0.45, 0.97)
    c['ngran'] = int(rng.integers(2, 8))
    if live:
        c['refr'] = rng.uniform(*S['live_refr'])
        c['rim'] = rng.uniform(0.25, 0.8)
        c['rimw'] = rng.uniform(0.6, 1.3)
        c['halo'] = rng.uniform(0.04, 0.2) if rng.random() < S['halo_p'] else 0.0
        c['halo_off'] = rng.uniform(1.5, 3.0)
        c['halo_w'] = rng.uniform(0.8, 1.8)
        c['cyto'] = rng.uniform(0.0, 0.2)
        c['displace'] = P['bg_dye'] * rng.uniform(0.2, 0.6)
    else:
        u = rng.random()
        if u < S['pale_frac']:
            c['dye'] = rng.uniform(0.10, 0.30)
        elif u < S['pale_frac'] + 0.25:
            c['dye'] = rng.uniform(1.0, 1.9)
        else:
            c['dye'] = rng.uniform(0.35, 1.0)
        c['dye'] *= S['dye_scale']
        c['flat'] = rng.uniform(0.4, 0.9)
        c['tex'] = rng.uniform(0.05, 0.45)
        c['rimdye'] = rng.uniform(0.2, 0.6) if rng.random() < 0.35 else 0.0
        c['refr'] = rng.uniform(0.0, 0.12)
        c['rim'] = rng.uniform(0.05, 0.35)
        c['rimw'] = rng.uniform(0.6, 1.2)
        c['halo'] = rng.uniform(0.03, 0.1) if rng.random() < 0.15 else 0.0
        c['halo_off'] = rng.uniform(1.5, 3.0)
        c['halo_w'] = rng.uniform(0.8, 1.6)


# --------------------------------------------------------------------------
# debris and other confounders
# --------------------------------------------------------------------------
def far_from_cells(pl, x, y, r):
    for k in pl._near(x, y, r + 14):
        c = pl.cells[k]
        if math.hypot(c['x'] - x, c['y'] - y) < c['R'] + 0.8 * r + 1:
            return False
    return True


def render_dust(cv, rng, n, P):
    for _ in range(n):
        x, y = rng.uniform(-5, W + 5), rng.uniform(-5, H + 5)
        r = rng.uniform(0.6, 1.0) * (rng.pareto(2.5) + 1.0) * 0.9
        r = min(r, 4.5)
        pt = Canvas.patch(x, y, 3 * r + 2)
        if pt is None:
            continue
        x0, y0, dx, dy = pt
        od = rng.uniform(0.1, 0.9) * np.exp(-(dx * dx + dy * dy) / (2 * r * r))
        cv.add(x0, y0, -od, BROWN if rng.random() < 0.5 else NEUTRAL)


def render_round_debris(cv, rng, n, P, pl, ghost=False):
    k = 0
    for _ in range(n * 10):
        if k >= n:
            break
        R = rng.uniform(4.0, 13.0) if not ghost else rng.uniform(5.0, 12.0)
        x, y = rng.uniform(-R, W + R), rng.uniform(-R, H + R)
        if not far_from_cells(pl, x, y, R):
            continue
        k += 1
        sh = irregular_shape(rng, R, 0.35, 0.22 if not ghost else 0.12, kmax=7)
        pt = Canvas.patch(x, y, sh['extent'] + 5)
        if pt is None:
            continue
        x0, y0, dx, dy = pt
        delta, rb = shape_depth(dx, dy, sh)
        inside = sig(delta / 0.6)
        gr = granules(dx, dy, rng, int(rng.integers(4, 14)), R, 0.6, 2.0)
        if ghost:
            od = rng.uniform(0.08, 0.3) * np.exp(-0.5 * (delta / rng.uniform(0.7, 1.4)) ** 2)
            od += inside * rng.uniform(0.0, 0.05) * (1 + gr)
        else:
            base = rng.uniform(0.08, 0.5)
            od = inside * base * (0.7 + rng.uniform(0.2, 0.8) * gr)
            od += rng.uniform(0.05, 0.3) * np.exp(-0.5 * ((delta - 0.8) / 1.2) ** 2)
        od = blur_patch(od, rng.uniform(0.0, 1.2))
        vec = BROWN if rng.random() < 0.4 else NEUTRAL
        cv.add(x0, y0, -od, vec)
        if not ghost and rng.random() < 0.4:
            # weak phase component with the *opposite* look of a cell: dark centre
            cv.add(x0, y0, -0.1 * inside * rng.uniform(0.2, 1.0), NEUTRAL)


def render_granular(cv, rng, n, P):
    for _ in range(n):
        x, y = rng.uniform(0, W), rng.uniform(0, H)
        rad = rng.uniform(4, 25)
        m = int(rng.integers(4, 20))
        pt = Canvas.patch(x, y, rad + 6)
        if pt is None:
            continue
        x0, y0, dx, dy = pt
        od = np.zeros(np.broadcast(dx, dy).shape, F32)
        for _k in range(m):
            rr = rad * math.sqrt(rng.random())
            a = rng.uniform(0, 2 * np.pi)
            s = rng.uniform(0.6, 1.8)
            od += rng.uniform(0.15, 0.7) * np.exp(
                -((dx - rr * math.cos(a)) ** 2 + (dy - rr * math.sin(a)) ** 2) / (2 * s * s))
        cv.add(x0, y0, -od, NEUTRAL)


def render_precipitate(cv, rng, n_clusters, P):
    """Angular dark-blue dye crystals (convex polygons) and needles."""
    for _ in range(n_clusters):
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        m = int(rng.integers(1, 9))
        spread = rng.uniform(3, 30)
        for _k in range(m):
            x = cx + rng.normal(0, spread)
            y = cy + rng.normal(0, spread)
            if rng.random() < 0.25:   # needle
                L = rng.uniform(5, 22)
                wd = rng.uniform(0.6, 1.6)
                a = rng.uniform(0, np.pi)
                pts = np.array([[-L / 2, -wd], [L / 2, -wd], [L / 2, wd], [-L / 2, wd]])
                ca, sa = math.cos(a), math.sin(a)
                pts = pts @ np.array([[ca, sa], [-sa, ca]])
            else:
                nv = int(rng.integers(3, 7))
                angs = np.sort(rng.uniform(0, 2 * np.pi, nv))
                rads = rng.uniform(1.2, 6.0) * rng.uniform(0.5, 1.0, nv)
                pts = np.c_[rads * np.cos(angs), rads * np.sin(angs)]
            ext = np.abs(pts).max() + 3
            pt = Canvas.patch(x, y, ext)
            if pt is None:
                continue
            x0, y0, dx, dy = pt
            # signed distance to a convex polygon (CCW): min over edges
            dmin = np.full(np.broadcast(dx, dy).shape, 1e3, F32)
            for i in range(len(pts)):
                p0, p1 = pts[i], pts[(i + 1) % len(pts)]
                e = p1 - p0
                ln = math.hypot(*e)
                if ln < 1e-6:
                    continue
                nx, ny = -e[1] / ln, e[0] / ln     # inward normal for CCW order
                dmin = np.minimum(dmin, (dx - p0[0]) * nx + (dy - p0[1]) * ny)
            inside = sig(dmin / 0.35)
            od = inside * rng.uniform(1.2, 3.5)
            cv.add(x0, y0, -od, P['dye_vec'])
            cv.add(x0, y0, -0.25 * inside, NEUTRAL)
            if rng.random() < 0.3:   # specular glint on a facet
                g = np.exp(-((dx - rng.normal(0, 1)) ** 2 + (dy - rng.normal(0, 1)) ** 2) / 1.0)
                cv.add(x0, y0, 0.8 * g * inside, NEUTRAL)


def render_optic_dust(cv, rng, n):
    for _ in range(n):
        x, y = rng.uniform(0, W), rng.uniform(0, H)
        R = rng.uniform(15, 70)
        pt = Canvas.patch(x, y, R * 1.6)
        x0, y0, dx, dy = pt
        r = np.sqrt(dx * dx + dy * dy)
        c = rng.uniform(0.01, 0.06)
        if rng.random() < 0.5:
            f = c * sig((R - r) / (0.15 * R))
        else:
            f = c * np.exp(-0.5 * ((r - R * 0.8) / (0.18 * R)) ** 2) + 0.4 * c * sig((R - r) / (0.2 * R))
        cv.add(x0, y0, -f, NEUTRAL)


def render_fibre(cv, rng, P, defocused):
    L = rng.uniform(150, 1100)
    step = 8.0
    n = int(L / step)
    x, y = rng.uniform(-100, W + 100), rng.uniform(-100, H + 100)
    a = rng.uniform(0, 2 * np.pi)
    curv = rng.normal(0, 0.05)
    pts = [(x, y)]
    for _ in range(n):
        curv = 0.9 * curv + rng.normal(0, 0.03)
        a += curv
        x += step * math.cos(a)
        y += step * math.sin(a)
        pts.append((x, y))
    pts = np.array(pts)
    wd = rng.uniform(0.8, 2.5) if not defocused else rng.uniform(3, 7)
    amp = rng.uniform(0.12, 0.5) if not defocused else rng.uniform(0.04, 0.15)
    marg = 4 * wd + 3
    bx0 = int(max(pts[:, 0].min() - marg, 0)); bx1 = int(min(pts[:, 0].max() + marg, W))
    by0 = int(max(pts[:, 1].min() - marg, 0)); by1 = int(min(pts[:, 1].max() + marg, H))
    if bx0 >= bx1 or by0 >= by1:
        return False
    dist = np.full((by1 - by0, bx1 - bx0), 1e3, F32)
    for i in range(len(pts) - 1):
        (ax, ay), (qx, qy) = pts[i], pts[i + 1]
        sx0 = int(max(min(ax, qx) - marg, bx0)); sx1 = int(min(max(ax, qx) + marg, bx1))
        sy0 = int(max(min(ay, qy) - marg, by0)); sy1 = int(min(max(ay, qy) + marg, by1))
        if sx0 >= sx1 or sy0 >= sy1:
            continue
        X = np.arange(sx0, sx1, dtype=F32)[None, :]
        Y = np.arange(sy0, sy1, dtype=F32)[:, None]
        ex, ey = qx - ax, qy - ay
        t = np.clip(((X - ax) * ex + (Y - ay) * ey) / (ex * ex + ey * ey), 0, 1)
        d = np.sqrt((X - ax - t * ex) ** 2 + (Y - ay - t * ey) ** 2)
        sub = dist[sy0 - by0:sy1 - by0, sx0 - bx0:sx1 - bx0]
        np.minimum(sub, d, out=sub)
    od = amp * np.exp(-0.5 * (dist / wd) ** 2)
    if not defocused:
        od += 0.3 * amp * np.exp(-0.5 * ((dist - wd * 1.3) / 0.7) ** 2)   # darker edges
    cv.add(bx0, by0, -od, BROWN if rng.random() < 0.5 else NEUTRAL)
    return True


def render_scratch(cv, rng, X, Y):
    a = rng.uniform(0, np.pi)
    nx, ny = -math.sin(a), math.cos(a)
    px, py = rng.uniform(0, W), rng.uniform(0, H)
    d = (X - px) * nx + (Y - py) * ny
    near = np.abs(d) < 8
    if not near.any():
        return
    t = (X[near] - px) * ny - (Y[near] - py) * nx
    L = rng.uniform(300, 3000)
    t0 = rng.uniform(-L, 0)
    fade = sig((t - t0) / 30.0) * sig((t0 + L - t) / 30.0)
    wd = rng.uniform(0.5, 1.4)
    amp = rng.uniform(0.03, 0.15) * (1 if rng.random() < 0.5 else -1)
    cv.li[near] += (amp * fade * np.exp(-0.5 * (d[near] / wd) ** 2))[:, None]


def render_bubble(cv, rng, P, X, Y):
    b = P['bubble']
    r = np.sqrt((X - b['x']) ** 2 + (Y - b['y']) ** 2)
    d = r - b['R']           # >0 outside the bubble (in liquid)
    w = b['w']
    band = b['dark'] * np.exp(-0.5 * ((d - 0.5 * w) / (0.45 * w)) ** 2)
    bright = b['bright'] * np.exp(-0.5 * ((d + 0.25 * w) / 1.3) ** 2)
    inside = sig(-d / 2.0)
    f = -band + bright + b['inner'] * inside
    cv.li += f[..., None]
    # no dyed medium inside the bubble
    cv.li += (inside * P['bg_dye'])[..., None] * P['dye_vec']


# --------------------------------------------------------------------------
# optics, sensor, ISP
# --------------------------------------------------------------------------
def freq_grid():
    fy = np.fft.fftfreq(H + 2 * PAD_Y).astype(F32)[:, None]
    fx = np.fft.rfftfreq(W + 2 * PAD_X).astype(F32)[None, :]
    return fx, fy


def pad(a):
    return np.pad(a, ((PAD_Y, PAD_Y), (PAD_X, PAD_X)), mode='reflect')


def crop(a):
    return a[PAD_Y:PAD_Y + H, PAD_X:PAD_X + W]


def optical_blur(lin, sigmap, dsig, motion):
    """Spatially varying Gaussian defocus (blend of levels) x motion blur."""
    fx, fy = freq_grid()
    f2 = fx * fx + fy * fy
    M = np.ones_like(f2)
    if motion is not None:
        L, a = motion
        M = np.sinc(L * (fx * math.cos(a) + fy * math.sin(a))).astype(F32)
    out = np.empty_like(lin)
    for ch in range(3):
        s = sigmap + dsig[ch]
        lo, hi = float(s.min()), float(s.max())
        F = np.fft.rfft2(pad(lin[..., ch]))
        if hi - lo < 0.25:
            levels = [0.5 * (lo + hi)]
        else:
            levels = list(np.linspace(lo, hi, min(4, 2 + int((hi - lo) / 1.0))))
        imgs = [crop(np.fft.irfft2(F * (np.exp(-2 * np.pi ** 2 * lv * lv * f2) * M),
                                   s=(H + 2 * PAD_Y, W + 2 * PAD_X))) for lv in levels]
        if len(levels) == 1:
            out[..., ch] = imgs[0]
        else:
            t = (s - lo) / (hi - lo) * (len(levels) - 1)
            i0 = np.clip(np.floor(t).astype(np.int32), 0, len(levels) - 2)
            fr = (t - i0).astype(F32)
            res = np.zeros((H, W), F32)
            for i in range(len(levels) - 1):
                m = i0 == i
                res[m] = imgs[i][m] * (1 - fr[m]) + imgs[i + 1][m] * fr[m]
            out[..., ch] = res
    return out


def gauss_blur_img(a, s):
    fx, fy = freq_grid()
    G = np.exp(-2 * np.pi ** 2 * s * s * (fx * fx + fy * fy)).astype(F32)
    return crop(np.fft.irfft2(np.fft.rfft2(pad(a)) * G, s=(H + 2 * PAD_Y, W + 2 * PAD_X)))


def remap_scale(ch, m, cx, cy):
    """Bilinear resample of one channel magnified by (1+m) about (cx, cy)."""
    xs = cx + (np.arange(W, dtype=F32) - cx) / (1 + m)
    ys = cy + (np.arange(H, dtype=F32) - cy) / (1 + m)
    xs = np.clip(xs, 0, W - 1.001)
    ys = np.clip(ys, 0, H - 1.001)
    x0 = xs.astype(np.int32); y0 = ys.astype(np.int32)
    fx = (xs - x0)[None, :]; fy = (ys - y0)[:, None]
    a = ch[y0][:, x0]; b = ch[y0][:, x0 + 1]
    c = ch[y0 + 1][:, x0]; d = ch[y0 + 1][:, x0 + 1]
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy


def conv3(a, k):
    p = np.pad(a, 1, mode='reflect')
    out = np.zeros_like(a)
    for i in range(3):
        for j in range(3):
            if k[i][j]:
                out += k[i][j] * p[i:i + H, j:j + W]
    return out


def bayer_capture(lin, rng, full_well, read_e, sens):
    """RGGB mosaic, shot + read noise, clip, bilinear demosaic."""
    mask = np.zeros((H, W, 3), F32)
    mask[0::2, 0::2, 0] = 1
    mask[0::2, 1::2, 1] = 1
    mask[1::2, 0::2, 1] = 1
    mask[1::2, 1::2, 2] = 1
    raw = (lin * sens * mask).sum(axis=2)
    e = raw * full_well
    e = e + rng.standard_normal(e.shape, dtype=F32) * np.sqrt(np.maximum(e, 0)) \
        + rng.standard_normal(e.shape, dtype=F32) * read_e
    raw = np.clip(e / full_well, 0, 1).astype(F32)
    krb = [[0.25, 0.5, 0.25], [0.5, 1, 0.5], [0.25, 0.5, 0.25]]
    kg = [[0, 0.25, 0], [0.25, 1, 0.25], [0, 0.25, 0]]
    out = np.empty((H, W, 3), F32)
    out[..., 0] = conv3(raw * mask[..., 0], krb)
    out[..., 1] = conv3(raw * mask[..., 1], kg)
    out[..., 2] = conv3(raw * mask[..., 2], krb)
    return out / sens


def plain_capture(lin, rng, full_well, read_e, sens):
    e = lin * sens * full_well
    e = e + rng.standard_normal(e.shape, dtype=F32) * np.sqrt(np.maximum(e, 0)) \
        + rng.standard_normal(e.shape, dtype=F32) * read_e
    return np.clip(e / full_well, 0, 1).astype(F32) / sens


# --------------------------------------------------------------------------
# scene parameters
# --------------------------------------------------------------------------
HARD_OPTIONS = ["defocus-strong", "defocus-varying", "motion", "glare", "noise", "jpeg60",
                "bubble", "heavy-debris", "heavy-lines", "pale-dead", "low-contrast-cells",
                "vignetting-strong", "colour-cast-strong", "clumps", "unsettled", "low-light",
                "precipitate-heavy", "monochrome"]


def sample_settings(cond, rng):
    S = {}
    hard = set()
    if cond == 'hard':
        k = int(rng.integers(3, 6))
        # pairs that together make the image unreadable even to a person
        conflicts = [{'low-contrast-cells', 'defocus-strong'}, {'low-contrast-cells', 'low-light'},
                     {'low-light', 'noise'}, {'defocus-strong', 'motion'},
                     {'low-light', 'defocus-strong'}, {'low-contrast-cells', 'motion'},
                     {'low-contrast-cells', 'noise'}]
        for opt in rng.permutation(HARD_OPTIONS).tolist():
            if len(hard) >= k:
                break
            if any(c <= hard | {opt} for c in conflicts):
                continue
            hard.add(opt)
    S['hard'] = hard
    S['n_cells'] = {'standard': rng.integers(80, 201), 'dense': rng.integers(300, 601),
                    'sparse': rng.integers(10, 31), 'blank': 0,
                    'hard': rng.integers(80, 201)}[cond]
    S['n_cells'] = int(S['n_cells'])
    S['viability'] = rng.uniform(0.2, 0.9) if cond == 'hard' else rng.uniform(0.45, 0.97)
    S['uneven'] = rng.uniform(0.0, 0.5)
    if cond == 'dense':
        S['clump_frac'] = rng.uniform(0.3, 0.55)
        S['clump_sizes'] = [2, 2, 3, 3, 4, 5, 6, 7, 8]
    elif cond == 'hard' and 'clumps' in hard:
        S['clump_frac'] = rng.uniform(0.3, 0.5)
        S['clump_sizes'] = [2, 3, 3, 4, 5, 6, 8]
    else:
        S['clump_frac'] = rng.uniform(0.0, 0.15)
        S['clump_sizes'] = [2, 2, 2, 3, 3, 4]
    S['on_line_frac'] = rng.uniform(0.08, 0.22)
    S['n_border'] = int(rng.integers(1, 6)) if S['n_cells'] >= 30 else int(rng.integers(0, 3))
    S['r_sd'] = rng.uniform(0.1, 0.2)
    S['z_sd'] = rng.uniform(0.02, 0.12)
    S['unsettled_frac'] = rng.uniform(0.08, 0.2) if 'unsettled' in hard else (0.02 if rng.random() < 0.3 else 0.0)
    S['live_refr'] = (0.15, 0.4) if 'low-contrast-cells' in hard else (0.3, 0.9)
    S['halo_p'] = rng.uniform(0.0, 0.7)
    S['pale_frac'] = rng.uniform(0.45, 0.8) if 'pale-dead' in hard else rng.uniform(0.0, 0.3)
    S['dye_scale'] = rng.uniform(0.55, 0.8) if 'low-contrast-cells' in hard else rng.uniform(0.8, 1.15)
    return S


def build_scene(cond, rng, S, tags):
    P = {}
    hard = S['hard']
    s = rng.uniform(0.5, 1.2)
    theta = math.radians(rng.uniform(-10, 10))
    key = rng.uniform(0.0, 0.045)
    ka = rng.uniform(0, 2 * np.pi)
    kx, ky = key * math.cos(ka) / 960.0, key * math.sin(ka) / 540.0
    u = rng.random()
    if u < 0.5:
        u0, v0 = rng.uniform(1000, 2000, 2)
    elif u < 0.85:
        u0, v0 = rng.uniform(0, 3000, 2)
    else:
        u0, v0 = rng.uniform(-300, 3300, 2)
    Hm = make_homography(s, theta, u0, v0, kx, ky)
    P.update(s=s, theta=theta, Hm=Hm, kx=kx, ky=ky, u0=u0, v0=v0)
    if abs(math.degrees(theta)) > 2:
        tags.add('rotated')
    if key > 0.015:
        tags.add('tilt')

    # dye / medium colour
    P['dye_vec'] = (TRYPAN * np.array([rng.uniform(0.9, 1.1), rng.uniform(0.85, 1.1),
                                       rng.uniform(0.6, 1.5)], F32)).astype(F32)
    P['bg_dye'] = rng.uniform(0.02, 0.2)

    # focus field (defocus in arbitrary units; ~1 = nominal working defocus)
    f0 = rng.uniform(0.6, 1.2)
    varying = rng.random() < 0.3 or 'defocus-varying' in hard
    if varying:
        g = rng.uniform(0.5, 1.0)
        ga = rng.uniform(0, 2 * np.pi)
        fgx, fgy, fcurv = g * math.cos(ga), g * math.sin(ga) * 0.6, rng.uniform(-0.4, 0.4)
        tags.add('focus-varying')
    else:
        fgx, fgy, fcurv = rng.uniform(-0.15, 0.15), rng.uniform(-0.1, 0.1), 0.0
    fmin = -0.35 if 'defocus-varying' in hard else 0.15

    def focus_at(x, y):
        xn = (np.asarray(x) - W / 2) / (W / 2)
        yn = (np.asarray(y) - H / 2) / (W / 2)
        return np.clip(f0 + fgx * xn + fgy * yn * 1.7 + fcurv * (xn * xn + yn * yn), fmin, 1.8)
    P['focus_at'] = focus_at
    P['f0'] = f0
    strong = rng.random() < 0.18 or 'defocus-strong' in hard
    if cond == 'blank' and rng.random() < 0.2:
        strong = True
    # typical cell radius (px) for this magnification, clamped to the 5..12 px range
    r_um = rng.uniform(4.8, 7.5)
    S['r_med'] = float(np.clip(r_um / s, 6.2, 10.0))
    # blur per unit defocus; strong blur is capped so cells stay countable by eye
    # (Gaussian sigma at most ~0.4 of the typical radius where the focus is worst)
    P['kb'] = rng.uniform(1.4, 2.8) if strong else rng.uniform(0.3, 1.0)
    fworst = max(abs(f0) + abs(fgx) + abs(fgy) * 1.7 + abs(fcurv) * 1.3, 0.3)
    P['kb'] = min(P['kb'], 0.4 * S['r_med'] / fworst) if strong else P['kb']
    P['sigma0'] = rng.uniform(0.45, 0.9)
    a = rng.uniform(0, 2 * np.pi)
    P['illum_dir'] = (math.cos(a), math.sin(a))
    return P, strong


def line_points(P, rng):
    """Image positions on ruling lines and crossings, for cells placed on them."""
    Hm = P['Hm']
    Hi = np.linalg.inv(Hm)
    corners = apply_h(Hi, [[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]])
    umin, vmin = corners.min(0)
    umax, vmax = corners.max(0)
    lines = line_list()
    pts = []
    for (p, e0, e1, kind) in lines:        # vertical lines u = p
        lo, hi = max(e0, vmin), min(e1, vmax)
        if umin <= p <= umax and lo < hi:
            for v in np.linspace(lo, hi, 30):
                pts.append((p, v))
    for (p, e0, e1, kind) in lines:        # horizontal lines v = p
        lo, hi = max(e0, umin), min(e1, umax)
        if vmin <= p <= vmax and lo < hi:
            for uu in np.linspace(lo, hi, 30):
                pts.append((uu, p))
    cross = []
    for (pu, eu0, eu1, _k) in lines:
        for (pv, ev0, ev1, _k2) in lines:
            if eu0 <= pv <= eu1 and ev0 <= pu <= ev1 and umin <= pu <= umax and vmin <= pv <= vmax:
                cross.append((pu, pv))
    allp = pts + cross * 6     # weight crossings up
    if not allp:
        return np.zeros((0, 2))
    xy = apply_h(Hm, allp)
    ok = (xy[:, 0] > -5) & (xy[:, 0] < W + 5) & (xy[:, 1] > -5) & (xy[:, 1] < H + 5)
    return xy[ok]


def render_image(cond, seed, cidx, k):
    ss = np.random.SeedSequence([seed, cidx, k])
    rng = np.random.default_rng(ss)
    tags = {'synthetic', 'gen5', 'condition:' + cond, 'hemocytometer', 'brightfield', 'trypan-blue'}
    S = sample_settings(cond, rng)
    hard = S['hard']
    for h in sorted(hard):
        tags.add('hard:' + h)
    if cond == 'blank':
        tags.add('blank-control')
    if cond in ('dense', 'sparse'):
        tags.add(cond)
    P, strong_blur = build_scene(cond, rng, S, tags)
    yy, xx = np.mgrid[0:H, 0:W]
    X = xx.astype(F32)
    Y = yy.astype(F32)

    # bubble first (cells avoid its interior)
    P['bubble'] = None
    if rng.random() < (0.35 if cond == 'blank' else 0.15) or 'bubble' in hard:
        # a large arc entering from outside: centre off-image or near an edge,
        # bubble covering 3-30 % of the frame
        gy_, gx_ = np.mgrid[0:H:16, 0:W:16]
        for _ in range(60):
            Rb = rng.uniform(700, 2500)
            ang = rng.uniform(0, 2 * np.pi)
            cxp, cyp = rng.uniform(0, W), rng.uniform(0, H)
            dist = Rb - rng.uniform(40, 450)
            bx, by = cxp + dist * math.cos(ang), cyp + dist * math.sin(ang)
            frac = float((np.hypot(gx_ - bx, gy_ - by) < Rb).mean())
            if 0.03 <= frac <= 0.3:
                break
        P['bubble'] = dict(x=bx, y=by, R=Rb,
                           w=rng.uniform(6, 24), dark=rng.uniform(0.8, 2.2),
                           bright=rng.uniform(0.1, 0.5), inner=rng.uniform(0.02, 0.12))
        tags.add('bubble-edge')

    cv = Canvas()

    # ----- ruling
    Hi = np.linalg.inv(P['Hm'])
    den = Hi[2, 0] * X + Hi[2, 1] * Y + Hi[2, 2]
    U = ((Hi[0, 0] * X + Hi[0, 1] * Y + Hi[0, 2]) / den).astype(F32)
    V = ((Hi[1, 0] * X + Hi[1, 1] * Y + Hi[1, 2]) / den).astype(F32)
    s = P['s']
    heavy = rng.random() < 0.2 or 'heavy-lines' in hard
    st = rng.choice(['dark', 'bright', 'faint'], p=[0.45, 0.4, 0.15])
    if 'heavy-lines' in hard and st == 'faint':
        st = 'dark'
    w = max(rng.uniform(0.7, 2.2) * (1.8 if heavy else 1.0), 0.6 * s)
    G = dict(style=st, w=w, gap=rng.uniform(2.5, 6.0) + 1.5 * w, mod=rng.uniform(0, 0.2),
             modf=rng.uniform(0.005, 0.05), modp=rng.uniform(0, 6.28), f0=P['f0'],
             fine_k=rng.uniform(0.6, 1.0), eoff=rng.uniform(1.2, 1.8), ew=rng.uniform(0.5, 0.9))
    if st == 'dark':
        G['core'] = -rng.uniform(0.15, 0.7) * (2.0 if heavy else 1.0)
        G['edge'] = rng.uniform(0.0, 0.08) if rng.random() < 0.5 else 0.0
        tags.add('lines-dark')
    elif st == 'bright':
        G['core'] = rng.uniform(0.12, 0.45) * (1.3 if heavy else 1.0)
        G['edge'] = -rng.uniform(0.15, 0.5) * (1.8 if heavy else 1.0)
        tags.add('lines-bright')
    else:
        G['core'] = rng.choice([-1, 1]) * rng.uniform(0.04, 0.12)
        G['edge'] = -rng.uniform(0.0, 0.06)
        tags.add('lines-faint')
    if heavy:
        tags.add('lines-heavy')
    if rng.random() < 0.3:
        ramp = np.clip((X * math.cos(rng.uniform(0, 6.3)) + Y * 0.3) / W + rng.uniform(-0.5, 0.5), 0, 1)
        G['xblur'] = (ramp * rng.uniform(2.0, 6.0) * s).astype(F32)
        tags.add('lines-defocused')
    else:
        G['xblur'] = 0.0
    focus = P['focus_at'](X, Y).astype(F32)
    cv.li += ruling_field(U, V, G, focus)[..., None]
    del U, V

    # ----- bubble edge
    if P['bubble'] is not None:
        render_bubble(cv, rng, P, X, Y)

    # ----- cells
    P['line_points'] = line_points(P, rng)
    pl = place_cells(rng, P, S)
    for c in pl.cells:
        dress_cell(c, rng, P, S)
    for c in pl.cells:
        render_cell(cv, c, P, rng)
    cells = pl.cells
    if len(cells) and S['clump_frac'] > 0.2:
        tags.add('clumps')
    if any(c['nb'] for c in cells):
        tags.add('touching')
    if any(c['label'] == 'dead' and c['dye'] < 0.35 for c in cells):
        tags.add('pale-dead')
    if any(c['blur'] > 0.8 for c in cells):
        tags.add('unsettled-cells')
    lab = [c for c in cells if inside_image(c['x'], c['y'])]
    if any(min(c['x'], c['y'], W - 1 - c['x'], H - 1 - c['y']) < c['R'] for c in lab):
        tags.add('border-cells')
    if any(c.get('online') and inside_image(c['x'], c['y']) for c in cells):
        tags.add('cells-on-lines')

    # ----- debris & confounders
    heavy_deb = 'heavy-debris' in hard or (cond == 'blank' and rng.random() < 0.5)
    mult = 2.5 if heavy_deb else 1.0
    n_dust = int(rng.integers(20, 250) * mult)
    render_dust(cv, rng, n_dust, P)
    tags.add('dust')
    n_round = int(rng.integers(2, 20) * mult) + (int(rng.integers(5, 25)) if cond == 'blank' else 0)
    render_round_debris(cv, rng, n_round, P, pl)
    tags.add('debris')
    if heavy_deb:
        tags.add('debris-heavy')
    if rng.random() < 0.35 or cond == 'blank':
        render_round_debris(cv, rng, int(rng.integers(1, 8) * mult), P, pl, ghost=True)
        tags.add('ghosts')
    if rng.random() < 0.5:
        render_granular(cv, rng, int(rng.integers(1, 10) * mult), P)
    if rng.random() < (0.7 if cond == 'blank' else 0.45) or 'precipitate-heavy' in hard:
        n = int(rng.integers(2, 15)) * (3 if 'precipitate-heavy' in hard else 1)
        render_precipitate(cv, rng, n, P)
        tags.add('precipitate')
    if rng.random() < (0.6 if cond == 'blank' else 0.35) or heavy_deb:
        nf = int(rng.integers(1, 4))
        for _ in range(nf):
            d = rng.random() < 0.35
            if render_fibre(cv, rng, P, d):
                tags.add('fibres')
    if rng.random() < 0.3:
        for _ in range(int(rng.integers(1, 4))):
            render_scratch(cv, rng, X, Y)
        tags.add('scratches')
    if rng.random() < 0.5:
        render_optic_dust(cv, rng, int(rng.integers(1, 7)))
        tags.add('optics-dust')

    # ----- illumination (linear light)
    xn = (X - W / 2) / (W / 2)
    yn = (Y - H / 2) / (W / 2)
    vs = rng.uniform(0.45, 0.8) if 'vignetting-strong' in hard else (
        rng.uniform(0.0, 0.4) if rng.random() < 0.7 else rng.uniform(0.4, 0.6))
    vcx, vcy = rng.uniform(-0.3, 0.3), rng.uniform(-0.2, 0.2)
    r2 = (xn - vcx) ** 2 + (yn - vcy) ** 2
    vig = 1.0 / (1.0 + vs * r2) ** 2
    if vs > 0.3:
        tags.add('vignetting')
    gx, gy = rng.uniform(-0.2, 0.2, 2)
    grad = 1.0 + gx * xn + gy * yn
    for _ in range(int(rng.integers(0, 3))):
        bx, by = rng.uniform(-1, 1), rng.uniform(-0.6, 0.6)
        grad = grad + rng.uniform(-0.15, 0.15) * np.exp(-((xn - bx) ** 2 + (yn - by) ** 2) / (2 * rng.uniform(0.2, 0.6) ** 2))
    if abs(gx) + abs(gy) > 0.2:
        tags.add('uneven-illumination')
    illum = (vig * grad).astype(F32)
    lamps = [np.array([1.0, 0.86, 0.6]), np.array([1.0, 0.95, 0.85]), np.array([0.97, 1.0, 1.02]),
             np.array([0.8, 1.0, 0.7]), np.array([0.85, 0.92, 1.1]), np.array([1.0, 0.9, 1.0])]
    lamp = lamps[rng.integers(len(lamps))] * np.exp(rng.normal(0, 0.04, 3))
    wb_alpha = rng.uniform(0.0, 0.4) if 'colour-cast-strong' in hard else rng.uniform(0.15, 1.0)
    wb_err = np.exp(rng.normal(0, 0.05, 3))      # imperfect auto white balance
    li = cv.li
    li -= P['bg_dye'] * P['dye_vec']
    np.clip(li, -6.0, 2.0, out=li)
    lin = np.exp(li) * illum[..., None] * lamp.astype(F32)
    del cv

    # ----- optics: defocus (field-dependent) + motion + chromatic aberration
    sigmap = np.sqrt(P['sigma0'] ** 2 + (P['kb'] * np.abs(focus)) ** 2).astype(F32)
    if strong_blur or float(sigmap.mean()) > 1.8:
        tags.add('blurred')
    if float(sigmap.max() - sigmap.min()) > 0.6:
        tags.add('blur-varying')
    ca = rng.uniform(0, 1) if rng.random() < 0.5 else 0.0
    dsig = (0.15 * ca, 0.0, 0.35 * ca)
    motion = None
    if rng.random() < 0.1 or 'motion' in hard:
        motion = (rng.uniform(3, max(4.0, 1.3 * S['r_med'])), rng.uniform(0, np.pi))
        tags.add('motion-blur')
    lin = optical_blur(lin.astype(F32), sigmap, dsig, motion)
    if ca > 0.3:
        lin[..., 0] = remap_scale(lin[..., 0], 0.0012 * ca, W / 2 + rng.normal(0, 40), H / 2 + rng.normal(0, 40))
        lin[..., 2] = remap_scale(lin[..., 2], -0.0016 * ca, W / 2, H / 2)
        tags.add('chromatic-aberration')

    # ----- glare (additive stray light, may saturate)
    if rng.random() < 0.2 or 'glare' in hard:
        base = float(np.median(lin[::8, ::8, 1]))
        for _ in range(int(rng.integers(1, 3))):
            gxc, gyc = rng.uniform(0, W), rng.uniform(0, H)
            ra, rb_ = rng.uniform(60, 450), rng.uniform(40, 300)
            ga = rng.uniform(0, np.pi)
            u_ = ((X - gxc) * math.cos(ga) + (Y - gyc) * math.sin(ga)) / ra
            v_ = (-(X - gxc) * math.sin(ga) + (Y - gyc) * math.cos(ga)) / rb_
            q = u_ * u_ + v_ * v_
            pw = rng.uniform(1.0, 2.5)
            g = np.exp(-q ** pw) * rng.uniform(0.5, 1.8) * base
            lin += g[..., None] * (lamp * np.exp(rng.normal(0, 0.05, 3))).astype(F32)
        tags.add('glare')

    # ----- sensor
    mono = rng.random() < 0.12 or 'monochrome' in hard
    target = rng.uniform(0.25, 0.6)
    if 'low-light' in hard:
        target = rng.uniform(0.15, 0.28)
        tags.add('low-light')
    med = np.median(lin[::8, ::8, :], axis=(0, 1))
    if mono:
        resp = np.array([0.3, 0.55, 0.15], F32)   # mono sensor spectral weighting
        lin = (lin * resp).sum(axis=2, keepdims=True) / float((med * resp).sum()) * target
        lin = np.repeat(lin, 3, axis=2)
    else:
        lin = lin * (target / float(med[1]))
    full_well = rng.uniform(3000, 15000)
    read_e = rng.uniform(1.5, 8.0)
    if 'noise' in hard:
        full_well = rng.uniform(700, 1500)
        read_e = rng.uniform(6, 12)
    elif 'low-light' in hard:
        full_well = rng.uniform(2000, 6000)
    if target * full_well < 600:
        tags.add('noise-high')
    if mono:
        e = lin[..., 0] * full_well
        e = e + rng.standard_normal(e.shape, dtype=F32) * np.sqrt(np.maximum(e, 0)) \
            + rng.standard_normal(e.shape, dtype=F32) * read_e
        img = np.clip(e / full_well, 0, 1).astype(F32)[..., None]
        tags.add('monochrome')
    else:
        sens = np.array([0.55, 1.0, 0.7], F32) * np.exp(rng.normal(0, 0.05, 3)).astype(F32)
        # camera "sees" the lamp colour before white balance
        if rng.random() < 0.65:
            img = bayer_capture(lin, rng, full_well, read_e, sens)
            tags.add('bayer-demosaic')
        else:
            img = plain_capture(lin, rng, full_well, read_e, sens)
        wb = (1.0 / lamp) ** wb_alpha * wb_err
        wb = (wb / wb[1]).astype(F32)
        img = img * wb
        if np.std(np.log(lamp * wb)) > 0.05:
            tags.add('colour-cast')
    if 'low-light' in hard:
        img = img * F32((0.45 / target) ** 0.7)    # digital gain amplifies the noise
    # ----- ISP: gamma, saturation, sharpening
    gam = rng.uniform(1.8, 2.4)
    img = np.clip(img, 0, 1) ** (1.0 / gam)
    if img.shape[2] == 3:
        sat = rng.uniform(0.8, 1.35)
        Yl = img.mean(axis=2, keepdims=True)
        img = Yl + sat * (img - Yl)
    if rng.random() < 0.45:
        amt = rng.uniform(0.3, 1.2)
        rad = rng.uniform(0.8, 2.2)
        for ch in range(img.shape[2]):
            bl = gauss_blur_img(img[..., ch], rad)
            img[..., ch] = img[..., ch] + amt * (img[..., ch] - bl)
        tags.add('sharpened')
    out8 = np.clip(np.round(img * 255.0), 0, 255).astype(np.uint8)

    # ----- encoding
    u = rng.random()
    if 'jpeg60' in hard or u < 0.2:
        fmt, q = 'jpg', 60
    elif u < 0.6:
        fmt, q = 'jpg', int(rng.integers(75, 96))
    else:
        fmt, q = 'png', None
    if mono:
        pil = Image.fromarray(out8[..., 0], 'L') if rng.random() < 0.6 else Image.fromarray(np.repeat(out8, 3, 2), 'RGB')
    else:
        pil = Image.fromarray(out8, 'RGB')
    if fmt == 'jpg':
        tags.add('jpeg-q%d' % q)
        tags.add('jpeg')
    else:
        tags.add('png')

    # ----- labels
    corners = apply_h(P['Hm'], [[0, 0], [3000, 0], [3000, 3000], [0, 3000]])
    lab_cells = [dict(x=round(float(c['x']), 3), y=round(float(c['y']), 3),
                      r=round(float(c['R']), 3), label=c['label']) for c in lab]
    n_dead = sum(1 for c in lab_cells if c['label'] == 'dead')
    meta = dict(name='gen5-synth', seed=seed, condition=cond, index=k,
                nLive=len(lab_cells) - n_dead, nDead=n_dead,
                nDrawnOutside=len(cells) - len(lab),
                lineStyle=str(st), focusMean=round(float(focus.mean()), 3),
                blurSigmaPx=[round(float(sigmap.min()), 2), round(float(sigmap.max()), 2)],
                hard=sorted(hard))
    return pil, fmt, q, dict(
        corners=[[round(float(a), 2), round(float(b), 2)] for a, b in corners],
        cells=lab_cells, tags=sorted(tags), umPerPixel=round(float(s), 4), meta=meta)


def write_one(out_dir, seed, cidx, cond, k):
    pil, fmt, q, L = render_image(cond, seed, cidx, k)
    stem = 'gen5-s%d-%s-%02d' % (seed, cond, k)
    fname = stem + '.' + fmt
    path = os.path.join(out_dir, fname)
    if fmt == 'jpg':
        sub = 0 if (q >= 90 and (k % 2 == 0)) else 2
        pil.save(path, quality=q, subsampling=sub)
    else:
        pil.save(path, compress_level=6)
    doc = {
        'version': 1,
        'image': fname,
        'width': W,
        'height': H,
        'umPerPixel': L['umPerPixel'],
        'dilution': 2.0,
        'grid': {'corners': L['corners'], 'widthUm': 3000, 'heightUm': 3000},
        'cells': L['cells'],
        'tags': L['tags'],
        'generator': L['meta'],
    }
    with open(os.path.join(out_dir, stem + '.json'), 'w') as f:
        json.dump(doc, f, indent=1)
    return fname, len(L['cells'])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', required=True)
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--per-condition', type=int, required=True)
    ap.add_argument('--conditions', default=','.join(CONDITIONS),
                    help='comma-separated subset of ' + ','.join(CONDITIONS))
    ap.add_argument('--quiet', action='store_true')
    a = ap.parse_args(argv)
    conds = [c for c in a.conditions.split(',') if c]
    for c in conds:
        if c not in CONDITIONS:
            ap.error('unknown condition %r' % c)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    for c in conds:
        cidx = CONDITIONS.index(c)
        for k in range(a.per_condition):
            t1 = time.time()
            fname, n = write_one(a.out, a.seed, cidx, c, k)
            if not a.quiet:
                print('%-34s cells=%4d  %.1fs' % (fname, n, time.time() - t1), flush=True)
    if not a.quiet:
        print('done: %d images in %.1fs' % (len(conds) * a.per_condition, time.time() - t0))


if __name__ == '__main__':
    main()
