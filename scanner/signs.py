"""Inequality signs between neighbouring cells (Futoshiki): none, or which way the tip points.

Works on a *pitch picture*: the grid dewarped so that cell ``(row, col)`` owns the square
``[row*P, (row+1)*P) x [col*P, (col+1)*P)`` (P = ``pitch``), its printed box being the central ``box``
share of it (1 for a ruled lattice, less when the boxes stand apart with the signs in the gaps).

For each pair the window around the shared border is cut out and turned so that the pair runs along
``t`` (left to right; for a vertical pair, top to bottom) with ``s`` across. Ruled lines crossing the window
(the lattice border, the box edges) are erased as columns that are ink across most of the window; what
remains near the centre is the sign. Its ink amount says sign or none; its shape says the direction: a
chevron's tip is narrow across ``s`` and its open end wide, so the ink's spread across ``s`` grows from
the tip to the open end (a darkness-weighted moment, so faint or broken strokes still count), whatever the
style (font glyph, drawn chevron, V or caret), weight or size.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from . import cells as cells_stage

#: Logistic calibration of the two decisions (set on generated photos of seeds 10000..10199, never on the
#: reported set): a sign when the ink share of the window centre exceeds INK_MID (slope INK_SCALE); the tip at
#: the low-t end with p = sigmoid(SHAPE_GAIN * shape moment) (true signs' moments: median ~0.5, 1st
#: percentile ~0.3, none of the wrong sign among ~8400 pairs).
INK_MID = 0.0045
INK_SCALE = 0.0006
SHAPE_GAIN = 12.0
CORE_AREA = 0.002  #: the least ink (share of pitch**2) of a component that makes a sign (pieces join it)
CORE_NEAR = 0.2  #: ... whose centre lies within this share of a cell of the window's centre
LINE_COVER = 0.4  #: a column of the window this much ink is a ruled line (when near where the mesh puts one)
LINE_NEAR = 0.1  #: ... within this share of a cell
FAINT = 0.8  #: boxes layout: ink is what is darker than this share of the way from the paper to the ink level
BLUR = 0.015  #: the boxes layout's pitch picture is smoothed (Gaussian sigma, share of a cell) before the ink is taken
P_FLOOR = 1e-4  #: no decision is ever certain: runner-ups stay available to the rules


@dataclass
class SignShape:
    """Measured ink of one pair's window: ``ink`` share of the window's pixels (in pitch**2 units),
    ``shape`` the moment of ``measure`` in [-1, 1] (> 0: tip at low t)."""

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
    """The (S, T) window of ``ink`` (n*P, n*P) around the border of pair ``(a, b)``, turned so the pair
    runs along the second axis (t) from ``a`` to ``b``."""
    (r1, c1), (r2, c2) = a, b
    half_s = int(round(0.38 * pitch))
    half_t = int(round((0.3 if box >= 0.95 else (1.0 - box) / 2 + 0.04) * pitch))
    if r1 == r2:  # horizontal pair: t along x
        cy, cx = int(round((r1 + 0.5) * pitch)), int(round(c2 * pitch))
        return ink[cy - half_s:cy + half_s + 1, cx - half_t:cx + half_t + 1]
    cy, cx = int(round(r2 * pitch)), int(round((c1 + 0.5) * pitch))
    return ink[cy - half_t:cy + half_t + 1, cx - half_s:cx + half_s + 1].T


@functools.lru_cache(maxsize=16)
def _line_columns(t_len: int, pitch: int, box: float) -> np.ndarray:
    """(T,) bool: the columns of a window ``t_len`` long where the mesh puts a ruled line (``_sign_mask``).
    Shared: never change it."""
    centre = (t_len - 1) / 2.0
    t = np.arange(t_len)
    where = [centre] if box >= 0.95 else [centre - (1.0 - box) / 2 * pitch, centre + (1.0 - box) / 2 * pitch]
    return np.min([np.abs(t - e) for e in where], axis=0) <= LINE_NEAR * pitch


def _sign_mask(win: np.ndarray, *, pitch: int, box: float) -> np.ndarray:
    """(S, T) bool: the ink of the sign in a window (S, T) bool from ``window``, ruled lines and digits left out.

    Components near the window's centre make the sign; pieces of it cut off by erasing a line it touches
    (a knocked-out lattice line, a box edge) are added back when they lie next to it."""
    w = win.copy()
    s_len, t_len = w.shape
    lattice = box >= 0.95
    # ruled lines across the window (the lattice border, box edges) where the mesh puts them; elsewhere a
    # digit's stroke may cover as much of a column
    lines = (w.mean(axis=0) >= LINE_COVER) & _line_columns(t_len, pitch, box)
    if lines.any():
        reach = 2 * max(1, round(0.02 * pitch)) + 1
        lines = cv2.dilate(lines.astype(np.uint8)[None, :], np.ones((1, reach), np.uint8))[0].astype(bool)
        w[:, lines] = False
    if not w.any():
        return w  # nothing but the lines: no sign
    count, labels, stats, cents = cv2.connectedComponentsWithStats(w.astype(np.uint8), connectivity=8)
    core = np.zeros(count, bool)
    usable = np.zeros(count, bool)
    min_area = max(2, CORE_AREA * pitch * pitch)
    listed, centres = stats.tolist(), cents.tolist()  # (plain numbers: the same values, faster one at a time)
    for i in range(1, count):
        x, y, cw, ch, area = listed[i]
        if y == 0 or y + ch == s_len:
            continue  # reaches across the window: a line remnant or a neighbouring sign
        if cw < 0.06 * pitch and ch > 3 * cw:
            continue  # a sliver of a ruled line
        if lattice and (x == 0 or x + cw == t_len):
            continue  # a digit's edge
        usable[i] = True
        if area < min_area:
            continue
        if (abs(centres[i][0] - (t_len - 1) / 2) > CORE_NEAR * pitch
                or abs(centres[i][1] - (s_len - 1) / 2) > CORE_NEAR * pitch):
            continue
        core[i] = True
    if core.any() and (usable & ~core).any():
        near = max(2, int(round(0.05 * pitch)))
        grown = cv2.dilate(core[labels].astype(np.uint8), np.ones((2 * near + 1, 2 * near + 1), np.uint8)) > 0
        touched = np.unique(labels[grown])
        add = np.zeros(count, bool)
        add[touched] = True
        core |= add & usable
    return core[labels]


def measure(win: np.ndarray, *, pitch: int, box: float, dark: np.ndarray | None = None) -> SignShape:
    """The sign's ink and shape in a window (S, T) bool from ``window``; ``dark`` (S, T) float the same window's
    darkness (0 paper .. 1 black) weighs the shape (faint, broken strokes still count), else the mask does.

    The shape is the ink's moment sum(w (t - tc) |s - sc|) / sum(w |t - tc| |s - sc|) in [-1, 1]: a chevron
    spreads across s towards its open end, so it is > 0 when the tip is at low t (about 2/3 for clean strokes)
    whatever the style, weight or size."""
    mask = _sign_mask(win, pitch=pitch, box=box)
    amount = float(mask.sum()) / (pitch * pitch)
    if mask.sum() < 4:
        return SignShape(amount, 0.0)
    if dark is not None:
        region = cv2.dilate(mask.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        weight = np.where(region, dark, 0.0)
    else:
        weight = mask.astype(np.float64)
    ys, xs = np.nonzero(weight > 0)
    w = weight[ys, xs].astype(np.float64)
    tc, sc = float((w * xs).sum() / w.sum()), float((w * ys).sum() / w.sum())
    dt, ds = xs - tc, np.abs(ys - sc)
    norm = float((w * np.abs(dt) * ds).sum())
    return SignShape(amount, float((w * dt * ds).sum()) / norm if norm > 0 else 0.0)


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


def bare(wins: list, *, pitch: int, box: float) -> list[bool]:
    """Per window (S, T) bool of ``window``: whether ``_sign_mask`` plainly finds no sign in it (``measure``
    then gives ``SignShape(0.0, 0.0)``), told for all the windows at once without cutting any into components:
    once the ruled lines are erased as there (the columns inked over ``LINE_COVER`` where the mesh puts a line,
    widened alike), no ink is left in the columns, or in the rows, within ``CORE_NEAR`` of a cell (and a
    pixel) of the window's centre. No piece of ink can then reach across that band: each lies wholly to one
    side of it, its centre too, so none is a sign's core (centred within ``CORE_NEAR``), and a window without
    a core keeps no ink (the digits' edges beside most borders of a Sudoku, say). False for every window when
    they are not all of one shape."""
    if not wins or any(w.shape != wins[0].shape for w in wins):
        return [False] * len(wins)
    stack = np.stack(wins)  # (pairs, S, T)
    lines = (stack.mean(axis=1) >= LINE_COVER) & _line_columns(stack.shape[2], pitch, box)[None, :]
    wide = lines.copy()
    for d in range(1, max(1, round(0.02 * pitch)) + 1):  # the reach (2 d + 1 columns) _sign_mask widens a line by
        wide[:, d:] |= lines[:, :-d]
        wide[:, :-d] |= lines[:, d:]
    rest = stack & ~wide[:, None, :]
    s_len, t_len = stack.shape[1:]
    reach = CORE_NEAR * pitch + 1.0
    cols = np.abs(np.arange(t_len) - (t_len - 1) / 2) <= reach
    rows = np.abs(np.arange(s_len) - (s_len - 1) / 2) <= reach
    return (~(rest[:, :, cols].any(axis=(1, 2)) & rest[:, rows, :].any(axis=(1, 2)))).tolist()


def read_signs(picture: np.ndarray, n: int, *, pitch: int, box: float) -> dict:
    """Per pair ``(a, b)`` of ``pairs(n)``: ``(SignShape, options)`` read from the pitch picture (n*P, n*P) gray.
    A pair whose window holds ink only on the ruled lines (``bare``: most pairs of a grid without signs) is
    not measured: ``measure`` would find nothing, ``SignShape(0.0, 0.0)``."""
    lattice = box >= 0.95
    if not lattice:  # photo noise in a shadow would read as ink (in a lattice it would join signs to digits)
        picture = cv2.GaussianBlur(picture, (0, 0), BLUR * pitch)
    norm = cells_stage.normalise(picture, cell=pitch)
    level = cells_stage.ink_level(norm)
    ink = norm < (level if lattice else FAINT * level + (1.0 - FAINT))
    dark = None  # 1 at the ink level and darker (for the windows measured)
    every = pairs(n)
    wins = [window(ink, a, b, pitch=pitch, box=box) for a, b in every]
    nothing = options(SignShape(0.0, 0.0))
    out = {}
    for (a, b), win, empty in zip(every, wins, bare(wins, pitch=pitch, box=box)):
        if empty:
            out[(a, b)] = (SignShape(0.0, 0.0), list(nothing))
            continue
        if dark is None:
            dark = np.clip((1.0 - norm) / max(1.0 - level, 1e-3), 0.0, 1.0)
        shape = measure(win, pitch=pitch, box=box, dark=window(dark, a, b, pitch=pitch, box=box))
        out[(a, b)] = (shape, options(shape))
    return out
