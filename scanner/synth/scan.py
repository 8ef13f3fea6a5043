"""The flatbed scanner: a newspaper clipping on the glass at 150-300 dpi, skewed or turned, with show-through.

The clipping is placed by one affine map (rotation + translation), applied to
the image with ``cv2.warpAffine`` and to the grid corners with the same
matrix, so the corners stay exact.
"""
from __future__ import annotations

import cv2
import numpy as np

from . import optics, page as page_mod

DPIS = (150, 200, 240, 300)


def plan(rng: np.random.Generator, grid_mm: float) -> dict:
    dpi = int(rng.choice(DPIS, p=[0.3, 0.25, 0.15, 0.3]))
    ppm = dpi / 25.4
    need = 1000 / ppm  # mm: the long side must reach 1000 px
    limit = 3800 / ppm  # ... and stay under 4000 px
    margin = float(np.clip(rng.uniform(8, 60), (need - grid_mm) / 2 + 5, max(3.0, (limit - grid_mm) / 2 / 1.3 - 12)))
    margins = tuple(margin * float(rng.uniform(0.7, 1.3)) for _ in range(4))
    return {"dpi": dpi, "ppm": ppm, "margins": margins, "full_bed": bool(rng.random() < 0.35)}


def _back_page(rng, shape: tuple[int, int], ppm: float) -> np.ndarray:
    """The other side of the clipping, grey (h, w) float32 0..1, mirrored and soft (what shows through newsprint)."""
    h, w = shape
    low = ppm / 3
    img, _ = page_mod.compose([], rng, ppm=low, margins=(0.0, 0.0, w / ppm, h / ppm))
    grey = cv2.cvtColor(np.ascontiguousarray(img[:, ::-1]), cv2.COLOR_RGB2GRAY)
    grey = cv2.GaussianBlur(grey.astype(np.float32) / 255, (0, 0), 0.25 * low)
    return cv2.resize(grey, (w, h), interpolation=cv2.INTER_LINEAR)


def scan(page: np.ndarray, grids: list[np.ndarray], rng: np.random.Generator, plan_: dict,
         *, turn: int | None = None) -> tuple[np.ndarray, list[np.ndarray], dict]:
    """Scan ``page`` (H, W, 3) uint8; returns the scan (h, w, 3) uint8 RGB, each grid's scan corners, params."""
    ph, pw = page.shape[:2]
    ppm = plan_["ppm"]
    drawn = int(rng.choice([0, 90, 180, 270], p=[0.6, 0.2, 0.1, 0.1]))
    turn = drawn if turn is None else int(turn)
    skew = float(rng.normal(0, 1.5))
    angle = turn + skew
    w = h = None
    if plan_["full_bed"]:
        w, h = int(216 * ppm), int(297 * ppm)  # A4-ish glass, portrait
    M = cv2.getRotationMatrix2D((pw / 2, ph / 2), angle, 1.0)  # page px -> rotated px (about the page centre)
    box = cv2.transform(np.array([[[0, 0], [pw, 0], [pw, ph], [0, ph]]], np.float32), M)[0]
    lo, hi = box.min(axis=0), box.max(axis=0)
    pad = float(rng.uniform(2, 12)) * ppm
    if w is not None and (hi[0] - lo[0] > w or hi[1] - lo[1] > h):
        w = h = None  # the clipping is larger than the glass: scan just the clipping
    if w is None:
        w, h = int(hi[0] - lo[0] + 2 * pad), int(hi[1] - lo[1] + 2 * pad)
        off = np.array([pad, pad]) - lo
    else:
        room = np.maximum(np.array([w, h]) - (hi - lo), 0)
        off = rng.uniform(0.1, 0.9, 2) * room - lo
    M[:, 2] += off
    warp = dict(flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    img = cv2.warpAffine(page, M, (w, h), borderValue=(255, 255, 255), **warp).astype(np.float32)
    img *= np.float32(1 / 255)
    mask = cv2.warpAffine(np.ones((ph, pw), np.float32), M, (w, h), borderValue=0, **warp)
    ink_black = float(rng.uniform(0.05, 0.15))
    optics.ink_and_paper(img, ink_black=ink_black)
    tint = np.array([1.0, rng.uniform(0.95, 1.0), rng.uniform(0.85, 0.98)], np.float32) * rng.uniform(0.9, 1.0)
    gain = optics.texture(rng, h, w, amount=float(rng.uniform(0.003, 0.015)))
    through = float(rng.uniform(0.03, 0.14)) if rng.random() < 0.7 else 0.0
    if through:
        back = cv2.warpAffine(_back_page(rng, (ph, pw), ppm), M, (w, h), borderValue=1.0, **warp)
        gain *= 1 - through * (1 - back)
    img *= gain[..., None]
    img *= tint[None, None, :]
    lid = float(rng.uniform(0.9, 0.99))
    edge = optics.soft(mask, 0.6 * ppm)
    outside = (1 - mask) * lid * (1 - 0.35 * edge)
    img *= mask[..., None]
    img += outside[..., None]
    light = 1 + optics.smooth_field(rng, h, w, cells=2, amplitude=0.03)
    img *= (light * float(rng.uniform(0.95, 1.08)))[..., None]
    img = optics.blur(rng, img, sigma=float(rng.uniform(0.3, 0.8)))
    img = optics.sensor(rng, img, noise=float(rng.uniform(0.002, 0.012)), sharpen=0.0)
    out = optics.to_uint8(img)
    corners = [cv2.transform(np.asarray(g, np.float64).reshape(1, -1, 2), M)[0] for g in grids]
    params = {"dpi": plan_["dpi"], "width": w, "height": h, "turn_deg": turn, "skew_deg": round(skew, 2),
              "show_through": round(through, 3), "full_bed": plan_["full_bed"], "ink_black": round(ink_black, 3),
              "jpeg_quality": int(rng.integers(75, 96)) if rng.random() < 0.9 else None}
    return out, corners, params
