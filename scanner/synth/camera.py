"""The phone camera: a printed page seen in perspective, curled, lit unevenly, blurred, noisy, JPEG-compressed.

Geometry: page pixels ``p`` are bent by a gentle curl ``p + d(p)`` and then
projected by one homography ``H`` (a pinhole camera tilted up to ~25 degrees,
rolled, sometimes turned by 90/180/270 degrees). The image is made by the
inverse map (output pixel -> page pixel, solved for the curl by fixed-point
iteration) and every tracked point by the forward map, so the grid corners in
the photo are exact to a small fraction of a pixel.
"""
from __future__ import annotations

import cv2
import numpy as np

from . import optics

LONG_SIDES = (1000, 1024, 1280, 1600, 2048, 2592, 3024, 4000)
LONG_WEIGHTS = (0.15, 0.1, 0.2, 0.2, 0.15, 0.08, 0.07, 0.05)
MAX_PAGE_PX = 5200


def plan(rng: np.random.Generator, grid_mm: float) -> dict:
    """Frame size, how much of the frame the grid fills, page resolution and the page margins (mm) needed."""
    long_side = int(rng.choice(LONG_SIDES, p=LONG_WEIGHTS))
    aspect = float(rng.choice([4 / 3, 16 / 9, 1.0], p=[0.7, 0.2, 0.1]))
    short = int(round(long_side / aspect))
    w, h = (long_side, short) if rng.random() < 0.5 else (short, long_side)
    cutout = rng.random() < 0.2  # a puzzle cut out of the paper (or a page edge): the table shows
    frac = float(rng.uniform(0.6 if cutout else 0.45, 0.92))  # grid extent / short side of the frame
    ppm = frac * short / grid_mm / float(rng.uniform(0.9, 1.1))
    cover = grid_mm / frac * aspect  # mm seen along the long side
    margin = float(rng.uniform(3, 20)) if cutout else (cover - grid_mm) / 2 + 0.45 * cover
    margins = tuple(margin * float(rng.uniform(0.8, 1.6)) if cutout else margin for _ in range(4))
    page_px = (grid_mm + 2 * max(margins)) * ppm
    if page_px > MAX_PAGE_PX:
        ppm *= MAX_PAGE_PX / page_px
    return {"width": w, "height": h, "frac": frac, "ppm": ppm, "margins": margins, "cutout": cutout}


def _rotation(pitch: float, yaw: float) -> np.ndarray:
    cx, sx, cy, sy = np.cos(pitch), np.sin(pitch), np.cos(yaw), np.sin(yaw)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    return ry @ rx


class View:
    """Page pixels -> photo pixels: curl in normalised page units, then the homography."""

    def __init__(self, H: np.ndarray, centre: np.ndarray, unit: float, curl: tuple[float, float, float, float]):
        self.H, self.Hinv = H, np.linalg.inv(H)
        self.centre, self.unit, self.curl = centre, unit, curl

    def _bend(self, q: np.ndarray) -> np.ndarray:
        a, x0, b, y0 = self.curl
        return np.stack([b * (q[..., 1] - y0) ** 2, a * (q[..., 0] - x0) ** 2], axis=-1)

    def forward(self, pts: np.ndarray) -> np.ndarray:
        """(k, 2) page (x, y) -> (k, 2) photo (x, y)."""
        q = (np.asarray(pts, np.float64) - self.centre) / self.unit
        q = q + self._bend(q)
        hom = np.c_[q, np.ones(len(q))] @ self.H.T
        return hom[:, :2] / hom[:, 2:]

    def inverse(self, pts: np.ndarray, iterations: int = 4) -> np.ndarray:
        """(..., 2) photo (x, y) -> (..., 2) page (x, y)."""
        hom = np.concatenate([pts, np.ones(pts.shape[:-1] + (1,))], axis=-1) @ self.Hinv.T
        target = hom[..., :2] / hom[..., 2:]
        q = target.copy()
        for _ in range(iterations):
            q = target - self._bend(q)
        return q * self.unit + self.centre


def _view(rng, grid: np.ndarray, w: int, h: int, frac: float, turn: int | None) -> tuple[View, dict]:
    centre = grid.mean(axis=0)
    unit = float(np.linalg.norm(grid[1] - grid[0]))
    tilt = float(min(25.0, abs(rng.normal(0, 11))))
    phi = rng.uniform(0, 2 * np.pi)
    dist = float(rng.uniform(1.6, 4.0))
    R = _rotation(np.radians(tilt * np.cos(phi)), np.radians(tilt * np.sin(phi)))
    P = np.c_[R[:, 0], R[:, 1], np.array([0, 0, dist])]
    drawn = int(rng.choice([0, 90, 180, 270], p=[0.8, 0.08, 0.06, 0.06]))
    turn = drawn if turn is None else int(turn)
    roll = float(rng.normal(0, 4)) + turn
    curl = (float(rng.uniform(-0.03, 0.03)), float(rng.uniform(-1, 1)), float(rng.uniform(-0.015, 0.015)),
            float(rng.uniform(-1, 1))) if rng.random() < 0.6 else (0.0, 0.0, 0.0, 0.0)
    c, s = np.cos(np.radians(roll)), np.sin(np.radians(roll))
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    probe = View(rot @ P, centre, unit, curl).forward(grid)
    extent = probe.max(axis=0) - probe.min(axis=0)
    scale = frac * min(w, h) / max(extent)
    lo, hi = probe.min(axis=0) * scale, probe.max(axis=0) * scale
    room_x, room_y = w - (hi[0] - lo[0]), h - (hi[1] - lo[1])
    tx = -lo[0] + rng.uniform(0.15, 0.85) * max(room_x, 0)
    ty = -lo[1] + rng.uniform(0.15, 0.85) * max(room_y, 0)
    S = np.array([[scale, 0, tx], [0, scale, ty], [0, 0, 1]])
    view = View(S @ rot @ P, centre, unit, curl)
    return view, {"tilt_deg": round(tilt, 1), "roll_deg": round(roll, 1), "turn_deg": turn,
                  "distance": round(dist, 2), "curl": [round(v, 4) for v in curl]}


def _maps(view: View, w: int, h: int, step: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Full-size remap tables, computed on a coarse lattice and interpolated exactly at x / step."""
    gw, gh = w // step + 2, h // step + 2
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float64) * step
    src = view.inverse(np.stack([xx, yy], axis=-1)).astype(np.float32)
    M = np.array([[1 / step, 0, 0], [0, 1 / step, 0]], np.float32)  # output (x, y) -> coarse (x / step, y / step)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    mx = cv2.warpAffine(src[..., 0], M, (w, h), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    my = cv2.warpAffine(src[..., 1], M, (w, h), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    return mx, my


def _table(rng, h: int, w: int) -> np.ndarray:
    base = np.array([(0.45, 0.3, 0.18), (0.16, 0.16, 0.18), (0.78, 0.77, 0.74), (0.22, 0.3, 0.45),
                     (0.55, 0.5, 0.42)][int(rng.integers(5))], np.float32)
    field = 1 + optics.smooth_field(rng, h, w, cells=6, amplitude=0.15)
    img = base[None, None, :] * field[..., None]
    if rng.random() < 0.5:  # wood grain / fabric streaks
        streak = optics.smooth_field(rng, h, w, cells=2, amplitude=1)
        y = np.arange(h, dtype=np.float32)[:, None]
        img *= (1 + 0.04 * np.sin(y / rng.uniform(1.5, 4) + 6 * streak))[..., None]
    return img


def photograph(page: np.ndarray, grids: list[np.ndarray], rng: np.random.Generator, plan_: dict,
               *, primary: int = 0, turn: int | None = None) -> tuple[np.ndarray, list[np.ndarray], dict]:
    """Photograph ``page`` (H, W, 3) uint8; returns the photo (h, w, 3) uint8 RGB, each grid's photo corners, params.

    ``turn`` forces the camera's quarter turn (0/90/180/270 degrees) instead of drawing it.
    """
    w, h = plan_["width"], plan_["height"]
    view, params = _view(rng, np.asarray(grids[primary], np.float64), w, h, plan_["frac"], turn)
    mx, my = _maps(view, w, h)
    src = page
    local_scale = plan_["frac"] * min(w, h) / np.linalg.norm(np.subtract(grids[primary][1], grids[primary][0]))
    if local_scale < 0.8:  # the page is drawn finer than the photo: avoid aliasing
        src = cv2.GaussianBlur(src, (0, 0), 0.45 / local_scale)
    img = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    img = img.astype(np.float32)
    img *= np.float32(1 / 255)
    ink_black = float(rng.uniform(0.04, 0.18))
    optics.ink_and_paper(img, ink_black=ink_black)
    tint = np.array([1.0, rng.uniform(0.95, 1.0), rng.uniform(0.82, 0.97)], np.float32) * rng.uniform(0.9, 1.0)
    ph, pw = page.shape[:2]
    inside = (mx.min() >= 0) and (my.min() >= 0) and (mx.max() <= pw - 1) and (my.max() <= ph - 1)
    if not inside:  # the table shows beyond the paper; the paper casts a soft shadow on it
        mask = cv2.remap(np.ones((ph, pw), np.float32), mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=0)
        table = _table(rng, h, w) / tint[None, None, :]
        shade = optics.soft(mask, 0.006 * max(w, h))
        table *= (1 - 0.5 * shade)[..., None]
        img *= mask[..., None]
        img += table * (1 - mask)[..., None]
    grain_amount = float(rng.uniform(0.005, 0.03))
    light = float(rng.uniform(0.1, 0.6))
    gain = optics.illumination(rng, h, w, strength=light)
    shadow = rng.random() < 0.35
    if shadow:
        gain *= optics.shadow_band(rng, h, w)
    gain *= optics.texture(rng, h, w, amount=grain_amount)
    colour = np.array([(1.0, 0.93, 0.8), (1.0, 1.0, 1.0), (0.93, 0.98, 1.05), (1.0, 0.97, 0.9)][int(rng.integers(4))],
                      np.float32)
    exposure = float(rng.uniform(0.7, 1.05))
    img *= gain[..., None]
    img *= (colour * tint * np.float32(exposure))[None, None, :]
    has_glare = rng.random() < 0.2
    if has_glare:
        img += optics.glare(rng, h, w)[..., None]
    sigma = float(rng.uniform(0.2, 1.2) * max(w, h) / 1600)
    motion = float(rng.uniform(2, 6) * max(w, h) / 1600) if rng.random() < 0.15 else 0.0
    img = optics.blur(rng, img, sigma=sigma, motion=motion)
    noise = float(rng.uniform(0.004, 0.03))
    img = optics.sensor(rng, img, noise=noise, sharpen=float(rng.uniform(0, 0.8)) if rng.random() < 0.6 else 0.0)
    gamma = float(rng.uniform(0.8, 1.1))
    out = optics.to_uint8(img, gamma=gamma)
    corners = [view.forward(np.asarray(g, np.float64)) for g in grids]
    params.update({"width": w, "height": h, "grid_fraction": round(plan_["frac"], 3), "cutout": plan_["cutout"],
                   "light_gradient": round(light, 2), "shadow_band": shadow, "glare": has_glare,
                   "blur_sigma": round(sigma, 2), "motion_blur": round(motion, 1), "noise": round(noise, 4),
                   "ink_black": round(ink_black, 3), "paper_tint": [round(float(v), 3) for v in tint], "texture": round(grain_amount, 4),
                   "jpeg_quality": int(rng.integers(60, 96))})
    return out, corners, params
