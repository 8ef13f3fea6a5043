"""Inequality signs between neighbouring cells (Futoshiki): none, or which way the tip points.

Works on a *pitch picture*: the grid dewarped so that cell ``(row, col)`` owns the square
``[row*P, (row+1)*P) x [col*P, (col+1)*P)`` (P = ``pitch``), its printed box being the central ``box``
share of it (1 for a ruled lattice, less when the boxes stand apart with the signs in the gaps).

For each pair the window around the shared border is cut out and turned so that the pair runs along
``t`` (left to right; for a vertical pair, top to bottom) with ``s`` across. Ruled lines crossing the window
(the lattice border, the box edges) are erased as columns that are ink across most of the window; what
remains near the centre is the sign. Its ink amount says sign or none; its shape says the direction: a
chevron's tip is narrow across ``s`` and its open end wide, so the ink's spread across ``s`` at the low-``t``
end versus the high-``t`` end tells where the tip is, whatever the style (font glyph, drawn chevron, V or
caret), weight or size.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from . import cells as cells_stage

#: Logistic calibration of the two decisions (set on generated photos of seeds 10000..10059, never on the
#: reported set): a sign when the ink share of the window centre exceeds INK_MID (slope INK_SCALE); the tip at
#: the low-t end with p = sigmoid(SHAPE_GAIN * log(spread at high t / spread at low t)).
INK_MID = 0.003
INK_SCALE = 0.0005
SHAPE_GAIN = 10.0
LINE_COVER = 0.4  #: a column of the window this much ink is a ruled line
P_FLOOR = 1e-4  #: no decision is ever certain: runner-ups stay available to the rules


@dataclass
class SignShape:
    """Measured ink of one pair's window: ``ink`` share of the window's pixels (in pitch**2 units),
    ``shape`` log(spread across at the high-t end / at the low-t end) (> 0: tip at low t)."""

    ink: float
    shape: float


def pairs(n: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Every pair of orthogonal neighbours ``(a, b)`` of an n x n grid, ``a`` the upper/left cell."""
    out = []
    for r in range(n):
        for c in range(n):
            if c + 1 < n:
                out.append(((r, c), (r, c + 1)))
            if r + 1 < n:
                out.append(((r, c), (r + 1, c)))
    return out


def window(ink: np.ndarray, a, b, *, pitch: int, box: float) -> np.ndarray:
    """The (S, T) bool window of ``ink`` (n*P, n*P) around the border of pair ``(a, b)``, turned so the pair
    runs along the second axis (t) from ``a`` to ``b``."""
    (r1, c1), (r2, c2) = a, b
    half_s = int(round(0.38 * pitch))
    half_t = int(round((0.3 if box >= 0.95 else (1.0 - box) / 2 + 0.04) * pitch))
    if r1 == r2:  # horizontal pair: t along x
        cy, cx = int(round((r1 + 0.5) * pitch)), int(round(c2 * pitch))
        return ink[cy - half_s:cy + half_s + 1, cx - half_t:cx + half_t + 1]
    cy, cx = int(round(r2 * pitch)), int(round((c1 + 0.5) * pitch))
    return ink[cy - half_t:cy + half_t + 1, cx - half_s:cx + half_s + 1].T


def measure(win: np.ndarray, *, pitch: int, lattice: bool) -> SignShape:
    """The sign's ink and shape in a window (S, T) bool from ``window``."""
    w = win.copy()
    s_len, t_len = w.shape
    lines = w.mean(axis=0) >= LINE_COVER  # ruled lines across the window: the lattice border, box edges
    if lines.any():
        reach = 2 * max(1, round(0.02 * pitch)) + 1
        lines = cv2.dilate(lines.astype(np.uint8)[None, :], np.ones((1, reach), np.uint8))[0].astype(bool)
        w[:, lines] = False
    count, labels, stats, cents = cv2.connectedComponentsWithStats(w.astype(np.uint8), connectivity=8)
    keep = np.zeros(count, bool)
    min_area = max(2, 0.0008 * pitch * pitch)
    for i in range(1, count):
        x, y, cw, ch, area = stats[i]
        if area < min_area:
            continue
        if y == 0 or y + ch == s_len:
            continue  # reaches across the window: a line remnant or a neighbouring sign
        if cw < 0.06 * pitch and ch > 3 * cw:
            continue  # a sliver of a ruled line
        if lattice and (x == 0 or x + cw == t_len):
            continue  # a digit's edge
        if abs(cents[i][0] - (t_len - 1) / 2) > 0.2 * pitch or abs(cents[i][1] - (s_len - 1) / 2) > 0.2 * pitch:
            continue
        keep[i] = True
    mask = keep[labels]
    amount = float(mask.sum()) / (pitch * pitch)
    ys, xs = np.nonzero(mask)
    if len(xs) < 4:
        return SignShape(amount, 0.0)
    t0, t1 = xs.min(), xs.max()
    third = max(1.0, (t1 - t0) / 3.0)
    low = ys[xs <= t0 + third]
    high = ys[xs >= t1 - third]
    eps = 0.02 * pitch

    def spread(v):
        return float(v.max() - v.min()) if len(v) else 0.0

    return SignShape(amount, math.log((spread(high) + eps) / (spread(low) + eps)))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))


def options(shape: SignShape) -> list[tuple[str | None, float]]:
    """``[(tip, p), ...]`` best first: tip "low" (towards the upper/left cell, i.e. that cell is smaller),
    "high", or None (no sign)."""
    p_sign = _sigmoid((shape.ink - INK_MID) / INK_SCALE)
    p_low = _sigmoid(SHAPE_GAIN * shape.shape)
    raw = {None: 1.0 - p_sign, "low": p_sign * p_low, "high": p_sign * (1.0 - p_low)}
    floored = {k: max(v, P_FLOOR) for k, v in raw.items()}
    total = sum(floored.values())
    return sorted(((k, v / total) for k, v in floored.items()), key=lambda kv: -kv[1])


def read_signs(picture: np.ndarray, n: int, *, pitch: int, box: float) -> dict:
    """Per pair ``(a, b)`` of ``pairs(n)``: ``(SignShape, options)`` read from the pitch picture (n*P, n*P) gray."""
    norm = cells_stage.normalise(picture, cell=pitch)
    ink = norm < cells_stage.ink_level(norm)
    lattice = box >= 0.95
    out = {}
    for a, b in pairs(n):
        shape = measure(window(ink, a, b, pitch=pitch, box=box), pitch=pitch, lattice=lattice)
        out[(a, b)] = (shape, options(shape))
    return out
