"""Grow a part of a ruled grid to the whole grid: its lattice followed outward, a row or column at a time.

A cluster of empty cells (``grid_find.cell_cluster_quads``) may be only part of its grid: marks filling the
other cells (a circle print's black discs) break them up, and an outline taking in a title bar cannot
stand for the grid. The part's lattice is good, though: its n + 1 lines each way are evenly spaced. Its
homography from lattice coordinates (u across, v down, 0..n) to the photo is extended outward: a side
grows by one cell while the lattice's lines run on through the next cell's band beyond it and a ruled line
closes that band; one stopped short of a square, its lines running on at one end only, is squared there
(``squared``). A flat grid's lattice extends exactly; the result is checked like any outline. The part
may be as small as 3 x 3 whole cells in an outline nothing else was found in (thin lines broken in the
detection copy merge the other cells).

Points are (x, y) image coordinates, quads (4, 2) float32 top-left first, clockwise (``grid_find``'s).
"""
from __future__ import annotations

import cv2
import numpy as np

from .strokes import RUNS_ON, run_on, thin_strokes, with_ink

CELL = 24  #: pixels per cell of the picture a lattice's surroundings are read in
PAD = 1.5  #: cells of the picture around the lattice (the next cell's band and its closing line)
CLOSED = 0.6  #: share of the next line's length that must be stroke ink (within 2 pixels) for it to count
MOST = 20  #: largest grid grown to (cells a side)
DRIFT = 0.25  #: share of a cell the closing line may lie off the extended lattice's next line
#: most share of its longer side a lattice grown short of a square is squared by, on the one end where its lines
#: run on (the result is checked like any outline)
SQUARED = 0.25
#: ... where its lines run on at least this far (``strokes.run_on``; half of RUNS_ON, as the squared lattice is
#: checked whole) while at the other end they run on at most ENDED (a border ends them)
SQUARE_ON, ENDED = 0.2, 0.1


def _picture(gray: np.ndarray, to_image: np.ndarray, extent: tuple[int, int, int, int],
             *, cell: int) -> tuple[np.ndarray, np.ndarray]:
    """(H, W) view of ``gray`` of the lattice cells ``extent`` (u0, u1, v0, v1) and ``PAD`` cells around them,
    ``cell`` pixels a cell, and the (3, 3) homography from ``gray`` to it; ``to_image`` the (3, 3) homography
    from lattice coordinates to ``gray``."""
    u0, u1, v0, v1 = extent
    w, h = round((u1 - u0 + 2 * PAD) * cell), round((v1 - v0 + 2 * PAD) * cell)
    box = np.array([[u0 - PAD, v0 - PAD], [u1 + PAD, v0 - PAD], [u1 + PAD, v1 + PAD], [u0 - PAD, v1 + PAD]],
                   np.float32)
    corners = cv2.perspectiveTransform(box.reshape(-1, 1, 2), to_image).reshape(4, 2)
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    warp = cv2.getPerspectiveTransform(corners, target)
    return cv2.warpPerspective(gray, warp, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), warp


def _lines(extent: tuple[int, int, int, int], *, cell: int) -> tuple[np.ndarray, np.ndarray]:
    """Where the lattice's lines lie in its ``_picture``: x of its columns' lines, y of its rows' lines."""
    u0, u1, v0, v1 = extent
    return (np.arange(u1 - u0 + 1) + PAD) * cell, (np.arange(v1 - v0 + 1) + PAD) * cell


def _refitted(to_image: np.ndarray, warp: np.ndarray, extent: tuple[int, int, int, int], horiz: np.ndarray,
              vert: np.ndarray, *, cell: int) -> np.ndarray:
    """``to_image`` fitted again to the lattice's lines as the picture (``warp`` from the image) shows them:
    each line's stroke ink peak within ``DRIFT`` of a cell of where the lattice puts it, every crossing of the
    lines so found mapped back to its lattice point (least squares). A lattice extended far from the cells it
    was measured on drifts off its lines; measured again as it grows, it follows them."""
    u0, u1, v0, v1 = extent
    xs, ys = _lines(extent, cell=cell)
    reach = max(1, round(DRIFT * cell))

    def peaks(profile: np.ndarray, at: np.ndarray) -> np.ndarray:  # (a thick line's flat top: its middle)
        out = []
        for a in at:
            lo, hi = max(0, round(a) - reach), min(len(profile), round(a) + reach + 1)
            part = profile[lo:hi]
            out.append(lo + float(np.flatnonzero(part == part.max())[[0, -1]].mean()) if part.size and part.max() > 0
                       else a)
        return np.array(out, np.float64)

    y0, y1, x0, x1 = round(ys[0]), round(ys[-1]) + 1, round(xs[0]), round(xs[-1]) + 1
    seen_x = peaks(vert[y0:y1].sum(axis=0).astype(np.float64), xs)
    seen_y = peaks(horiz[:, x0:x1].sum(axis=1).astype(np.float64), ys)
    lattice = np.stack(np.meshgrid(np.arange(u0, u1 + 1), np.arange(v0, v1 + 1)), axis=-1).reshape(-1, 2)
    seen = np.stack(np.meshgrid(seen_x, seen_y), axis=-1).reshape(-1, 2)
    fitted, _ = cv2.findHomography(lattice.astype(np.float32), seen.astype(np.float32), 0)
    return to_image if fitted is None else np.linalg.inv(warp) @ fitted


def _closed(lines: np.ndarray, at: float, span: tuple[float, float], *, reach: int) -> bool:
    """Whether a ruled line runs along row ``at`` of ``lines`` (H, W) (line ink of lines running across)
    over the columns ``span``: ``CLOSED`` of them have ink within 2 pixels of some row up to ``reach`` pixels
    from ``at`` (a lattice extended far from where it was measured drifts off its lines a little)."""
    lo, hi = round(span[0]), round(span[1])
    rows = [y for y in range(round(at) - reach, round(at) + reach + 1) if 2 <= y <= lines.shape[0] - 3]
    if not rows or hi <= lo:
        return False
    return max(float((lines[y - 2:y + 3, lo:hi + 1] > 0).any(axis=0).mean()) for y in rows) >= CLOSED


def _run_past(across: np.ndarray, at: np.ndarray, end: float, step: float) -> float:
    """How far the lattice's lines at columns ``at`` of ``across`` (their line ink, running down) run on past
    its ``end`` (a row of ``across``) through the next cell's band (``step`` = +-1 cell): ``strokes.run_on``."""
    band = sorted((end + 0.2 * step, end + 0.8 * step))
    return run_on(across, at, (round(band[0]), round(band[1])))


def _grows(across: np.ndarray, along: np.ndarray, at: np.ndarray, end: float, step: float) -> bool:
    """Whether the lattice grows by a cell past its ``end`` (a row of ``across``, ``step`` = +-1 cell):
    its lines run on through the next cell's band (``_run_past`` over ``RUNS_ON``), and a line of ``along``
    (line ink of the lines across) closes it."""
    return (_run_past(across, at, end, step) > RUNS_ON
            and _closed(along, end + step, (at[0], at[-1]), reach=round(DRIFT * abs(step))))


def grow(gray: np.ndarray, quad: np.ndarray, n: int | tuple[int, int], *, cell: int = CELL,
         most: int = MOST) -> tuple[np.ndarray, int] | None:
    """The whole grid around the n x n lattice ``quad`` (4, 2) (x, y) of ``gray`` (H, W) (or ``n`` = (columns,
    rows): a lattice of that many cells along its top and its left side): ``(quad, size)`` of the lattice grown
    side by side as long as its lines run on, or None when it does not grow, grows to no square or beyond
    ``most`` cells a side."""
    cols, rows = (n, n) if isinstance(n, int) else n
    lattice = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float32)
    to_image = cv2.getPerspectiveTransform(lattice, quad.astype(np.float32))
    u0, u1, v0, v1 = 0, cols, 0, rows
    shape = dict(block=2 * cell, thin=max(3, cell // 2), reach=max(5, 2 * cell // 3))  # (``thin_strokes``)
    while True:
        picture, warp = _picture(gray, to_image, (u0, u1, v0, v1), cell=cell)
        to_image = _refitted(to_image, warp, (u0, u1, v0, v1), *thin_strokes(picture, ink=False, **shape), cell=cell)
        picture, _ = _picture(gray, to_image, (u0, u1, v0, v1), cell=cell)
        # lines running on: thin strokes only (marks filling the cells, a circle print's discs, are no lines, nor
        # ink between them); a closing line: ink too (a border along a title bar merges with it into one block)
        horiz, vert = thin_strokes(picture, ink=False, **shape)
        h_ink, v_ink = with_ink(picture, (horiz, vert), block=shape["block"], reach=shape["reach"])
        xs, ys = _lines((u0, u1, v0, v1), cell=cell)
        top = _grows(vert, h_ink, xs, ys[0], -cell)
        bottom = _grows(vert, h_ink, xs, ys[-1], cell)
        left = _grows(horiz.T, v_ink.T, ys, xs[0], -cell)
        right = _grows(horiz.T, v_ink.T, ys, xs[-1], cell)
        if not (top or bottom or left or right):
            break
        u0, u1, v0, v1 = u0 - left, u1 + right, v0 - top, v1 + bottom
        if max(u1 - u0, v1 - v0) > most:
            return None
    if u1 - u0 < v1 - v0:
        u0, u1, v0, v1 = squared((u0, u1, v0, v1), (_run_past(horiz.T, ys, xs[0], -cell),
                                                      _run_past(horiz.T, ys, xs[-1], cell)))
    elif u1 - u0 > v1 - v0:
        u0, u1, v0, v1 = squared((u0, u1, v0, v1), (_run_past(vert, xs, ys[0], -cell),
                                                      _run_past(vert, xs, ys[-1], cell)))
    size = u1 - u0
    if size != v1 - v0 or (u0, u1, v0, v1) == (0, cols, 0, rows):
        return None
    box = np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]], np.float32).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(box, to_image).reshape(4, 2), size


def squared(extent: tuple[int, int, int, int], run_on: tuple[float, float]) -> tuple[int, int, int, int]:
    """A lattice's ``extent`` (u0, u1, v0, v1) squared along its shorter side, whose lines run on past its start
    and past its end as far as ``run_on`` says (``_run_past``): on the end where they run on (``SQUARE_ON``)
    while at the other they end (``ENDED``), when the cells missing are at most ``SQUARED`` of its longer side;
    else unchanged. A lattice stops growing short of its grid where no line is seen to close the next cell (a
    faint line, or one half lost under a row of marks), or its lines are seen to run on only faintly (a soft
    photo)."""
    u0, u1, v0, v1 = extent
    missing = abs((u1 - u0) - (v1 - v0))
    on = [a >= SQUARE_ON and b <= ENDED for a, b in (run_on, run_on[::-1])]
    if on.count(True) != 1 or missing > SQUARED * max(u1 - u0, v1 - v0):
        return extent
    before = missing if on[0] else 0
    if u1 - u0 < v1 - v0:
        return u0 - before, u1 + missing - before, v0, v1
    return u0, u1, v0 - before, v1 + missing - before
