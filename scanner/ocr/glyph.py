"""Cell image -> normalised glyph: the ink near the centre, cropped, squared and resized.

A cell (grayscale uint8, H x W, dark ink on a light background) is flattened
against its own background, thresholded relative to its strongest ink, cleared
of grid-line remnants along its edges, and the connected components near the
centre that make up the glyph are cropped, padded to a square and resized to
``SIDE`` x ``SIDE``. Besides the picture, a few measurements (glyph size and
position relative to the cell, contrast, signal-to-noise) tell a faint speck
from a digit.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..cells import closing, label_type, opencv_alone

#: Side of the normalised glyph picture.
SIDE = 28
#: The glyph's longer side inside the ``SIDE`` square (MNIST-like margin).
INNER = 20
#: Cells are resampled so that their shorter side has this many pixels.
WORK = 48
#: Measurements in ``Glyph.stats`` (in this order).
STATS = ("height", "width", "aspect", "dx", "dy", "contrast", "snr", "fill", "parts", "area")
SQUARE3 = np.ones((3, 3), np.uint8)  #: the 3 x 3 square pictures are widened by a pixel with (made once)


@dataclass(frozen=True)
class Glyph:
    """A normalised glyph: ``image`` SIDE x SIDE float32 ink in 0..1, ``stats`` as in ``STATS``."""

    image: np.ndarray
    stats: np.ndarray
    blank: bool  #: nothing like a mark was found at all


def _inks(cells: np.ndarray) -> np.ndarray:
    """Ink strength 0..1 (N, H, W) float32 of each of ``cells`` (N, H, W) uint8: darkness relative to the local
    background. The closing and the blur are taken on the cells as the channels of one picture (at most
    ``CHANNELS`` at a time): OpenCV filters each channel alone, giving every cell the values it gives the cell
    alone (its pixels are integers, which the box sums hold exactly), for one call's overhead instead of one a
    cell."""
    n, h, w = cells.shape
    k = max(3, (min(h, w) // 3) | 1)
    g = cells.astype(np.float32)
    bg = np.empty_like(g)
    for at in range(0, n, CHANNELS):
        part = np.ascontiguousarray(cells[at:at + CHANNELS].transpose(1, 2, 0))  # (H, W, channels)
        # A closing removes dark strokes thinner than the kernel: what is left is the paper.
        closed = closing(part, k=k).astype(np.float32)
        bg[at:at + CHANNELS] = cv2.blur(closed, (k, k)).reshape(h, w, -1).transpose(2, 0, 1)
    bg = np.maximum(bg, g)
    return (bg - g) / np.maximum(bg, 16.0)


#: the most cells ``_inks`` hands OpenCV as the channels of one picture (OpenCV 5 takes at most 128: a 16 x 16
#: grid's 60 inked cells go in one call)
CHANNELS = 128


def _quantile(a: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``a``: its k-th smallest value, k = q * (size - 1) rounded (no interpolation).
    Taken from a sort: a glyph's ink is mostly exact zeros, on which ``np.partition`` is ten times slower."""
    return _quantiles(a.reshape(1, -1), q)[0]


def _resample(cell: np.ndarray) -> np.ndarray:
    h, w = cell.shape[:2]
    s = WORK / max(1, min(h, w))
    nh, nw = max(8, int(round(h * s))), max(8, int(round(w * s)))
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.resize(cell, (nw, nh), interpolation=interp)


def _line_ink(ink: np.ndarray) -> np.ndarray | None:
    """The part of ``ink`` (H, W, never negative) lying on long straight horizontal or vertical runs (grid-line
    remnants), or None when there is none (``_lines_ink``)."""
    line, found = _lines_ink(ink[None])
    return line[0] if found[0] else None


def _lines_ink(inks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(The part of each of ``inks`` (N, H, W, never negative) lying on long straight horizontal or vertical runs
    (grid-line remnants), (N, H, W) float32; (N,) bool: whether a picture holds any).

    A grayscale opening with a long thin kernel keeps only runs at least that
    long. Near the edges (outer quarter) runs of 55 % of the side count as lines;
    across the middle only runs of 90 %, so that a tall "1" is never taken for one.

    An opening along rows treats each row alone, so it is taken only on the rows it can leave ink on (the
    same values there): those of the band looked at where some window of the erosion may be all ink
    (``_may_hold``); on any other row every window holds a 0, and the opening is 0 (the same along columns).
    A crop is mostly whitened paper (ink 0): most glyphs have few such rows or none. The rows of all the
    pictures are opened together (one OpenCV call for each kernel, instead of one per picture and kernel).
    """
    n, h, w = inks.shape
    inked = inks > 0.0
    out = np.zeros_like(inks)
    for axis in (0, 1):  # runs along the rows, then along the columns (opened as the rows of ``ink`` turned)
        marks = inked if axis == 0 else inked.transpose(0, 2, 1)
        along = out if axis == 0 else out.transpose(0, 2, 1)
        turned = inks if axis == 0 else inks.transpose(0, 2, 1)
        count = marks.sum(axis=2)  # (N, rows): inked pixels along each row
        for frac, band in ((0.55, True), (0.9, False)):
            k = max(3, int(marks.shape[2] * frac))
            pic, row = np.nonzero(_may_hold(marks, count, k, band=marks.shape[1] // 4 if band else None))
            if not len(pic):
                continue
            rows = np.ascontiguousarray(turned[pic, row])  # (the rows to open, of every picture)
            opened = cv2.morphologyEx(rows, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, 1)))
            along[pic, row] = np.maximum(along[pic, row], opened)
    found = out.reshape(n, -1).any(axis=1)
    if found.any():
        # Lines blur into their neighbours: widen by a pixel. (The pictures widened as one, a row of 0 between
        # each and the next: the ink is never negative, so a 0 beside an edge widens nothing, as no pixel does)
        apart = np.zeros((n, h + 1, w), np.float32)
        apart[:, :h] = out
        out = cv2.dilate(apart.reshape(n * (h + 1), w), SQUARE3).reshape(n, h + 1, w)[:, :h]
    return out, found


def _may_hold(inked: np.ndarray, count: np.ndarray, k: int, *, band: int | None = None) -> np.ndarray:
    """(N, rows) bool: the rows of ``inked`` (N, rows, length) bool, holding ``count`` (N, rows) inked pixels each,
    on which an opening by a run of ``k`` pixels may leave ink -- those where some window of its erosion is all
    ink; with ``band`` only among the first and the last ``band`` rows. OpenCV's windows are anchored at the
    kernel's middle (``k // 2``) and cut short by the row's ends: a window is the whole run of ``k`` pixels
    (``count`` at least ``k``), or the first ``k - k // 2`` pixels or more (ink on the first and on the last of
    those), or the last ``k // 2 + 1`` or more (likewise)."""
    rows, length = inked.shape[1:]
    start, end = k - k // 2, k // 2 + 1
    hold = count >= k
    hold |= (count >= start) & inked[:, :, 0] & inked[:, :, start - 1]
    hold |= (count >= end) & inked[:, :, length - 1] & inked[:, :, length - end]
    if band is not None:
        hold[:, band:rows - band] = False
    return hold


def _blank(contrast: float, snr: float, side: int) -> Glyph:
    stats = np.zeros(len(STATS), np.float32)
    stats[STATS.index("contrast")] = contrast
    stats[STATS.index("snr")] = snr
    return Glyph(np.zeros((side, side), np.float32), stats, True)


def normalise(cell: np.ndarray, *, side: int = SIDE, inner: int = INNER) -> Glyph:
    """The glyph in ``cell`` (grayscale uint8, any size) as a ``Glyph`` with a ``side`` x ``side`` image."""
    return _normalised([cell], side=side, inner=inner)[0]


def _normalised(cells: list[np.ndarray], *, side: int, inner: int) -> list[Glyph]:
    """``normalise`` of each of ``cells``: the cells resampled to the same shape (a grid's, mostly) have their ink
    measured together (``_inks``, ``_lines_ink``, ``_levels``), each glyph then found in its own."""
    grays = [cv2.cvtColor(c, cv2.COLOR_BGR2GRAY) if c.ndim == 3 else c for c in cells]
    out: list = [_blank(0.0, 0.0, side) if min(g.shape) < 4 else None for g in grays]
    alike: dict = {}  # resampled shape -> [(index, resampled cell), ...]
    for i, g in enumerate(grays):
        if out[i] is None:
            r = _resample(g)
            alike.setdefault(r.shape, []).append((i, r))
    for group in alike.values():
        inks = _inks(np.stack([r for _, r in group]))
        line, found = _lines_ink(inks)
        inks[found] = np.maximum(inks[found] - line[found], 0.0)
        for (i, _), ink, (peak, med, noise) in zip(group, inks, _levels(inks)):
            out[i] = _glyph(ink, peak, med, noise, side=side, inner=inner)
    return out


def _levels(inks: np.ndarray) -> list[tuple[float, float, float]]:
    """(peak, median, noise) of each of ``inks`` (N, H, W): its core's (2 pixels in from the edges) 0.997
    quantile, its median (``_quantile``) and its pixel noise (a robust sigma from neighbour differences, which
    smooth strokes hardly affect), the values of all the pictures sorted in one call for each."""
    n, h, w = inks.shape
    peaks = _quantiles(inks[:, 2:h - 2, 2:w - 2].reshape(n, -1), 0.997)
    meds = _quantiles(inks.reshape(n, -1), 0.5)
    steps = _quantiles(np.abs(inks[:, :, 1:] - inks[:, :, :-1]).reshape(n, -1), 0.5)
    return [(peak, med, 1.4826 * step / np.sqrt(2.0) + 0.003) for peak, med, step in zip(peaks, meds, steps)]


def _quantiles(rows: np.ndarray, q: float) -> list[float]:
    """``_quantile`` of each of ``rows`` (N, M)."""
    k = min(rows.shape[1] - 1, int(q * (rows.shape[1] - 1) + 0.5))
    return np.sort(rows, axis=1)[:, k].tolist()


def _glyph(ink: np.ndarray, peak: float, med: float, noise: float, *, side: int, inner: int) -> Glyph:
    """The ``Glyph`` found in ``ink`` (H, W float32, line remnants taken out) of its ``_levels``."""
    h, w = ink.shape
    snr = (peak - med) / noise
    if peak < 0.04 or snr < 4.0:
        return _blank(peak, snr, side)
    # Hysteresis: pieces joined above a low threshold, counted by their pixels above a high one,
    # so that a faint or blurred glyph stays in one piece.
    t_hi = max(med + 0.45 * (peak - med), med + 3.0 * noise, 0.04)
    t_lo = max(med + 0.22 * (peak - med), med + 2.5 * noise, 0.03)
    strong = ink > t_hi
    n, labels, st, cent = cv2.connectedComponentsWithStats((ink > t_lo).astype(np.uint8), connectivity=8,
                                                           ltype=label_type(h * w))
    if n <= 1:
        return _blank(peak, snr, side)
    st = st.copy()
    st[:, 4] = np.bincount(labels[strong], minlength=n)
    st, cent = st.tolist(), cent.tolist()  # (plain numbers: the same values, faster one at a time)
    min_area = 0.002 * h * w
    best, best_score = -1, 0.0
    for i in range(1, n):
        x, y, bw, bh, area = st[i]
        if area < min_area:
            continue
        long_, short = max(bw / w, bh / h), min(bw / w, bh / h)
        touches = x == 0 or y == 0 or x + bw >= w or y + bh >= h
        if touches and long_ > 0.45 and short < 0.12:
            continue  # a piece of grid line
        # Prefer big components near the centre: the weight falls to 0.2 at the edge.
        d = max(abs(cent[i][0] / w - 0.5), abs(cent[i][1] / h - 0.5)) * 2
        score = area * (1.0 - 0.8 * min(1.0, max(0.0, d - 0.3) / 0.7))
        if score > best_score:
            best, best_score = i, score
    if best < 0:
        return _blank(peak, snr, side)
    bx, by, bw, bh, _ = st[best]
    gx0, gy0, gx1, gy1 = bx, by, bx + bw, by + bh
    # Other pieces of a broken glyph: inside the main piece's box widened by a third of its height.
    pad = 0.35 * bh
    keep = [best]
    for i in range(1, n):
        if i == best or st[i][4] < min_area * 0.5:
            continue
        x, y, cw, ch, _ = st[i]
        if x >= bx - pad and x + cw <= bx + bw + pad and y >= by - pad and y + ch <= by + bh + pad:
            keep.append(i)
            gx0, gy0 = min(gx0, x), min(gy0, y)
            gx1, gy1 = max(gx1, x + cw), max(gy1, y + ch)
    lut = np.zeros(n, np.uint8)
    lut[keep] = 1
    # the kept pieces widened by a pixel, taken in their box alone (the pieces lie inside it: the same pixels)
    sel = cv2.dilate(lut[labels[gy0:gy1, gx0:gx1]], SQUARE3)
    crop = ink[gy0:gy1, gx0:gx1] * sel
    crop = np.clip((crop - med) / max(peak - med, 1e-3), 0.0, 1.0)
    gh, gw = crop.shape
    big = max(gh, gw)
    square = np.zeros((big, big), np.float32)
    oy, ox = (big - gh) // 2, (big - gw) // 2
    square[oy:oy + gh, ox:ox + gw] = crop
    small = cv2.resize(square, (inner, inner), interpolation=cv2.INTER_AREA if big > inner else cv2.INTER_LINEAR)
    image = np.zeros((side, side), np.float32)
    o = (side - inner) // 2
    image[o:o + inner, o:o + inner] = small
    area = float(sum(st[i][4] for i in keep))
    stats = np.array([
        gh / h, gw / w, gw / max(gh, 1),
        ((gx0 + gx1) / 2 - w / 2) / w, ((gy0 + gy1) / 2 - h / 2) / h,
        peak, snr, area / max(gh * gw, 1), len(keep), area / (h * w),
    ], np.float32)
    return Glyph(image, stats, False)


#: ``encloses_hole``: the glyph's ink is its pixels above one of these (of 0..1): the lower keeps the thin, faint
#: ring of a small 0 closed, the higher a bold 0's hole open in the blur. On 19982 dev Takuzu cells (upright reads
#: of dev16/18/20, big16/18/20, devr) 99.84 % of the 0s enclose paper at one of them and 2 of 10042 1s do; of
#: the 0s of a 16 x 16 read turned (big16 5116026, the ring's side along the cell's edge faded as a line's) 1
#: in 10 closes at 0.15 alone, 9 at 0.05
HOLE_INKS = (0.05, 0.15)
#: ``encloses_hole``: the least paper (pixels of the ``SIDE`` square) the ink must enclose
HOLE_PIXELS = 2


def encloses_hole(glyph: Glyph) -> bool:
    """Whether ``glyph``'s ink encloses paper (a 0, 6, 8, 9 or 4 does; a 1, 2, 3, 5 or 7 does not): at one of
    the ``HOLE_INKS`` levels, at least ``HOLE_PIXELS`` pixels not inked and not reached from the picture's
    edge through other such pixels (4-connected)."""
    if glyph.blank:
        return False
    h, w = glyph.image.shape
    for level in HOLE_INKS:
        # the picture framed by a pixel of paper, so that the fill from a corner reaches every edge pixel (written
        # into a frame of 1s: ``np.pad`` took ~45 us a glyph, four times the fill)
        paper = np.ones((h + 2, w + 2), np.uint8)
        paper[1:-1, 1:-1] = glyph.image <= level
        cv2.floodFill(paper, None, (0, 0), 0, flags=4)
        if cv2.countNonZero(paper) >= HOLE_PIXELS:
            return True
    return False


def normalise_all(cells: list[np.ndarray], *, side: int = SIDE, inner: int = INNER) -> list[Glyph]:
    """``[normalise(cell) for cell in cells]``, OpenCV kept to the calling thread (``cells.opencv_alone``)."""
    with opencv_alone():
        return _normalised(cells, side=side, inner=inner)
