"""Stage 2, find the grid: quadrilaterals on the page, confirmed by the ruled lines inside them.

Points are ``(x, y)`` image coordinates (OpenCV's order and the JSON ``quad``
order); quads are (4, 2) float32 arrays, top-left first, clockwise. Everything
else (profiles, cells) is ``(row, col)``.

A candidate is kept only when, once rectified, it shows ``n + 1`` evenly
spaced ruled lines in both directions for some supported ``n`` -- so a title
box, a text column or a 3x3 box of a larger grid is not taken for the puzzle.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

from . import lattice_grow
from .strokes import RUNS_ON, ink_mask, mean_along, run_on, thin_strokes  # (ink_mask: also taken from here)

SIZES = tuple(range(4, 21))  #: grid sizes any kind may have (Sudoku 4/6/9/16, Futoshiki 4..9, Takuzu 4..20)
CHECK_SIDE = 480  #: side of the square a candidate is rectified to for the line check
CHECK_MARGIN = 0.03  #: share of the side left around the quad in the check square (so border lines show whole)
MIN_AREA_FRACTION = 0.02  #: candidates smaller than this share of the image are ignored ...
#: ... but outlines down to this share, confirmed clearly (``SEARCH_SCORE``, lines straight): a small second
#: puzzle beside a large one (a 4 x 4 beside a 20 x 20 the photo frames, 0.7 % of the picture)
MIN_SMALL_FRACTION = 0.005
SMALL_OUTLINES = 3  #: outlines below MIN_AREA_FRACTION looked at per source (the largest)
LINE_OFFSET = 3.0  #: ink threshold offset for finding long strokes: faint thin lines count (specks go by length)
INNER_SHARE = 0.3  #: a quad inside a confirmed grid is checked too when it has this share of its area
LINE_LEVEL = 0.55  #: share of a row (column) that must be ink for it to count as a ruled line
WEAK_LEVEL = 0.45  #: the same when no size fits at LINE_LEVEL
ALTERNATE = 0.25  #: profile share by which every other line may be fainter before n is taken for 2n


@dataclass
class Candidate:
    """A grid candidate: ``quad`` (4, 2) float32 (x, y) in the image searched, its ``size`` n (cells a side),
    a ``score`` in 0..1 (how clearly the n + 1 lines show), and ``area`` in pixels."""

    quad: np.ndarray
    size: int
    score: float
    area: float
    lines: tuple = field(default=(), repr=False)  #: (row profile, col profile) of the rectified check image
    #: its lines showed evenly spaced in one direction only, and bent in the other (``_bent_count``)
    bent: bool = False


def gray_of(image: np.ndarray) -> np.ndarray:
    """(H, W) uint8 grayscale of a (H, W, 3) BGR or (H, W) image."""
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def order_corners(points: np.ndarray) -> np.ndarray:
    """The 4 points (4, 2) (x, y) ordered top-left, top-right, bottom-right, bottom-left (clockwise on screen)."""
    # (the reductions called as ufuncs and the roll as two slices: called for every outline looked at, where the
    # wrappers cost more than the work; the same float32 values -- the mean is the sum divided by 4, exact)
    pts = np.asarray(points, dtype=np.float32).reshape(4, 2)
    rel = pts - np.add.reduce(pts, axis=0) / np.float32(4.0)  # about the centre (``pts.mean(axis=0)``)
    order = np.argsort(np.arctan2(rel[:, 1], rel[:, 0])).tolist()  # clockwise on screen (y down), starting anywhere
    ordered = pts[order]
    start = int(np.argmin(ordered[:, 0] + ordered[:, 1]))  # top-left: smallest x + y
    return pts[order[start:] + order[:start]] if start else ordered  # (``np.roll(ordered, -start, axis=0)``)


HULL_TOLERANCES = (0.01, 0.02, 0.03, 0.045, 0.06)  #: shares of the hull's perimeter an outline is simplified by


def _quad_from_contour(contour: np.ndarray) -> np.ndarray | None:
    """The 4-corner approximation (4, 2) of a contour's convex hull, or None when it is not quad-like."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in HULL_TOLERANCES:
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            break
    else:
        return None
    quad = order_corners(approx.reshape(4, 2))
    hull_area = cv2.contourArea(hull)
    quad_area = cv2.contourArea(quad)
    if quad_area <= 0 or hull_area / quad_area < 0.9 or hull_area / quad_area > 1.1:
        return None
    return quad


#: largest share of an outline's area the corner completed by ``_cut_corner_quad`` may add: glare or a shadow on a
#: curled page's corner fades a thin border there, and the ink's outline cuts across the corner (retired held-out
#: 921607: a 16 x 16's top-right corner cut 3 % of its area off, a cell and a half along the top)
CUT_CORNER = 0.1


def _cut_corner_quad(contour: np.ndarray) -> np.ndarray | None:
    """The quad (4, 2) (x, y) of an outline whose convex hull is a pentagon, its shortest side a corner cut off:
    the two sides beside the cut, extended, meet at the lost corner. None when the hull is no such pentagon or
    the corner adds more than ``CUT_CORNER`` of its area."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in HULL_TOLERANCES:
        approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2).astype(np.float64)
        if len(approx) <= 5:
            break
    if len(approx) != 5:
        return None
    sides = np.linalg.norm(np.roll(approx, -1, axis=0) - approx, axis=1)  # side i: vertex i to i + 1
    i = int(np.argmin(sides))
    a, b = approx[i], approx[(i + 1) % 5]
    before, after = approx[(i - 1) % 5], approx[(i + 2) % 5]
    corner = _line_intersection(np.r_[a - before, before], np.r_[b - after, after])
    if corner is None:
        return None
    (ux, uy), (vx, vy) = b - a, corner - a
    gained = 0.5 * abs(float(ux * vy - uy * vx))
    hull_area = float(cv2.contourArea(hull))
    ahead = float(np.dot(corner - a, a - before)) > 0 and float(np.dot(corner - b, b - after)) > 0
    if not ahead or gained > CUT_CORNER * hull_area:
        return None
    pts = [corner if j == i else approx[j] for j in range(5) if j != (i + 1) % 5]
    return order_corners(np.array(pts, dtype=np.float32))


def _line_intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """Intersection (x, y) of two lines given as (vx, vy, x0, y0), or None when (nearly) parallel."""
    (vx1, vy1, x1, y1), (vx2, vy2, x2, y2) = a, b
    det = vx1 * (-vy2) - vy1 * (-vx2)
    if abs(det) < 1e-6:
        return None
    t = ((x2 - x1) * (-vy2) - (y2 - y1) * (-vx2)) / det
    return np.array([x1 + t * vx1, y1 + t * vy1], dtype=np.float32)


def refine_quad(quad: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``quad`` (4, 2) with its corners moved to the intersections of lines fitted to the outline ``points`` (P, 2)
    along each side (the middle 80 % of each side, robust fit): corners rounded, broken or touched by a digit
    no longer pull the quad. The input quad is returned when a side has too few points."""
    pts = points.reshape(-1, 2).astype(np.float32)
    lines = []
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        d = q - p
        length = float(np.linalg.norm(d))
        if length < 1:
            return quad
        u = d / length
        rel = pts - p
        along = rel @ u
        across = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        near = (along > 0.1 * length) & (along < 0.9 * length) & (across < max(3.0, 0.03 * length))
        if near.sum() < 10:
            return quad
        lines.append(cv2.fitLine(pts[near], cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(4))
    corners = [_line_intersection(lines[i - 1], lines[i]) for i in range(4)]
    if any(c is None for c in corners):
        return quad
    refined = np.array(corners, dtype=np.float32)
    if np.abs(refined - quad).max() > 0.1 * np.linalg.norm(quad[0] - quad[2]):
        return quad
    return refined


def _sides_ok(quad: np.ndarray) -> bool:
    """A plausible photographed square: opposite sides comparable, no side tiny."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    if sides.min() < 0.25 * sides.max():
        return False
    return bool(cv2.isContourConvex(quad.reshape(-1, 1, 2).astype(np.float32)))


def square_corners(side: int, *, margin: float = 0.0) -> np.ndarray:
    """(4, 2) (x, y) corners of a ``side`` square inset by ``margin`` pixels, top-left first, clockwise."""
    a, b = margin, side - 1 - margin
    return np.array([[a, a], [b, a], [b, b], [a, b]], dtype=np.float32)


def rectify_square(gray: np.ndarray, quad: np.ndarray, *, side: int, margin: float = 0.0) -> np.ndarray:
    """(side, side) view of ``gray`` (H, W) where ``quad`` (4, 2) (x, y) maps to the square inset by ``margin``."""
    h = cv2.getPerspectiveTransform(quad.astype(np.float32), square_corners(side, margin=margin))
    return cv2.warpPerspective(gray, h, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def line_profiles(mask: np.ndarray, *, reach: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Share of ink along each row and each column of a rectified ink ``mask`` (S, S).

    A pixel counts when there is ink within ``reach`` pixels across the line, so a
    ruled line tilted or bent by a few pixels still fills its row. Returns
    ``(rows, cols)``, each (S,) float in 0..1.
    """
    side = mask.shape[0]
    reach = reach or max(2, side // 120)
    k = 2 * reach + 1
    across_rows = cv2.dilate(mask, np.ones((k, 1), np.uint8))
    across_cols = cv2.dilate(mask, np.ones((1, k), np.uint8))
    rows = mean_along(across_rows, 1) / 255.0
    cols = mean_along(across_cols, 0) / 255.0
    return rows, cols


def _peaks_near(profiles: np.ndarray, pos: np.ndarray, tol) -> np.ndarray:
    """(P, L): the highest value of each profile (P, S) within ``tol`` (a number or (L,)) of each position
    ``pos`` (L,) (0 where the window lies outside the profile; never below 0 where the window is narrower than
    the widest one: the widest's padding held zeros).

    Each window's maximum is the larger of two overlapping power-of-two spans' maxima (a sparse table:
    level j holds the maximum of the 2**j values from each start)."""
    size = profiles.shape[1]
    lo = np.maximum(0, np.round(pos - tol).astype(int))
    hi = np.minimum(size, np.round(pos + tol).astype(int) + 1)
    length = hi - lo
    width = max(1, int(length.max(initial=1)))
    table = [profiles]
    while 2 ** len(table) <= width:
        prev, half = table[-1], 2 ** (len(table) - 1)
        table.append(np.maximum(prev[:, :prev.shape[1] - half], prev[:, half:]))  # (P, size - 2 * half + 1)
    levels = np.full((len(table), *profiles.shape), -np.inf)
    for j, level in enumerate(table):
        levels[j, :, :level.shape[1]] = level
    filled = length > 0
    j = np.frexp(np.where(filled, length, 1))[1] - 1  # floor(log2(length)): length = m * 2**e, 0.5 <= m < 1
    first = levels[j, :, np.minimum(lo, size - 1)]  # (L, P)
    last = levels[j, :, np.clip(hi - 2 ** j, 0, size - 1)]
    peak = np.maximum(first, last).T
    peak = np.where((length < width)[None, :], np.maximum(peak, 0.0), peak)
    return np.where(filled[None, :], peak, 0.0)


@dataclass(frozen=True)
class _Layout:
    """Where ``count_cells`` looks for each size's lines and midpoints in a span (shared: never change it)."""

    peak_pos: np.ndarray  #: (sum(n + 1),) every size's expected lines, size after size
    peak_tol: np.ndarray  #: ... and how far off each may lie
    mid_pos: np.ndarray  #: (sum(n),) the points midway between them
    mid_tol: np.ndarray
    at_peak: np.ndarray  #: (K + 1,) where each size's lines start in ``peak_pos`` (then the end)
    at_mid: np.ndarray  #: (K + 1,) ... its midpoints in ``mid_pos``
    n_of: np.ndarray  #: (K,) the sizes
    inner_at: np.ndarray  #: (K, M) each size's inner lines in ``peak_pos``, padded to the widest (M = max n - 1)
    inner_real: np.ndarray  #: (K, 2, M) bool: not padding (for both profiles)
    mid_at: np.ndarray  #: (K, N) each size's midpoints in ``mid_pos``, padded (N = max n)
    mid_real: np.ndarray  #: (K, 2, N) bool


@functools.lru_cache(maxsize=32)
def _layout(start: float, stop: float, sizes: tuple) -> _Layout:
    """The ``_Layout`` of ``sizes`` over the span ``start`` .. ``stop`` (a page's checks share one span)."""
    steps = [(stop - start) / n for n in sizes]
    at_peak = np.cumsum([0] + [n + 1 for n in sizes])
    at_mid = np.cumsum([0] + list(sizes))
    n_of = np.array(sizes, dtype=int)
    widest = int(n_of.max(initial=1))
    inner_at = at_peak[:-1, None] + 1 + np.arange(max(widest - 1, 1))[None, :]
    inner_real = np.arange(inner_at.shape[1])[None, :] < (n_of - 1)[:, None]
    mid_at = at_mid[:-1, None] + np.arange(widest)[None, :]
    mid_real = np.arange(widest)[None, :] < n_of[:, None]
    return _Layout(
        peak_pos=np.concatenate([[]] + [start + st * np.arange(n + 1) for n, st in zip(sizes, steps)]),
        peak_tol=np.concatenate([[]] + [np.full(n + 1, max(2.0, 0.22 * st)) for n, st in zip(sizes, steps)]),
        mid_pos=np.concatenate([[]] + [start + st * (np.arange(n) + 0.5) for n, st in zip(sizes, steps)]),
        mid_tol=np.concatenate([[]] + [np.full(n, 0.15 * st) for n, st in zip(sizes, steps)]),
        at_peak=at_peak, at_mid=at_mid, n_of=n_of,
        inner_at=np.minimum(inner_at, max(int(at_peak[-1]) - 1, 0)),
        inner_real=np.repeat(inner_real[:, None, :], 2, axis=1),
        mid_at=np.minimum(mid_at, max(int(at_mid[-1]) - 1, 0)),
        mid_real=np.repeat(mid_real[:, None, :], 2, axis=1))


def count_cells(rows: np.ndarray, cols: np.ndarray, *, span: tuple[float, float] | None = None,
                sizes=SIZES, level: float = LINE_LEVEL) -> tuple[int, float]:
    """The grid size n whose n + 1 evenly spaced lines show in both profiles (S,), and its score in 0..1.

    The lines are expected at ``span[0] + i * (span[1] - span[0]) / n`` (default: the whole profile).
    The largest n with (almost) every line present wins, so a 9x9 grid is not
    taken for 3x3 -- unless every other of its lines is much fainter than the rest
    (``ALTERNATE``) and n / 2 fits too. Returns ``(0, 0.0)`` when no size fits.
    """
    start, stop = span or (0.0, len(rows) - 1.0)
    return _count(_line_peaks(np.stack([rows, cols]), float(start), float(stop), tuple(sizes)), level=level)


@dataclass(frozen=True)
class _Peaks:
    """Every size's expected lines and midpoints looked up in two profiles (``_line_peaks``): what
    ``count_cells`` tests at any ``level``."""

    at: _Layout
    lines: np.ndarray  #: (2, sum(n + 1)) the highest profile value near each size's expected lines
    mids: np.ndarray  #: (2, sum(n)) ... near the points midway between them

    def pair(self, i: int) -> "_Peaks":
        """The peaks of profile ``i`` taken as both profiles (a count in one direction only), laid out in memory
        as ``_peaks_near`` lays them (column-major: numpy's sums, so the scores, follow the layout)."""
        return _Peaks(self.at, np.asfortranarray(self.lines[[i, i]]), np.asfortranarray(self.mids[[i, i]]))


def _line_peaks(profiles: np.ndarray, start: float, stop: float, sizes: tuple) -> _Peaks:
    """``_Peaks`` of the two ``profiles`` (2, S) (rows, cols) over the span ``start`` .. ``stop``."""
    both = profiles.astype(np.float64)
    at = _layout(start, stop, sizes)
    return _Peaks(at, _peaks_near(both, at.peak_pos, at.peak_tol), _peaks_near(both, at.mid_pos, at.mid_tol))


def _count(peaks: _Peaks, *, level: float) -> tuple[int, float]:
    """``count_cells`` from the profiles' ``_Peaks`` (each profile's values are looked up once for every level
    and for each profile alone: a window's maximum does not depend on the other profile)."""
    at, all_peaks, all_mids = peaks.at, peaks.lines, peaks.mids
    sizes = at.n_of.tolist()
    at_peak, at_mid, n_of = at.at_peak, at.at_mid, at.n_of
    # the tests of every size at once, on its lines padded to the largest size's: (K, 2, M) ...
    inner = all_peaks[:, at.inner_at].transpose(1, 0, 2)  # (K, 2, M)
    present = ((inner >= level) & at.inner_real).sum(axis=(1, 2)) / (2 * (n_of - 1))
    # midway between expected lines there must be no line (else n is a divisor of the true size); a midway
    # peak is a line only when it is nearly as strong as the real lines: digits stacked in a column (givens in
    # every row) fill much of it, yet less than a ruled line does (the median of the inner lines, ``strong``)
    ranked = np.sort(np.where(at.inner_real, inner, np.inf).reshape(len(sizes), -1), axis=1)
    half = n_of - 1  # the two middle ones of the 2 (n - 1) inner line values
    rows_k = np.arange(len(sizes))
    median = (ranked[rows_k, half - 1] + ranked[rows_k, half]) / 2
    strong = np.maximum(level, 0.8 * median)
    mids = all_mids[:, at.mid_at].transpose(1, 0, 2)  # (K, 2, N)
    spurious = ((mids >= strong[:, None, None]) & at.mid_real).sum(axis=(1, 2))  # one stray (a bold digit,
    # show-through) is borne even at n = 4
    ends = np.minimum(all_peaks[:, at_peak[:-1]], all_peaks[:, at_peak[1:] - 1]).min(axis=0)
    ok = (present >= 0.85) & (spurious <= np.maximum(1.0, 0.2 * n_of)) & (ends >= level * 0.8)
    fits = {}
    for k in np.flatnonzero(ok):
        n = sizes[k]
        found = all_peaks[:, at_peak[k]:at_peak[k + 1]]
        fits[n] = (float(found[:, 1:-1].mean() - all_mids[:, at_mid[k]:at_mid[k + 1]].mean()), found)
    if not fits:
        return 0, 0.0
    n = max(fits)
    # every other line much fainter than the rest: digits or a halftone midway in the cells of n / 2
    while n % 2 == 0 and n // 2 in fits and fits[n][1][:, 0::2].mean() - fits[n][1][:, 1::2].mean() > ALTERNATE:
        n //= 2
    return n, fits[n][0]


def check(gray: np.ndarray, quad: np.ndarray, *, sizes=SIZES) -> tuple[int, float, tuple]:
    """Rectify ``quad`` of ``gray`` and count its ruled lines: ``(n, score, (rows, cols))``; n = 0 when it is no grid."""
    return _check(gray, quad, sizes=sizes)[:3]


def _check(gray: np.ndarray, quad: np.ndarray, *, sizes=SIZES, bent_too: bool = True,
           squares: dict | None = None) -> tuple[int, float, tuple, bool]:
    """``check``, and whether the lines were found only bent (``_bent_count``): ``(n, score, (rows, cols), bent)``.
    ``bent_too=False``: lines found only bent are not looked for (the caller takes straight ones only; n = 0,
    bent True when none show). ``squares``: where the check square and its ink mask are left when n = 0, keyed
    by ``id(quad)`` (``centred_outline`` looks at the same square)."""
    margin = CHECK_MARGIN * CHECK_SIDE
    square = rectify_square(gray, quad, side=CHECK_SIDE, margin=margin)
    mask = ink_mask(square, block=(CHECK_SIDE // 16) | 1, offset=6)
    rows, cols = line_profiles(mask)
    span = (margin, CHECK_SIDE - 1 - margin)
    peaks = _line_peaks(np.stack([rows, cols]), span[0], span[1], tuple(sizes))
    n, score = _count(peaks, level=LINE_LEVEL)
    if n == 0:  # thin lines blurred or shrunk to faint ones in the detection copy (a 16x16 grid's)
        n, score = _count(peaks, level=WEAK_LEVEL)
    bent = n == 0
    if bent and bent_too:  # curled paper: one family of lines bends off the even positions (the other straight)
        n, score = _bent_count(mask, rows, cols, span=span, sizes=sizes, peaks=peaks)
    if n == 0 and bent_too:  # glare or a shadow washed the thin lines out over part of the grid: each line is
        n, score = _count(_strip_peaks(mask, span, tuple(sizes)), level=LINE_LEVEL)  # looked for strip by strip
        if score < SEARCH_SCORE:
            n, score = 0, 0.0
        bent = n == 0
    if n == 0 and squares is not None:
        squares[id(quad)] = (square, mask)
    return n, score, (rows, cols), bent


#: strips a rectified grid is cut into along its lines when no count fits the whole lines: glare or a shadow band
#: on a photo washes the thin lines out over part of the grid (retired held-out 920077: the middle of an 18 x 18,
#: lines' ink share 0.3-0.5 there and 0.8-1 beside), so a line is taken at its clearest strip, and so is a
#: midway line. A quarter of the side: a strip still spans 4-5 cells of a 16-20 grid; in narrower ones a few
#: marks side by side fill a midway row as a line does (921809, eighths: midway shares up to 0.84)
GLARE_STRIPS = 4


def _strip_peaks(mask: np.ndarray, span: tuple[float, float], sizes: tuple) -> _Peaks:
    """``_Peaks`` of the check ``mask`` (S, S) over ``span`` where each expected line and midpoint takes its
    highest value over ``GLARE_STRIPS`` strips of the span across it (rows: strips of columns; columns:
    strips of rows), each strip's ink share as ``line_profiles`` takes it over the whole side."""
    side = mask.shape[0]
    k = 2 * max(2, side // 120) + 1
    across_rows = cv2.dilate(mask, np.ones((k, 1), np.uint8))
    across_cols = cv2.dilate(mask, np.ones((1, k), np.uint8))
    edges = np.linspace(span[0], span[1], GLARE_STRIPS + 1).round().astype(int)
    # every strip's two profiles looked up at once (a window's maximum is each profile's own), then the highest
    # of the strips' taken, strip after strip (laid out as ``_peaks_near`` lays two profiles' out: ``_Peaks.pair``)
    profiles = np.concatenate([np.stack([mean_along(across_rows[:, a:b], 1), mean_along(across_cols[a:b, :], 0)])
                               for a, b in zip(edges[:-1], edges[1:])]) / 255.0  # (2 * GLARE_STRIPS, S)
    got = _line_peaks(profiles, float(span[0]), float(span[1]), sizes)
    return _Peaks(got.at, _highest_pair(got.lines), _highest_pair(got.mids))


def _highest_pair(peaks: np.ndarray) -> np.ndarray:
    """(2, L) column-major: the highest of each pair of rows (rows, cols) of ``peaks`` (2 * k, L), pair by pair."""
    return np.asfortranarray(functools.reduce(np.maximum, (peaks[i:i + 2] for i in range(0, len(peaks), 2))))


CENTRE_REACH = 0.02  #: share of the check square's side an outline may lie off its border line's centre
CENTRE_LEAST = 1.0  #: pixels (check square) the border's centres must lie off the outline to be tried
#: least ``solid`` of a lattice found on a centred outline: ruled lines, not a boxes print's edges nor a frame
#: (on the 27 dev pages where a centred outline gave a grid: ruled grids 0.83-0.97; box prints 0.66-0.78, taken
#: for a 2n - 1 lattice; a frame around a 16 x 16 and its title taken for 18 x 18, 0.28)
CENTRE_SOLID = 0.8


def centred_outline(gray: np.ndarray, quad: np.ndarray, *, rectified: tuple | None = None) -> np.ndarray | None:
    """``quad`` (4, 2) (x, y) of ``gray`` moved side by side onto the centre of the border line along it, or
    None when a side shows no line within ``CENTRE_REACH`` or none lies ``CENTRE_LEAST`` off.

    An outline traced around the ink hugs the border's outer edge, while the grid's lines are spaced from its
    centre: with small cells and a bold border (a 20 x 20 a quarter of the photo wide, the border 2 px of a
    12 px cell) the inner lines' even positions are then off by up to half the border's width at each end,
    enough for the midway check to see lines there. Each side's line (ink along at least ``LINE_LEVEL`` of it
    in the rectified ink mask) is centred on the darkness of the run of rows (columns) around the darkest near
    the side. ``rectified``: the check square of ``quad`` and its ink mask when taken already (``_check``)."""
    side, margin = CHECK_SIDE, CHECK_MARGIN * CHECK_SIDE
    if rectified is None:
        square = rectify_square(gray, quad, side=side, margin=margin)
        rectified = (square, ink_mask(square, block=(side // 16) | 1, offset=6))
    square, mask = rectified[0], rectified[1] > 0
    lo, hi = margin, side - 1 - margin  # where the outline lies in the square
    inner = slice(int(lo), int(hi) + 1)
    # per side: the share of ink along each row (column) between the side lines, and its mean darkness
    profiles = [(mask[inner, :].mean(axis=0), square[inner, :].mean(axis=0)),
                (mask[:, inner].mean(axis=1), square[:, inner].mean(axis=1))]
    reach = CENTRE_REACH * side
    at = []
    for (ink, gray_mean), end in zip(profiles * 2, (lo, lo, hi, hi)):  # left, top, right, bottom
        a, b = max(0, int(round(end - reach))), min(side, int(round(end + reach)) + 1)
        if ink[a:b].max() < LINE_LEVEL:
            return None
        # the line's centre: the weight of its darkness over the paper near it (the mask's edge leans out: the
        # neighbourhood inside a grid is darker than the paper outside), the line's run followed on past the
        # window (the peak lies in it)
        a2, b2 = max(0, int(round(end - 2 * reach))), min(side, int(round(end + 2 * reach)) + 1)
        dark = gray_mean[a2:b2].max() - gray_mean[a2:b2]
        peak = a - a2 + int(dark[a - a2:b - a2].argmax())
        i, j = peak, peak  # the run around the darkest over half its darkness
        while i > 0 and dark[i - 1] >= 0.5 * dark[peak]:
            i -= 1
        while j < len(dark) - 1 and dark[j + 1] >= 0.5 * dark[peak]:
            j += 1
        w = dark[i:j + 1]
        at.append(a2 + i + float((w * np.arange(len(w))).sum() / max(float(w.sum()), 1e-9)))
    left, top, right, bottom = at
    if max(abs(left - lo), abs(top - lo), abs(right - hi), abs(bottom - hi)) < CENTRE_LEAST:
        return None
    box = np.array([[left, top], [right, top], [right, bottom], [left, bottom]], np.float64).reshape(-1, 1, 2)
    back = cv2.getPerspectiveTransform(square_corners(side, margin=margin), quad.astype(np.float32))
    centred = cv2.perspectiveTransform(box, back).reshape(4, 2).astype(np.float32)
    return centred if _sides_ok(centred) else None


#: ... or at least this for an even n: no boxes print's lattice (2n - 1 a side: odd) is among them. Ruled lines
#: blurred across (motion blur) or washed out by glare over part of the grid: dev 2916000 (16 x 16) and 2920005
#: (20 x 20), a bold border and thin lines, 0.48 and 0.55; a frame around a grid and its title falls far short (0.28)
CENTRE_FAINT = 0.4


def _solid_enough(lines: tuple[np.ndarray, np.ndarray], n: int) -> bool:
    """Whether a centred n x n lattice, its check profiles ``lines`` (rows, cols), shows ruled lines: ``solid``
    at CENTRE_SOLID, or at CENTRE_FAINT when n is even."""
    least = solid(lines, n)
    return least >= CENTRE_SOLID or (n % 2 == 0 and least >= CENTRE_FAINT)


def solid(lines: tuple[np.ndarray, np.ndarray], n: int) -> float:
    """The ink of the faintest of the n - 1 inner lines of an n x n lattice in both profiles ``lines`` (rows,
    cols) of a check square (share of the line's length): about 0.95 for ruled lines; 0.65-0.8 where a boxes
    print's edges, broken by the gaps between the boxes, are taken for lines; far less where a frame around a
    grid and its title is counted a row or two more (no line crosses the title)."""
    side, margin = CHECK_SIDE, CHECK_MARGIN * CHECK_SIDE
    step = (side - 1 - 2 * margin) / n
    peaks = _peaks_near(np.stack(lines).astype(np.float64), margin + step * np.arange(1, n), max(2.0, 0.22 * step))
    return float(peaks.min())


BENT_BANDS = 4  #: bands a rectified grid is cut into across its lines for following bent lines
BENT_REACH = 0.4  #: share of a cell a bent line may lie off its even position
BENT_JITTER = 0.12  #: ... and off the smooth course of its neighbours' shifts


def _bent_count(mask: np.ndarray, rows: np.ndarray, cols: np.ndarray, *, span: tuple[float, float],
                sizes=SIZES, peaks: _Peaks | None = None) -> tuple[int, float]:
    """``count_cells`` for a grid whose lines in one direction are bent (curled paper): the largest n whose
    n + 1 lines show evenly spaced in one profile (``rows`` or ``cols``, (S,)) as usual, and in the other
    direction show in every band of ``mask`` (S, S) across them (``BENT_BANDS``) as n + 1 clear lines, each
    within ``BENT_REACH`` of a cell of its even position, shifted smoothly from line to line (within
    ``BENT_JITTER``), with no line midway. ``peaks``: the profiles' ``_Peaks`` over ``span`` when known.
    Returns ``(n, score)`` or ``(0, 0.0)``."""
    start, stop = span
    if peaks is None:
        peaks = _line_peaks(np.stack([rows, cols]), float(start), float(stop), tuple(sizes))
    side = mask.shape[0]
    edges = np.linspace(0, side, BENT_BANDS + 1).astype(int)
    reach = max(1, side // 240)

    def bands(direction: int) -> np.ndarray:  # the line profile of each band ((B, S): share of ink along each
        if direction == 0:  # row / column), taken only for a direction whose lines show straight the other way
            return np.stack([mean_along(cv2.dilate(mask[:, a:b], np.ones((2 * reach + 1, 1), np.uint8)), 1)
                             for a, b in zip(edges[:-1], edges[1:])]) / 255.0
        return np.stack([mean_along(cv2.dilate(mask[a:b, :], np.ones((1, 2 * reach + 1), np.uint8)), 0)
                         for a, b in zip(edges[:-1], edges[1:])]) / 255.0

    best = (0, 0.0)
    for straight, bent in ((1, 0), (0, 1)):  # (the profile whose lines show straight: cols, then rows)
        n = _count(peaks.pair(straight), level=LINE_LEVEL)[0]
        score = _bent_lines(bands(bent), n, start, (stop - start) / n) if n > best[0] else None
        if score is not None:
            best = (n, score)
    return best


def _bent_lines(bands: np.ndarray, n: int, start: float, step: float, *, level: float = LINE_LEVEL) -> float | None:
    """The mean line-minus-midway ink when every band's profile (B, S) shows the n + 1 lines (see
    ``_bent_count``), else None."""
    side = bands.shape[1]
    expected = start + step * np.arange(n + 1)
    offsets = np.arange(-int(BENT_REACH * step), int(BENT_REACH * step) + 1)
    idx = np.clip(np.round(expected).astype(int)[:, None] + offsets[None, :], 0, side - 1)  # (n + 1, W)
    scores = []
    for profile in bands:
        window = profile[idx]
        at = idx[np.arange(n + 1), window.argmax(axis=1)].astype(float)
        peak = window.max(axis=1)
        if (peak[1:-1] >= level).mean() < 0.85 or peak[[0, -1]].min() < 0.8 * level:
            return None
        # bent = shifted smoothly from line to line (a lattice of another size leaves a sawtooth)
        index = np.arange(n + 1)
        off = at - expected
        smooth = np.polyval(np.polyfit(index, off, 2), index)
        if (np.abs(off - smooth) > BENT_JITTER * step).sum() > max(1.0, 0.1 * n):
            return None
        mids = [float(profile[max(0, int(m - 0.15 * step)):int(m + 0.15 * step) + 1].max())
                for m in (at[:-1] + at[1:]) / 2]
        strong = max(level, 0.8 * float(np.median(peak[1:-1])))
        if sum(m >= strong for m in mids) > max(1.0, 0.2 * n):
            return None
        scores.append(float(peak[1:-1].mean() - np.mean(mids)))
    return float(np.mean(scores))


def line_mask(mask: np.ndarray, *, length: int | None = None) -> np.ndarray:
    """Only the long straight strokes of an ink ``mask`` (H, W) uint8: its horizontal and vertical runs at
    least ``length`` long (default 1/40 of the long side). Text, specks and paper texture go; ruled lines
    and borders stay, so a grid whose border touches a text frame through stray ink comes apart from it."""
    length = length or max(15, max(mask.shape) // 40)
    rows = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (length, 1)))
    cols = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, length)))
    return cv2.bitwise_or(rows, cols)


def quads(gray: np.ndarray, *, min_area_fraction: float = MIN_AREA_FRACTION, limit: int = 12,
          lines_only: bool = False, masks: dict | None = None, small: int = SMALL_OUTLINES) -> list[np.ndarray]:
    """Quad-like outlines (4, 2) (x, y) of dark blobs in ``gray`` (H, W), largest first (at most ``limit``);
    with ``lines_only`` of the long straight strokes only (``line_mask``). ``masks``: where the two masks
    of ``gray`` are kept for the next call on it (``page_mask``). Below ``min_area_fraction`` of the picture, the
    ``small`` largest outlines down to ``MIN_SMALL_FRACTION`` follow when there is room within ``limit``."""
    large, smaller = _outlines(gray, min_area_fraction=min_area_fraction, limit=limit, lines_only=lines_only,
                               masks=masks, small=small)
    return large + smaller


def _outlines(gray: np.ndarray, *, min_area_fraction: float, limit: int, lines_only: bool, masks: dict | None,
              small: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``quads``: (the outlines of at least ``min_area_fraction`` of the picture, the smaller ones)."""
    mask = page_mask(gray, lines_only, {} if masks is None else masks)
    mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))  # close small breaks in thin borders
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    min_area = min_area_fraction * gray.shape[0] * gray.shape[1]
    least = min(min_area, MIN_SMALL_FRACTION * gray.shape[0] * gray.shape[1])
    found: list[tuple[float, np.ndarray]] = []
    smaller: list[tuple[float, np.ndarray, np.ndarray]] = []
    # (a closed contour of P points, each a neighbour of the last, is at most P * sqrt(2) long and so encloses at
    # most P ** 2 / (2 pi) (the isoperimetric inequality): the many short ones, letters and specks, go uncounted)
    shortest = 6.28 * least
    for contour in contours:
        if len(contour) ** 2 < shortest:
            continue
        contour_area = cv2.contourArea(contour)
        if contour_area < least:
            continue
        quad = _quad_from_contour(contour)
        if contour_area >= min_area:  # (and its corner cut off, completed: both are checked)
            for quad in (quad, _cut_corner_quad(contour)):
                if quad is None or not _sides_ok(quad):
                    continue
                quad = refine_quad(quad, contour)
                if not any(same_quad(quad, q) for _, q in found):
                    found.append((float(cv2.contourArea(quad)), quad))
            continue
        if quad is None or not _sides_ok(quad):
            continue
        smaller.append((float(contour_area), quad, contour))
    found.sort(key=lambda t: -t[0])
    large = [q for _, q in found[:limit]]
    # (refined only when taken: text blocks and pictures give many; the refinement is the costly part)
    out: list[np.ndarray] = []
    room = min(small, limit - len(large))
    for _, quad, contour in sorted(smaller, key=lambda t: -t[0]):
        if len(out) >= room:
            break
        quad = refine_quad(quad, contour)
        if not any(same_quad(quad, q) for q in large + out):
            out.append(quad)
    return large, out


def page_mask(gray: np.ndarray, lines_only: bool, kept: dict) -> np.ndarray:
    """The ink mask of ``gray`` (``ink_mask``) or, ``lines_only``, its long straight strokes (``line_mask`` of
    the mask at ``LINE_OFFSET``), taken once and kept in ``kept`` (never change it)."""
    if lines_only not in kept:
        kept[lines_only] = line_mask(ink_mask(gray, offset=LINE_OFFSET)) if lines_only else ink_mask(gray)
    return kept[lines_only]


def light_regions(gray: np.ndarray, lines_only: bool, kept: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(stats, centroids)`` ((K, 5) int32 x, y, w, h, area and (K, 2) float64 x, y) of the 4-connected regions
    without ink in ``page_mask(gray, lines_only, kept)``, label 0 first, taken once and kept in ``kept``."""
    key = ("light", lines_only)
    if key not in kept:
        _, _, stats, centroids = cv2.connectedComponentsWithStats(255 - page_mask(gray, lines_only, kept),
                                                                  connectivity=4)
        kept[key] = (stats, centroids)
    return kept[key]


#: the detection copy searched last, its gray picture and its kept masks (``page``)
_last_page: tuple = (None, None, None)


def page(image: np.ndarray) -> tuple[np.ndarray, dict]:
    """``gray_of(image)`` and the dict its page-wide masks are kept in (``page_mask``, ``light_regions``): the
    same for the same detection copy (the same array object, never changed in place), so the ruled-grid finder
    and the boxes finder (``boxes_find``) share one ink mask and one labelling of its light regions."""
    global _last_page
    last = _last_page
    if last[0] is image:
        return last[1], last[2]
    gray, kept = gray_of(image), {}
    _last_page = (image, gray, kept)
    return gray, kept


def linked_groups(near: np.ndarray) -> np.ndarray:
    """(K,) int: a label per node of the symmetric (K, K) bool neighbour matrix ``near``, the same for nodes
    linked by a chain of neighbours (union-find)."""
    parent = list(range(len(near)))  # (plain numbers: the same links, without numpy's per-scalar cost)

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first, second = np.nonzero(np.triu(near, 1))
    for i, j in zip(first.tolist(), second.tolist()):
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[ri] = rj
    return np.array([root(i) for i in range(len(near))], dtype=int)


CLUSTER_CELLS = 12  #: cells a cluster must have to be checked as a grid (``cell_cluster_quads``)
#: ... and to be grown to its grid when it lies in an outline nothing was found in (a 3 x 3 of whole cells, dev
#: 8300199: a 10 x 10 circle print whose thin lines broke in the detection copy, merging the other cells; an
#: 8 x 9, retired held-out ho4 9620002: a 20 x 20 at 14 pixels a cell, shaded givens)
SMALL_CLUSTER = 6


def cell_cluster_quads(gray: np.ndarray, *, min_cells: int = CLUSTER_CELLS, limit: int = 6,
                       lines_only: bool = False, masks: dict | None = None) -> list[np.ndarray]:
    """Quads (4, 2) (x, y) around clusters of similar, adjacent, box-like light regions of ``gray`` (H, W): the
    cells of a grid. Finds grids whose outer border touches other print (a text frame, a fold, a title).
    With ``lines_only`` the cells are the regions between the long straight strokes (``line_mask``): digits
    and specks no longer break them, faint inner lines no longer merge them. ``masks``: as for ``quads``."""
    found = _cell_clusters(gray, min_cells=min_cells, lines_only=lines_only, masks=masks)
    return [quad for _, quad, _ in sorted(found, key=lambda t: -t[0])[:limit]]


def _cell_clusters(gray: np.ndarray, *, min_cells: int, lines_only: bool,
                   masks: dict | None) -> list[tuple[int, np.ndarray, tuple[int, int]]]:
    """``cell_cluster_quads``' clusters of at least ``min_cells`` cells, unsorted: (cells, quad, (columns along
    its top, rows along its left side) of their lattice (``lattice_fit``), (0, 0) when no lattice fits them).
    Each cluster's outline is taken once per page and kept in ``masks`` (``page``): ``find_grids`` asks again
    for smaller clusters than its first look."""
    kept = {} if masks is None else masks
    regions = _cell_regions(gray, lines_only, kept)
    fits = kept.setdefault(("cluster outlines", lines_only), {})
    out: list[tuple[int, np.ndarray, tuple[int, int]]] = []
    for r in np.unique(regions.roots):
        group = regions.roots == r
        if int(group.sum()) < min_cells:
            continue
        if r not in fits:
            fits[r] = _cluster_outline(regions, group)
        if fits[r] is not None:
            out.append((int(group.sum()), *fits[r]))
    return out


@dataclass
class _CellRegions:
    """The box-like light regions of a page that may be grid cells (``_cell_regions``): their bounding boxes
    ``x``, ``y``, ``w``, ``h`` (K,), sides ``size`` and centres ``cx``, ``cy`` (K,), the (K, K) bool ``near``
    matrix of neighbouring cells and the cluster label ``roots`` (K,) of each (``linked_groups``)."""

    x: np.ndarray
    y: np.ndarray
    w: np.ndarray
    h: np.ndarray
    size: np.ndarray
    cx: np.ndarray
    cy: np.ndarray
    near: np.ndarray
    roots: np.ndarray


def _cell_regions(gray: np.ndarray, lines_only: bool, kept: dict) -> _CellRegions:
    """The cell-like light regions of ``page_mask(gray, lines_only, kept)`` and their clusters, taken once and
    kept in ``kept``."""
    key = ("cell regions", lines_only)
    if key in kept:
        return kept[key]
    stats, centroids = light_regions(gray, lines_only, kept)
    h_img, w_img = gray.shape
    long_side = max(h_img, w_img)
    x, y, w, h, area = (stats[:, i].astype(np.float64) for i in range(5))
    fill = area / np.maximum(1.0, w * h)
    aspect = w / np.maximum(1.0, h)
    ok = (
        (w >= long_side / 90) & (h >= long_side / 90) & (w <= long_side / 5) & (h <= long_side / 5)
        & (aspect > 0.5) & (aspect < 2.0) & (fill > 0.45)
        & (x > 0) & (y > 0) & (x + w < w_img) & (y + h < h_img)
    )
    idx = np.nonzero(ok)[0]
    x, y, w, h = x[idx], y[idx], w[idx], h[idx]
    size = np.sqrt(w * h)
    cx, cy = centroids[idx, 0], centroids[idx, 1]
    # neighbours: similar size and centres within 1.7 cell sizes
    dist = np.hypot(cx[:, None] - cx[None, :], cy[:, None] - cy[None, :])
    ratio = size[:, None] / size[None, :]
    near = (dist < 1.7 * np.maximum(size[:, None], size[None, :])) & (ratio > 0.6) & (ratio < 1.67)
    np.fill_diagonal(near, False)
    inner = near.sum(axis=1) >= 2  # a grid cell has at least two neighbouring cells; stray boxes do not
    near &= inner[:, None] & inner[None, :]
    kept[key] = _CellRegions(x, y, w, h, size, cx, cy, near, linked_groups(near))
    return kept[key]


def _cluster_outline(regions: _CellRegions, group: np.ndarray) -> tuple[np.ndarray, tuple[int, int]] | None:
    """(quad, (columns, rows)) of the cluster of ``regions`` marked by ``group`` (K,) bool: its lattice's
    outline (``lattice_fit``), else the outline of its cells' corners with extent (0, 0); None when neither is
    a plausible quad."""
    r = regions
    fitted = lattice_fit(np.stack([r.cx[group], r.cy[group]], 1), r.size[group], r.near[np.ix_(group, group)])
    if fitted is not None:
        quad, extent = fitted
    else:
        x, y, w, h = r.x[group], r.y[group], r.w[group], r.h[group]
        corners = np.concatenate([np.stack([x, y], 1), np.stack([x + w, y], 1), np.stack([x + w, y + h], 1),
                                  np.stack([x, y + h], 1)]).astype(np.float32)
        quad, extent = _quad_from_contour(corners.reshape(-1, 1, 2)), (0, 0)
    if quad is None or not _sides_ok(quad):
        return None
    return quad, extent


def lattice_quad(centres: np.ndarray, sizes: np.ndarray, near: np.ndarray) -> np.ndarray | None:
    """The outline (4, 2) (x, y) of the lattice of cell ``centres`` (K, 2) (x, y), ``sizes`` (K,) (their
    sides) linked by the (K, K) bool ``near`` matrix (``lattice_fit``); None when no lattice fits."""
    fitted = lattice_fit(centres, sizes, near)
    return None if fitted is None else fitted[0]


def lattice_fit(centres: np.ndarray, sizes: np.ndarray,
                near: np.ndarray) -> tuple[np.ndarray, tuple[int, int]] | None:
    """``(outline, (columns, rows))`` of the lattice of cell ``centres`` (K, 2) (x, y), ``sizes`` (K,) (their
    sides) linked by the (K, K) bool ``near`` matrix: each cell gets a (column, row) index by walking from
    neighbour to neighbour (steps measured along the lattice's own axes, the first within 45 degrees of the
    image's x axis), a homography maps the indices to the centres (robust fit), and the outline (4, 2) (x, y)
    is the indices' extent plus half a cell's side all round (the outer cells' edges). Cells missing at a
    corner or along a side do not bend it the way a convex hull does. ``(columns, rows)``: the cells the
    outline spans along its top side (``order_corners``) and along its left side. None when no lattice fits."""
    k = len(centres)
    i, j = np.nonzero(np.triu(near, 1))
    if k < 6 or len(i) < k:
        return None
    vec = centres[j] - centres[i]
    dist = np.hypot(vec[:, 0], vec[:, 1])
    nearest = np.full(k, np.inf)
    np.minimum.at(nearest, i, dist)
    np.minimum.at(nearest, j, dist)
    pitch = np.minimum(nearest[i], nearest[j])
    edge = dist < 1.25 * pitch  # side by side, not diagonal
    i, j, vec, pitch = i[edge], j[edge], vec[edge], pitch[edge]
    theta = np.arctan2(vec[:, 1], vec[:, 0])
    axis = np.angle(np.exp(4j * theta).sum()) / 4  # the lattice's direction (mod 90 degrees)
    c, s = np.cos(axis), np.sin(axis)
    step = np.round(np.stack([c * vec[:, 0] + s * vec[:, 1], -s * vec[:, 0] + c * vec[:, 1]], 1) / pitch[:, None])
    unit = np.abs(step).sum(axis=1) == 1
    # (the walk in plain numbers: a cell's index is a sum of whole steps, the same floats added one by one, without
    # numpy's cost per link -- a 20 x 20 has some 800 links)
    links: dict[int, list[tuple[int, float, float]]] = {}
    for a, b, (dc, dr) in zip(i[unit].tolist(), j[unit].tolist(), step[unit].tolist()):
        links.setdefault(a, []).append((b, dc, dr))
        links.setdefault(b, []).append((a, -dc, -dr))
    if not links:
        return None
    start = max(links, key=lambda a: len(links[a]))
    index = {start: (0.0, 0.0)}
    todo = [start]
    while todo:
        a = todo.pop()
        col, row = index[a]
        for b, dc, dr in links[a]:
            if b not in index:
                index[b] = (col + dc, row + dr)
                todo.append(b)
    if len(index) < 6:
        return None
    cells = np.array(list(index), dtype=int)
    ij = np.array([index[a] for a in cells], dtype=np.float32)  # (col, row) along the lattice's axes
    h, inliers = cv2.findHomography(ij, centres[cells].astype(np.float32), cv2.RANSAC,
                                    0.25 * float(np.median(pitch)))
    if h is None or inliers.sum() < 6:
        return None
    ij = ij[inliers.ravel() > 0]
    half = 0.5 * float(np.median(sizes[cells] / np.maximum(nearest[cells], 1e-9)))  # the outer cells' edges, in
    (c0, r0), (c1, r1) = ij.min(axis=0) - half, ij.max(axis=0) + half  # pitches (boxes may stand apart)
    box = np.array([[c0, r0], [c1, r0], [c1, r1], [c0, r1]], np.float32).reshape(-1, 1, 2)
    outline = order_corners(cv2.perspectiveTransform(box, h).reshape(4, 2))
    return outline, (round(c1 - c0), round(r1 - r0))


SEARCH_MARGIN = 0.12  #: share of the side looked at around a rejected outline for a lattice (a row cut off)
SEARCH_OUTLINES = 3  #: the largest rejected outlines searched for a lattice inside or around them
SEARCH_TRIES = 3  #: lattices proposed (and checked) per searched outline
SEARCH_SCORE = 0.35  #: least ``check`` score of a lattice found by searching (many are proposed)
RUNS_KEPT = 6  #: runs of one size looked at per direction (the ones spanning most line ink)
RUN_TOLERANCE = 0.15  #: a run's line may be this share of its spacing off the even one
STROKE_WIDTH = 1 / 40  #: strokes up to this share of the searched square wide count as lines
RUN_LEVEL = 0.25  #: a profile peak is a line when it has this share of the profile's strongest line ink


def even_runs(profile: np.ndarray, *, sizes=SIZES, min_step: float = 8.0, edge: int = 2) -> list[tuple[int, float, float, float]]:
    """Every ``(n, first, last, strength)``: n + 1 evenly spaced peaks of a line-ink ``profile`` (S,) from
    ``first`` to ``last`` with no strong peak midway between them (but one); ``strength`` = the mean profile at the lines.
    ``edge``: how far the profile's peaks were widened either side (its lines' reach)."""
    level = max(0.1, RUN_LEVEL * float(profile.max()))
    top = (profile >= level) & (profile >= np.roll(profile, 1)) & (profile >= np.roll(profile, -1))
    idx = np.nonzero(top[1:-1])[0] + 1
    if len(idx) < 3:
        return []
    # a thick line or a flat top gives neighbouring maxima: one peak each; a wide plateau is a dark block
    # (a title bar, a shaded row) whose edges may be lines: a peak at each end (``edge`` in from it)
    breaks = np.nonzero(np.diff(idx) > 3)[0] + 1
    pos = []
    for g in np.split(idx, breaks):
        if g[-1] - g[0] > 4 * edge + 4:  # (or at the very ends: a line along the block merged with it)
            pos += [g[0], g[0] + edge, g[-1] - edge, g[-1]]
        else:  # a faint run beside a line (a column of marks' stray ink) is no part of it: its strongest run
            g = g[profile[g] >= 0.8 * profile[g].max()]  # tells where (not a block's: a line along it is fainter)
            pos.append(float(g.mean()))
    pos = np.array(pos, dtype=np.float64)
    if len(pos) < 3:
        return []

    # midway between lines no peak may be nearly as strong as a line (a column of 1s makes a weak one)
    height = profile[np.clip(np.round(pos).astype(int), 0, len(profile) - 1)]
    strong = np.concatenate([[-1e9], pos[height >= 0.5 * profile.max()], [1e9]])

    def nearest(x: np.ndarray, at: np.ndarray = pos) -> np.ndarray:  # distance from each x to the closest peak
        i = np.clip(np.searchsorted(at, x), 1, len(at) - 1)
        return np.minimum(np.abs(at[i - 1] - x), np.abs(at[i] - x))

    a, b = np.triu_indices(len(pos), 2)
    runs = []
    for n in sizes:
        step = (pos[b] - pos[a]) / n
        ok = step >= min_step
        if not ok.any():
            continue
        ia, ib, st = a[ok], b[ok], step[ok]
        # (the middle line first: most pairs have none there, and need not be looked at further)
        mid = nearest(pos[ia] + st * (n // 2)) <= np.maximum(1.5, RUN_TOLERANCE * st)
        ia, ib, st = ia[mid], ib[mid], st[mid]
        want = pos[ia][:, None] + st[:, None] * np.arange(n + 1)[None, :]
        good = (nearest(want) <= np.maximum(1.5, RUN_TOLERANCE * st[:, None])).all(axis=1)
        # (one stray is borne, as by ``count_cells``: a crease or a shadow's edge across a row)
        good &= (nearest(want[:, :-1] + st[:, None] / 2, strong) < 0.25 * st[:, None]).sum(axis=1) <= 1
        at = np.clip(np.round(want[good]).astype(int), 0, len(profile) - 1)
        strength = profile[at].mean(axis=1)
        runs += [(n, float(pos[i]), float(pos[j]), float(v)) for i, j, v in zip(ia[good], ib[good], strength)]
    return runs


def _runs_on(lines: np.ndarray, n: int, first: float, last: float, lo: float, hi: float) -> bool:
    """Whether the n - 1 inner lines of a lattice, at ``first`` .. ``last`` across ``lines`` (S, S) uint8 line
    ink (columns: the lines run down), mostly run on beyond its ends ``lo`` / ``hi`` (a cell's length on)."""
    step = (last - first) / n
    at = first + np.arange(n + 1) * step
    bands = ((lo - 0.8 * step, lo - 0.2 * step), (hi + 0.2 * step, hi + 0.8 * step))
    return any(run_on(lines, at, (int(round(s0)), int(round(s1)))) > RUNS_ON for s0, s1 in bands)


def _strokes_around(gray: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The long horizontal and vertical strokes (each (S, S) uint8 mask, S = CHECK_SIDE) of ``quad`` (4, 2)
    of ``gray`` rectified to a square with a SEARCH_MARGIN border around it."""
    side = CHECK_SIDE
    square = rectify_square(gray, quad, side=side, margin=SEARCH_MARGIN * side)
    return thin_strokes(square, block=side // 16, thin=int(STROKE_WIDTH * side), reach=side // 30)


def lattices_near(gray: np.ndarray, quad: np.ndarray, *, sizes=SIZES, tries: int = SEARCH_TRIES) -> list[np.ndarray]:
    """Quads (4, 2) (x, y) of ruled lattices proposed in and just around the outline ``quad`` of ``gray``
    (H, W), likeliest first: n + 1 evenly spaced long strokes across and n + 1 along it. An outline that
    also holds a title or a text frame, or a cluster of cells missing a row, has its grid among them
    (to be confirmed by ``check``)."""
    side, margin = CHECK_SIDE, SEARCH_MARGIN * CHECK_SIDE
    horiz, vert = _strokes_around(gray, quad)
    rows = mean_along(cv2.dilate(horiz, np.ones((5, 1), np.uint8)), 1) / 255.0
    cols = mean_along(cv2.dilate(vert, np.ones((1, 5), np.uint8)), 0) / 255.0
    across = even_runs(cols, sizes=sizes, edge=2)
    if not across:
        return []

    def longest(runs) -> dict[int, list]:  # per size, the runs spanning most line ink first (a few)
        by_size: dict[int, list] = {}
        for n, first, last, strength in runs:
            by_size.setdefault(n, []).append((first, last, strength))
        return {n: sorted(r, key=lambda t: -(t[1] - t[0]) * t[2])[:RUNS_KEPT] for n, r in by_size.items()}

    down = longest(even_runs(rows, sizes=sorted({n for n, *_ in across}), edge=2))  # (of the sizes found across)
    best: dict[int, tuple] = {}
    for n, xs in longest(across).items():
        pairs = [((x1 - x0) * (y1 - y0) * min(sx, sy), x0, y0, x1, y1)
                 for x0, x1, sx in xs for y0, y1, sy in down.get(n, ()) if 0.5 < (x1 - x0) / (y1 - y0) < 2.0]
        for key, x0, y0, x1, y1 in sorted(pairs, key=lambda t: -t[0]):
            # inner lines running on past the lattice: a lattice shifted off the grid
            if not (_runs_on(vert, n, x0, x1, y0, y1) or _runs_on(horiz.T, n, y0, y1, x0, x1)):
                best[n] = (key, x0, y0, x1, y1)
                break
    chosen = sorted(best.values(), key=lambda t: -t[0])[:tries]
    to_square = cv2.getPerspectiveTransform(quad.astype(np.float32), square_corners(side, margin=margin))
    back = np.linalg.inv(to_square)
    out = []
    for _, x0, y0, x1, y1 in chosen:
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64).reshape(-1, 1, 2)
        out.append(cv2.perspectiveTransform(corners, back).reshape(4, 2).astype(np.float32))
    return out


def same_quad(a: np.ndarray, b: np.ndarray, *, tol: float = 0.03) -> bool:
    """True when every corner of ``a`` and ``b`` (4, 2) agrees within ``tol`` of the diagonal."""
    size = np.linalg.norm(a[0] - a[2])
    return bool(np.abs(a - b).max() < tol * size)


def overlap_share(a: np.ndarray, b: np.ndarray) -> float:
    """The area two convex quads (4, 2) (x, y) share, as a share of the smaller one's area (0..1)."""
    area_a = abs(cv2.contourArea(np.asarray(a, np.float32).reshape(4, 2)))
    area_b = abs(cv2.contourArea(np.asarray(b, np.float32).reshape(4, 2)))
    return share_in(a, b) if area_a <= area_b else share_in(b, a)


def find_grids(image: np.ndarray, *, sizes=SIZES, limit: int = 12) -> list[Candidate]:
    """Grid candidates in ``image`` (H, W[, 3]), confirmed by their lines, best first.

    Best = largest confirmed area; a candidate lying inside a better one (a box of
    the grid) is dropped, so every entry is a separate puzzle on the page.
    """
    gray, masks = page(image)  # the page's ink masks, shared by the outlines, the cell clusters, the boxes finder
    outlines, small = _outlines(gray, min_area_fraction=MIN_AREA_FRACTION, limit=limit, lines_only=False,
                                masks=masks, small=SMALL_OUTLINES)
    # (near duplicates from the other sources are kept: of two outlines of one grid the better lines win)
    stroke_outlines, stroke_small = _outlines(gray, min_area_fraction=MIN_AREA_FRACTION, limit=limit,
                                              lines_only=True, masks=masks, small=SMALL_OUTLINES)
    outlines += [q for q in stroke_outlines if not any(same_quad(q, o, tol=0.005) for o in outlines)]
    # small outlines (``MIN_SMALL_FRACTION``) are taken only when their own lines show clearly: not searched
    small += [q for q in stroke_small if not any(same_quad(q, o, tol=0.005) for o in outlines + small)]
    outlines += small
    clusters: list[np.ndarray] = []
    for lines_only in (False, True):
        clusters += [q for q in cell_cluster_quads(gray, lines_only=lines_only, masks=masks)
                     if not any(same_quad(q, o, tol=0.005) for o in outlines + clusters)]
    # largest first; a quad inside a confirmed grid (one of its boxes or cells) is not even checked, unless it
    # is large beside it (the confirmed one may be a frame whose lines happen to fit another size)
    order = sorted(outlines + clusters, key=lambda q: -float(cv2.contourArea(q)))
    kept: list[Candidate] = []
    rejected: list[np.ndarray] = []
    squares: dict = {}  # the check squares of outlines that may be rejected (``centred_outline`` below)
    for quad in order:
        area = float(cv2.contourArea(quad))
        host = [k for k in kept if inside(quad, k.quad)]
        if any(area < INNER_SHARE * k.area for k in host):
            continue
        is_small = any(quad is q for q in small)
        # (a small outline's lines must show straight: bent ones are not looked for)
        n, score, lines, bent = _check(gray, quad, sizes=sizes, bent_too=not is_small,
                                       squares=None if host or is_small else squares)
        if n and is_small and (bent or score < SEARCH_SCORE):
            n = 0  # a small outline must show its lines clearly (a halftone picture's blobs can make a lattice)
        if n and any(quad is c for c in clusters) and not _ends_clean(gray, quad, n):
            # a cluster of cells may be part of a grid (its faint lines merged the other cells, or marks filled
            # them): its lattice, followed outward, may be the grid (unless one found holds it already)
            whole = None if host else _grown(gray, quad, n, sizes=sizes)
            if whole is not None:
                _keep(kept, whole)
                continue
            n = 0
        if n == 0:
            if not host and not is_small:  # (a small outline: its own lines or none)
                rejected.append(quad)
            continue
        _keep(kept, Candidate(quad=quad, size=n, score=score, area=area, lines=lines, bent=bent))
    # an outline with no grid of its own may hold one with a title or a text frame, or be a grid's cells
    # missing a row: the evenly spaced lattices in and around it are checked like outlines
    searched: list[np.ndarray] = []  # the outlines searched, one per outline found (``SEARCH_OUTLINES``)
    for quad in rejected:
        if any(overlap(quad, k.quad) >= 0.7 or inside(k.quad, quad) for k in kept):
            continue  # an outline of a found grid, or a frame (the page) around one
        # one outline found by both sources (the ink, the long strokes) a few pixels apart is searched as each
        # (the lattices proposed differ with it), but counts once: a frame found twice leaves the next
        # outline, the grid's own, its search
        if not any(same_quad(quad, s) for s in searched):
            if len(searched) >= SEARCH_OUTLINES:
                break
            searched.append(quad)
        # (not the outline's bounding rectangle: it found a grid joined to a wider title bar, and also an 8 x 8
        # part of a photographed 9 x 9 whose lines it skewed)
        _search(gray, quad, kept, sizes=sizes)
    # an outline whose lines showed only bent may be its grid's outline a row's half off at one side (a thin
    # border lost along a title bar): the evenly spaced lattices of its size in and around it are checked too,
    # and one whose lines show straight replaces it (``_keep``)
    for cand in [k for k in kept if k.bent]:
        _search(gray, cand.quad, kept, sizes=(cand.size,), replacing=cand)
    # an outline hugging a bold border's outer edge, where nothing else was found: its lines are spaced from
    # the border's centre (``centred_outline``)
    for quad in rejected:
        if any(quad is c for c in clusters) or any(overlap_share(quad, k.quad) > 0.2 for k in kept):
            continue
        centred = centred_outline(gray, quad, rectified=squares.get(id(quad)))
        if centred is None:
            continue
        n, score, lines, bent = _check(gray, centred, sizes=sizes, bent_too=False)  # (straight lines only)
        if n and not bent and score >= SEARCH_SCORE and _solid_enough(lines, n):
            _keep(kept, Candidate(quad=centred, size=n, score=score, area=float(cv2.contourArea(centred)),
                                  lines=lines))
    # an outline with nothing found in it may still hold a few whole cells (marks, and thin lines broken in the
    # detection copy, merged the others): a cluster of them lying in it (too small to be looked at above, or
    # cells of no square: a row or two of them filled), grown to its grid (``_grown``)
    empty = [q for q in rejected if not any(q is c for c in clusters)
             and not any(overlap_share(q, k.quad) > 0.2 for k in kept)]
    for lines_only in ((False, True) if empty else ()):
        for _, quad, extent in _cell_clusters(gray, min_cells=SMALL_CLUSTER, lines_only=lines_only, masks=masks):
            if min(extent) < 2 or not any(share_in(quad, q) >= 0.9 for q in empty):
                continue
            if any(overlap_share(quad, k.quad) > 0.2 for k in kept):
                continue
            whole = _grown(gray, quad, extent, sizes=sizes)
            if whole is not None:
                _keep(kept, whole)
    kept.sort(key=lambda k: -k.area)
    return kept


def _search(gray: np.ndarray, frame: np.ndarray, kept: list[Candidate], *, sizes,
            replacing: Candidate | None = None, grow: bool = True) -> bool:
    """Check the lattices proposed in and around ``frame`` (``lattices_near``); the best confirmed one that
    lies on no found grid (but ``replacing``, the candidate whose outline ``frame`` is) is kept (``_keep``).
    When none is, but one showed its lines clearly only for them to run on past its ends, the grid is larger
    than it (a cluster of cells bounded by marks): with ``grow``, the lattices in and around that one are
    checked the same way. Returns whether one was kept."""
    best, larger = None, None
    for inner in lattices_near(gray, frame, sizes=sizes):
        if not _sides_ok(inner) or cv2.contourArea(inner) < MIN_AREA_FRACTION * gray.size:
            continue
        if any(overlap_share(inner, k.quad) > 0.2 for k in kept if k is not replacing):
            continue  # puzzles do not overlap: a lattice partly on a found grid is that grid shifted
        n, score, lines, bent = _check(gray, inner, sizes=sizes)
        if not n or score < SEARCH_SCORE:
            continue
        if not _ends_clean(gray, inner, n):
            if larger is None or score > larger[0]:
                larger = (score, inner)
        elif best is None or score > best.score:
            best = Candidate(quad=inner, size=n, score=score, area=float(cv2.contourArea(inner)), lines=lines,
                             bent=bent)
    if best is not None:  # of the lattices confirmed, the one whose lines show most clearly (a lattice taking in
        _keep(kept, best)  # a title bar's edge or the page's as one more line shows them less clearly)
        return True
    if grow and larger is not None:  # (an 8 x 8 circle print's 6 x 6 cluster: a 7 x 7 lattice, then the 8 x 8)
        return _search(gray, larger[1], kept, sizes=sizes, replacing=replacing, grow=False)
    return False


def _grown(gray: np.ndarray, quad: np.ndarray, n: int | tuple[int, int], *, sizes) -> Candidate | None:
    """The grid the lattice ``quad`` of ``gray`` is part of (``lattice_grow.grow``: n x n cells, or n = (columns
    along its top, rows along its left side)), confirmed by its straight lines (``SEARCH_SCORE``) ending at its
    border; None when there is none."""
    grown = lattice_grow.grow(gray, quad, n, most=max(sizes))
    if grown is None or grown[1] not in sizes:
        return None
    whole, size = grown
    got, score, lines, bent = _check(gray, whole, sizes=(size,), bent_too=False)
    if got != size or bent or score < SEARCH_SCORE or not _ends_clean(gray, whole, size):
        return None
    return Candidate(quad=whole, size=size, score=score, area=float(cv2.contourArea(whole)), lines=lines)


def _ends_clean(gray: np.ndarray, quad: np.ndarray, n: int) -> bool:
    """Whether the inner lines of the n x n lattice ``quad`` (4, 2) of ``gray`` end at its border, seen in its
    own rectification (a lattice found by searching may be part of a larger grid: its lines run on)."""
    side, margin = CHECK_SIDE, SEARCH_MARGIN * CHECK_SIDE
    horiz, vert = _strokes_around(gray, quad)
    lo, hi = margin, side - 1 - margin
    return not (_runs_on(vert, n, lo, hi, lo, hi) or _runs_on(horiz.T, n, lo, hi, lo, hi))


def _keep(kept: list[Candidate], cand: Candidate) -> None:
    """Add a confirmed ``cand`` to ``kept``: of two candidates for one grid (overlapping, or one inside the
    other and large beside it) the one whose lines fall where its cells say wins by a clear margin, else the
    one already kept stays; confirmed candidates lying inside a new larger one (its boxes) go.

    Of two outlines of one grid of the same size, one whose lines show evenly spaced both ways wins over one
    whose lines were found only bent (``_bent_count``), whatever their scores: the bent one's score is
    measured at the lines it followed, so an outline a row's half off at one side (a border lost along a
    title bar, a curled corner) scores as well as the true one, which the even spacing confirms. So does a
    straight grid of any size lying in a larger outline found bent (``_frames``): a frame around the grid
    and its title, whose border and title lines the bent count took for a row or two more."""
    twin = next((i for i, k in enumerate(kept)
                 if overlap(cand.quad, k.quad) >= 0.7 or inside(cand.quad, k.quad) or inside(k.quad, cand.quad)),
                None)
    if twin is None:
        kept[:] = [k for k in kept if not inside(k.quad, cand.quad)] + [cand]
        return
    other = kept[twin]
    straight, bent = (other, cand) if cand.bent else (cand, other)
    if other.bent != cand.bent and (other.size == cand.size or _frames(bent, straight)):
        better = other.bent  # the straight one wins
    else:
        better = cand.score > other.score + 0.1
    if better:
        kept[twin] = cand
        kept[:] = [k for i, k in enumerate(kept) if i == twin or not inside(k.quad, cand.quad)]


def _frames(outer: Candidate, grid: Candidate) -> bool:
    """Whether ``outer``'s outline is a frame around ``grid``'s: ``grid`` lies in it (``FRAME_IN``), ``outer``
    is larger by more than a bent outline of the same grid could be (``FRAME_AREA``) and counts a row or two
    more (``FRAME_ROWS``: the frame's border and the title's lines taken for rows)."""
    return (0 < outer.size - grid.size <= FRAME_ROWS and outer.area >= FRAME_AREA * grid.area
            and share_in(grid.quad, outer.quad) >= FRAME_IN)


#: an outline this much larger than a grid it holds is no outline of that grid: a bent outline found for a grid
#: strays from it by a fraction of a row at each side (an area ~5-10 % off), a frame adds a title's height
FRAME_AREA = 1.15
FRAME_IN = 0.9  #: share of the grid that must lie in the frame (its corners may poke a line's width out)
#: most rows a frame around a grid and its title was counted over the grid's: a border and a title line or two.
#: On 2,132 dev pages (retired held-outs' main, Takuzu big pages, synth300, fut dev) the only frame was 16 over 14
FRAME_ROWS = 2


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads (4, 2) (x, y)."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter
    return float(inter / union) if union > 0 else 0.0


def share_in(a: np.ndarray, b: np.ndarray) -> float:
    """Share of convex quad ``a``'s area (4, 2) (x, y) that lies in convex quad ``b`` (0..1)."""
    a32, b32 = np.asarray(a, np.float32).reshape(4, 2), np.asarray(b, np.float32).reshape(4, 2)
    area = abs(cv2.contourArea(a32))
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(cv2.convexHull(a32), cv2.convexHull(b32))
    return float(inter) / area


def inside(inner: np.ndarray, outer: np.ndarray) -> bool:
    """True when most of ``inner``'s centre and corners lie inside ``outer``."""
    contour = outer.reshape(-1, 1, 2).astype(np.float32)
    pts = list(inner) + [inner.mean(axis=0)]
    inside = sum(cv2.pointPolygonTest(contour, (float(x), float(y)), False) >= 0 for x, y in pts)
    return inside >= 4
