"""Synthetic grid cells for training: printed glyphs as a camera sees them in a newspaper grid.

One call makes the cells of one imaginary grid: the same font, paper, ink,
blur, resolution and line style for all its cells (as in a real photo, so that
grid-level measurements such as the typical ink contrast behave as they do at
reading time). Each cell is drawn on a canvas a quarter cell larger on every
side, with the grid lines at the cell's borders and pieces of the neighbours'
glyphs around it, then cropped with a jittered margin the way a slightly
misaligned split would cut it.
"""
from __future__ import annotations

import cv2
import numpy as np

#: Canvas side of one cell before resampling to the grid's resolution.
S0 = 64
PAD = S0 // 4
EMPTY = "."


def _place(canvas_shape, master: np.ndarray, rng: np.random.Generator, *, height: float,
           centre: tuple[float, float], squeeze: float, shear: float, angle: float) -> np.ndarray:
    """Alpha (float32 0..1, canvas_shape) of ``master`` scaled to ``height`` px and centred at (x, y)."""
    mh, mw = master.shape
    s = height / mh
    a = np.deg2rad(angle)
    # Scale (x squeezed), shear, rotate, about the master's centre.
    m = np.array([[s * squeeze, s * shear], [0.0, s]])
    r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    m = r @ m
    c = np.array([mw / 2, mh / 2])
    t = np.array(centre) - m @ c
    aff = np.hstack([m, t[:, None]]).astype(np.float32)
    out = cv2.warpAffine(master.astype(np.float32) / 255.0, aff, (canvas_shape[1], canvas_shape[0]),
                         flags=cv2.INTER_LINEAR, borderValue=0)
    return out


def _thicken(master: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    u = rng.random()
    k = np.ones((3, 3), np.uint8)
    if u < 0.25:
        return cv2.dilate(master, k, iterations=int(rng.integers(1, 3)))
    if u < 0.4:
        eroded = cv2.erode(master, k)
        return eroded if eroded.max() > 0 else master
    return master


def _line(canvas: np.ndarray, rng: np.random.Generator, *, vertical: bool, pos: float, thick: float,
          dark: float, partial: bool) -> None:
    """Darken ``canvas`` (float paper) along a nearly straight grid line at ``pos``."""
    h, w = canvas.shape
    length = h if vertical else w
    tilt = rng.uniform(-1.5, 1.5)
    start, stop = 0, length
    if partial:
        if rng.random() < 0.5:
            start = int(rng.uniform(0, length * 0.6))
        else:
            stop = int(rng.uniform(length * 0.4, length))
    alpha = np.zeros_like(canvas)
    p0, p1 = pos, pos + tilt
    if vertical:
        pts = np.array([[p0, start], [p1, stop]])
    else:
        pts = np.array([[start, p0], [stop, p1]])
    shift = 4
    cv2.line(alpha, tuple(int(v * (1 << shift)) for v in pts[0]), tuple(int(v * (1 << shift)) for v in pts[1]),
             1.0, max(1, int(round(thick))), lineType=cv2.LINE_AA, shift=shift)
    canvas *= 1.0 - dark * np.clip(alpha, 0, 1)


def grid_cells(masters: dict[str, np.ndarray], rng: np.random.Generator, *, n: int,
               digit_share: float | None = None, symbols: str | None = None) -> list[tuple[np.ndarray, str]]:
    """``n`` cells (uint8 gray, label) of one imaginary grid printed in the font of ``masters``.

    ``masters`` maps each symbol to its high-resolution ink mask; labels are
    those symbols or ``"."`` for an empty cell.
    """
    symbols = symbols or "".join(masters)
    share = digit_share if digit_share is not None else rng.uniform(0.15, 0.7)
    side = int(round(np.exp(rng.uniform(np.log(13), np.log(110)))))  # final cell side in px
    paper = rng.uniform(70, 250)
    contrast = rng.uniform(0.18, 0.95)
    line_dark = contrast * rng.uniform(0.3, 1.0)
    line_thick = rng.uniform(0.8, 3.5) * S0 / 40
    box_thick = line_thick * rng.uniform(1.0, 2.5)
    blur = rng.uniform(0.0, 2.2) if rng.random() < 0.8 else rng.uniform(2.2, 3.5)
    noise = rng.uniform(0.0, 7.0)
    jpeg = int(rng.uniform(20, 92)) if rng.random() < 0.6 else 0
    glyph_h = rng.uniform(0.42, 0.8) * S0
    squeeze = rng.uniform(0.8, 1.2)
    shear = rng.uniform(-0.1, 0.1)
    margin = rng.uniform(-0.03, 0.1)
    misalign = rng.uniform(0.0, 0.12)
    bleed = rng.random() < 0.3
    cells = []
    size = S0 + 2 * PAD
    for _ in range(n):
        label = rng.choice(list(symbols)) if rng.random() < share else EMPTY
        canvas = np.full((size, size), paper, np.float32)
        # Uneven light: a tilted plane and sometimes a soft shadow edge.
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
        g = rng.uniform(-0.35, 0.35, 2)
        canvas *= 1.0 + g[0] * xx + g[1] * yy
        if rng.random() < 0.12:
            ang = rng.uniform(0, np.pi)
            d = np.cos(ang) * xx + np.sin(ang) * yy - rng.uniform(-0.4, 0.4)
            canvas *= 1.0 - rng.uniform(0.1, 0.45) / (1.0 + np.exp(-d * rng.uniform(8, 40)))
        ink = np.zeros_like(canvas)
        if bleed:  # show-through from the other side of the page: faint mirrored glyphs
            for _ in range(int(rng.integers(2, 9))):
                m = masters[rng.choice(list(masters))][:, ::-1]
                ink = np.maximum(ink, rng.uniform(0.04, 0.25) * _place(
                    canvas.shape, m, rng, height=rng.uniform(0.15, 0.4) * S0,
                    centre=(rng.uniform(0, size), rng.uniform(0, size)), squeeze=1.0, shear=0.0, angle=0.0))
        for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):  # neighbours' glyphs, outside the cell
            if rng.random() < share:
                m = masters[rng.choice(list(masters))]
                cx, cy = size / 2 + dx * S0, size / 2 + dy * S0
                ink = np.maximum(ink, _place(canvas.shape, m, rng, height=glyph_h,
                                             centre=(cx + rng.normal(0, 2), cy + rng.normal(0, 2)),
                                             squeeze=squeeze, shear=shear, angle=0.0))
        if label != EMPTY:
            m = _thicken(masters[label], rng)
            off = rng.normal(0, 0.05, 2) * S0
            ink = np.maximum(ink, rng.uniform(0.85, 1.0) * _place(
                canvas.shape, m, rng, height=glyph_h * rng.uniform(0.93, 1.07),
                centre=(size / 2 + off[0], size / 2 + off[1]), squeeze=squeeze, shear=shear,
                angle=rng.uniform(-4, 4)))
        if rng.random() < 0.25:  # specks and dirt
            for _ in range(int(rng.integers(1, 5))):
                r = rng.uniform(0.4, 2.2) * S0 / 40
                p = (int(rng.uniform(0, size)), int(rng.uniform(0, size)))
                cv2.circle(ink, p, max(1, int(round(r))), float(rng.uniform(0.2, 0.9)), -1, cv2.LINE_AA)
        canvas *= 1.0 - contrast * np.clip(ink, 0, 1)
        for vertical in (False, True):
            for edge in (PAD, PAD + S0):
                thick = box_thick if rng.random() < 0.3 else line_thick
                _line(canvas, rng, vertical=vertical, pos=edge + rng.normal(0, 1.0), thick=thick,
                      dark=line_dark, partial=rng.random() < 0.1)
        if rng.random() < 0.4:  # slight perspective
            src = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
            dst = src + rng.uniform(-0.04, 0.04, (4, 2)).astype(np.float32) * size
            canvas = cv2.warpPerspective(canvas, cv2.getPerspectiveTransform(src, dst), (size, size),
                                         borderMode=cv2.BORDER_REPLICATE)
        if blur > 0.3:
            canvas = cv2.GaussianBlur(canvas, (0, 0), blur)
        # Resample to the grid's resolution, then cut the cell with a jittered margin.
        scale = side / S0
        big = max(8, int(round(size * scale)))
        small = cv2.resize(canvas, (big, big), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        small += rng.normal(0, noise, small.shape).astype(np.float32)
        small = np.clip(small, 0, 255).astype(np.uint8)
        if jpeg:
            ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
            small = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
        lo = PAD * scale + margin * side
        hi = (PAD + S0) * scale - margin * side
        j = rng.normal(0, misalign, 4) * side
        y0, x0 = int(round(lo + j[0])), int(round(lo + j[1]))
        y1, x1 = int(round(hi + j[2])), int(round(hi + j[3]))
        y0, x0 = max(0, y0), max(0, x0)
        y1, x1 = min(big, max(y1, y0 + 6)), min(big, max(x1, x0 + 6))
        cells.append((small[y0:y1, x0:x1].copy(), label))
    return cells
