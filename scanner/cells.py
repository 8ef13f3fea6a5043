"""Stage 4, cells: which cells hold ink, the crops handed to the digit reader, and per-cell candidates.

Works on the dewarped grid picture (``rectify.dewarp``): an (n * C, n * C)
grayscale array where cell ``(row, col)`` is the C x C square at
``[row*C:(row+1)*C, col*C:(col+1)*C]``.

Ink is measured against the paper (the picture divided by its own closing, so
shadows cancel); in each cell only connected components near the centre count,
so remnants of the ruled lines along the edges are not mistaken for a digit.
"""
from __future__ import annotations

import math
import threading
from contextlib import contextmanager
import dataclasses
from dataclasses import dataclass

import cv2
import numpy as np

INK_SHARE = 0.45  #: a pixel is ink when darker than the paper by this share of the print's contrast
DIGIT_HEIGHT = 0.28  #: a digit is at least this share of the cell tall
#: A component touching the interior's edge with at least EDGE_SHARE of its pixels in the outer EDGE_BAND of
#: the interior, and its mass off the centre, is a remnant of the ruled lines whatever its outline (a glyph's
#: ink lies mostly inside; a big ring, e.g. a Takuzu circle, has its mass at the centre).
EDGE_BAND, EDGE_SHARE = 0.15, 0.75
WIDE_TRIM = 0.04  #: a trim to look again with at a glyph running into the usual trimmed margin (``retrim``)
DOUBT_BAND = 0.08  #: glyph heights this close to DIGIT_HEIGHT are read anyway, with their doubt kept
#: ``measure``'s faint strokes are darker than the paper by at least this many times its grain (``paper_grain``):
#: on a grainy photo's paper a lower level joins blots of the texture to the glyphs
FAINT_GRAIN = 6.0
#: A glyph beside the central one, as the 1 of a two-digit number, is kept with it when at most this share of
#: the cell away (a narrow 1 centred in its figure's width stands apart: "11" in a tabular font)
PARTNER_GAP = 0.25
#: widest faint stroke ``faint_strokes`` finds, as a share of the cell: a serif letter's thin arm or bar is a
#: tenth of a cell or less; a glyph's stem, at about a fifth and more, is found at the page's ink level anyway
FAINT_STROKE = 0.2
#: A piece of a broken glyph (``_add_fragments``) is at most FRAGMENT_GAP of the cell interior away from the glyph
#: (a pale stroke's breaks are a pixel or two) and at least FRAGMENT_AREA pixels (not a speck of the paper's grain)
FRAGMENT_GAP, FRAGMENT_AREA = 0.08, 4


@dataclass
class CellInk:
    """One cell's ink: ``height`` of the central glyph (its longer extent) as a share of the cell,
    ``p_filled`` 0..1, and ``crop`` (h, w) uint8 (dark on light, line remnants whitened) for the reader, or None
    when plainly empty."""

    height: float
    p_filled: float
    crop: np.ndarray | None
    #: ``crop``'s pixels before the ink away from its glyph was whitened (``measure``'s ``keep_whole``), or None
    whole: np.ndarray | None = None


def _morph(image: np.ndarray, op: int, k: int) -> np.ndarray:
    """``image`` (H, W) under the morphological ``op`` by a k x k square, in its own type. Maxima and minima
    are exact in any type: working on 8-bit pixels and then converting gives the very values working on their
    float32 copy would, several times faster. Other types are worked as float32."""
    image = image if image.dtype == np.uint8 else image.astype(np.float32)
    return cv2.morphologyEx(image, op, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))


def closing(image: np.ndarray, *, k: int) -> np.ndarray:
    """``image`` (H, W) closed by a k x k square (grayscale: dark strokes thinner than it are filled with
    the paper around them), in its own type (``_morph``)."""
    return _morph(image, cv2.MORPH_CLOSE, k)


def erosion(image: np.ndarray, *, k: int) -> np.ndarray:
    """``image`` (H, W) eroded by a k x k square (each pixel the darkest around it), in its own type."""
    return _morph(image, cv2.MORPH_ERODE, k)


def normalise(gray: np.ndarray, *, cell: int) -> np.ndarray:
    """(H, W) float32: ``gray`` divided by the paper brightness around each pixel (1 = paper, ~0 = black ink)."""
    k = max(3, (cell // 2) | 1)
    paper = cv2.blur(closing(gray, k=k).astype(np.float32), (k, k))
    out = np.divide(gray, np.maximum(paper, 1.0, out=paper), dtype=np.float32)  # (worked in place: same values)
    return np.clip(out, 0.0, 1.0, out=out)


def ink_level(norm: np.ndarray) -> float:
    """The brightness (share of paper) below which a pixel of ``norm`` (H, W) counts as ink: part way from the
    paper (1) to the darkest print (the ruled lines and digits, a low percentile)."""
    return level_below(dark_print(norm))


def dark_print(norm: np.ndarray) -> float:
    """The darkest print of ``norm`` (H, W) float32, finite: ``float(np.percentile(norm, 1.5))`` (numpy's linear
    method), taken from the darkest pixels alone: those no lighter than the 8th percentile of every 7th row and
    column (a few per cent of the picture; the whole is taken when they are too few). The two order statistics
    around the 1.5 % point and numpy's interpolation between them (its ``_lerp``, in the picture's type) give
    the very float ``np.percentile`` gives, without ordering the whole picture."""
    flat = norm.ravel()
    count = flat.size
    virtual = (count - 1) * (1.5 / 100)
    lo = int(np.floor(virtual))
    if norm.ndim != 2 or flat.dtype != np.float32 or count < 4096:
        return float(np.percentile(norm, 1.5))
    darkest = flat[flat <= float(np.percentile(norm[::7, ::7], 8.0))]
    if len(darkest) < lo + 2:
        return float(np.percentile(norm, 1.5))
    ordered = np.partition(darkest, [lo, lo + 1])
    a, b = ordered[lo], ordered[lo + 1]
    gamma = virtual - lo
    step = b - a
    return float(b - step * (1.0 - gamma) if gamma >= 0.5 else a + step * gamma)


def level_below(dark: float) -> float:
    """``ink_level`` of a picture whose darkest print (the 1.5th percentile) is ``dark``."""
    return 1.0 - INK_SHARE * max(1.0 - dark, 0.15)


def _add_partners(keep: np.ndarray, stats: np.ndarray, size: int) -> None:
    """Mark in ``keep`` (per component) the glyphs standing beside the kept ones, as the two digits of "13"
    do: as tall (at least 0.6 of the kept glyph), on the same rows, at most PARTNER_GAP of the cell away, and
    no ruled-line remnant (not nearly as long as the cell) -- or, when the kept glyph lies on its side (wider
    than tall: the photo is turned a quarter), the same turned: as wide, in the same columns, above or below
    (the cells are measured before the reading turns them, and a turned page's "13" stands one digit over the
    other; its "1" was left out, and the 13 read as a sure 3)."""
    kept = np.nonzero(keep)[0]
    x0, y0 = stats[kept, 0].min(), stats[kept, 1].min()
    x1 = (stats[kept, 0] + stats[kept, 2]).max()
    y1 = (stats[kept, 1] + stats[kept, 3]).max()
    on_side = _on_side(stats, kept)
    listed = stats.tolist()  # (plain numbers: the same values, faster one at a time)
    for i in range(1, len(keep)):
        x, y, w, h, _ = listed[i]
        if keep[i] or h > 0.8 * size or w > 0.8 * size:
            continue
        if h >= 0.6 * (y1 - y0):
            overlap = min(y + h, y1) - max(y, y0)
            gap = max(x0 - (x + w), x - x1)
            if overlap >= 0.7 * min(h, y1 - y0) and gap <= PARTNER_GAP * size:
                keep[i] = True
                continue
        if on_side and w >= 0.6 * (x1 - x0):  # the kept glyph lies on its side: a turned page
            overlap = min(x + w, x1) - max(x, x0)
            gap = max(y0 - (y + h), y - y1)
            if overlap >= 0.7 * min(w, x1 - x0) and gap <= PARTNER_GAP * size:
                keep[i] = True


def _on_side(stats: np.ndarray, kept: np.ndarray) -> bool:
    """Whether the largest of the ``kept`` components (``stats`` rows, OpenCV's x, y, w, h, area) is wider
    than tall: a glyph lying on its side (a page turned a quarter). Judged on one glyph, not the box around
    all kept: an upright "13" side by side is wider than tall."""
    largest = kept[int(stats[kept, 4].argmax())]
    return bool(stats[largest, 2] > stats[largest, 3])


def _add_fragments(keep: np.ndarray, labels: np.ndarray, stats: np.ndarray, size: int) -> None:
    """Mark in ``keep`` (per component) the pieces of a broken glyph beside the kept ones: components of at
    least FRAGMENT_AREA pixels, within FRAGMENT_GAP of the interior's side of the kept ink (or of a piece so
    added), on the kept glyph's rows (a pixel's slack) and no nearer the interior's left or right edge than
    EDGE_BAND -- turned a quarter when the glyph lies on its side (``_on_side``: the cells are measured before
    the reading turns them): on its columns, and away from the top and bottom edge. A thin stroke printed pale (a
    condensed 7's bar in a shaded cell) breaks into pieces at the ink level; those off the cell's centre were
    dropped, and the crop kept a stem with half a bar, read as a sure 1. A ruled line's remnant lies above or below
    the glyph, or along the left or right edge: not joined."""
    listed = stats.tolist()
    kept = np.flatnonzero(keep)
    # along: the kept glyph's rows, across: the interior's left and right edge (turned a quarter when the
    # glyph lies on its side: its columns, and the top and bottom edge)
    along, across = (0, 1) if _on_side(stats, kept) else (1, 0)
    first, last = stats[kept, along].min() - 1, (stats[kept, along] + stats[kept, along + 2]).max() + 1
    band = max(1, round(EDGE_BAND * size))
    loose = [i for i in range(1, len(keep)) if not keep[i] and listed[i][4] >= FRAGMENT_AREA
             and listed[i][along] >= first and listed[i][along] + listed[i][along + 2] <= last
             and listed[i][across] >= band and listed[i][across] + listed[i][across + 2] <= size - band]
    if not loose:
        return
    k = 2 * max(1, round(FRAGMENT_GAP * size)) + 1
    kernel = np.ones((k, k), np.uint8)
    while loose:
        near = cv2.dilate(keep[labels].astype(np.uint8), kernel).astype(bool)
        joined = [i for i in loose if near[labels == i].any()]
        if not joined:
            return
        keep[joined] = True
        loose = [i for i in loose if i not in joined]


def _without_line_remnants(ink: np.ndarray) -> np.ndarray:
    """A copy of a cell interior's ``ink`` (C', C') bool without the straight remnants of the ruled lines: the
    columns (then rows) within the interior's outer EDGE_BAND that are ink along 90 % of the side."""
    size = ink.shape[0]
    band = np.zeros(size, bool)
    band[:max(1, round(EDGE_BAND * size))] = True
    band[size - max(1, round(EDGE_BAND * size)):] = True
    out = ink.copy()
    clear_line_remnants(out, cols=band, rows=band)
    return out


def clear_line_remnants(ink: np.ndarray, *, cols: np.ndarray, rows: np.ndarray) -> None:
    """Clear, in place, the straight remnants of ruled lines from ``ink`` (h, w) bool: the columns marked in
    ``cols`` (w,) bool that are ink along 90 % of the height, then (those cleared) the rows marked in ``rows``
    (h,) bool that are ink along 90 % of the width -- even where two lines meet. Counted in whole pixels
    (10 x count >= 9 x side)."""
    h, w = ink.shape
    ink[:, cols & (10 * ink.sum(axis=0) >= 9 * h)] = False  # (a bool sum: the count, a little faster)
    ink[rows & (10 * ink.sum(axis=1) >= 9 * w), :] = False


def _central_glyph(ink: np.ndarray, *, pairs: bool = False, least: float = 0.0,
                   looked: bool = False) -> tuple[np.ndarray, float]:
    """The mask (C', C') of components that belong to a glyph near the centre of a cell interior ``ink``
    (bool), and the glyph's size as a share of the interior: its longer extent, so a turned photo's glyphs
    (a "1" lying on its side) measure as they would upright. ``pairs``: a glyph may have a partner beside it
    (two-digit numbers), kept too although it lies off the centre. ``least``: a glyph shorter than this is
    not wanted -- none is returned (and the components are not weighed when all the ink is shorter).
    ``looked``: ``ink`` has been looked at so already (``_interiors``: it holds ink, without the line
    remnants when ``pairs``, that may reach ``least``)."""
    size = ink.shape[0]
    if not looked:
        if not ink.any():  # plain paper (most empty cells): no component to weigh
            return np.zeros_like(ink, dtype=bool), 0.0
        if pairs:  # a glyph beside the line (the 1 of a two-digit number) would be one component with its remnant
            ink = _without_line_remnants(ink)
        if least > 0.0 and _extent(ink) < least:  # the glyph is part of this ink: as short or shorter
            return np.zeros_like(ink, dtype=bool), 0.0
    count, labels, stats, cents = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8,
                                                                   ltype=label_type(ink.size))
    keep = np.zeros(count, bool)
    band = max(1, round(EDGE_BAND * size))
    border = None  # the cell's outer band (made when first needed)
    listed, centres = stats.tolist(), cents.tolist()  # (plain numbers: the same values, faster one at a time)
    for i in range(1, count):
        x, y, w, h, area = listed[i]
        cx, cy = x + w / 2, y + h / 2
        touches = x == 0 or y == 0 or x + w == size or y + h == size
        near_edge = min(x, y, size - x - w, size - y - h) < 0.12 * size
        long_thin = near_edge and max(w, h) > 0.8 * size and min(w, h) < 0.15 * size  # a ruled-line remnant
        if long_thin or area < max(3, 0.004 * size * size):
            continue
        if touches and (min(w, h) < 0.12 * size or abs(cx - size / 2) > 0.3 * size or abs(cy - size / 2) > 0.3 * size):
            continue
        if abs(cx - size / 2) > 0.3 * size or abs(cy - size / 2) > 0.3 * size:
            continue
        off_centre = max(abs(centres[i][0] - size / 2), abs(centres[i][1] - size / 2)) > 0.12 * size  # not a ring
        if touches and off_centre:
            if border is None:
                border = np.ones(ink.shape, bool)
                border[band:-band, band:-band] = False
            if border[y:y + h, x:x + w][labels[y:y + h, x:x + w] == i].mean() >= EDGE_SHARE:
                continue  # ruled lines meeting in a corner of the cell (an L), or a line bent by the paper
        keep[i] = True
    if not keep.any():
        return np.zeros_like(ink, dtype=bool), 0.0
    if pairs:
        _add_partners(keep, stats, size)
    if count > 2 and not keep[1:].all():
        _add_fragments(keep, labels, stats, size)
    mask = keep[labels]
    height = _extent(mask)
    return (mask, height) if height >= least else (np.zeros_like(ink, dtype=bool), 0.0)


def paper_grain(norm: np.ndarray, level: float) -> float:
    """The paper's grain in ``norm`` (``normalise``'s picture): the robust spread (1.4826 x median absolute
    value) of its fine detail (the picture less its 5 x 5 median) over the pixels lighter than ``level``, taken
    on every third row and column (a spread of hundreds of thousands of pixels needs no more)."""
    detail = (norm - cv2.medianBlur(norm, 5))[::3, ::3]
    paper = norm[::3, ::3] > level
    return 1.4826 * float(np.median(np.abs(detail[paper]))) if paper.any() else 0.0


def faint_strokes(norm: np.ndarray, *, cell: int, share: float, floor: float) -> np.ndarray:
    """(H, W) bool: the thin dark strokes of ``norm`` (``normalise``'s picture of a grid of ``cell`` px cells),
    however pale: pixels darker than their surroundings once strokes up to FAINT_STROKE of a cell wide are
    closed away, by more than ``share`` (of the paper) and ``floor`` (the paper's grain). A blurred glyph's soft
    edge is no stroke (it only slopes down to the paper), the arms of an E are."""
    return (closing(norm, k=int(FAINT_STROKE * cell) | 1) - norm) > max(share, floor)


def _with_faint(mask: np.ndarray, ink: np.ndarray, faint: np.ndarray) -> np.ndarray:
    """``mask`` (the glyph's components at the page's ink level) with the faint strokes joined to it: the
    components of ``faint`` (``faint_strokes``) that hold some of the glyph, but not the ink of
    the components the glyph left out (a ruled line's remnant, a neighbour's piece)."""
    grown = faint & (mask | ~ink)
    count, labels = cv2.connectedComponents(grown.astype(np.uint8), connectivity=8, ltype=label_type(grown.size))
    if count <= 1:
        return mask
    held = np.zeros(count, bool)
    held[labels[mask]] = True
    held[0] = False
    return held[labels] | mask


def _extent(ink: np.ndarray) -> float:
    """The longer extent of all the ink in a cell interior ``ink`` (C', C') bool as a share of its side: a glyph's
    height (``_central_glyph``), and for any ink a bound on the height of a glyph made of part of it."""
    rows = np.flatnonzero(ink.any(axis=1))
    if not len(rows):
        return 0.0
    cols = np.flatnonzero(ink.any(axis=0))
    return float(max(rows[-1] - rows[0], cols[-1] - cols[0]) + 1) / ink.shape[0]


def label_type(pixels: int) -> int:
    """The type of the labels OpenCV's connected components give a picture of ``pixels`` pixels: 16 bits when
    they hold any count of components it can have (8-connected, at most one for every two pixels, as on a
    single row), which OpenCV labels about twice as fast as in 32 bits (the same labels, statistics and
    centroids) -- the pictures of a cell or a glyph -- else 32."""
    return cv2.CV_16U if pixels < 2 * 65000 else cv2.CV_32S


def _touches_edge(mask: np.ndarray) -> bool:
    return bool(mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


_threads_lock = threading.Lock()


@contextmanager
def opencv_alone():
    """OpenCV kept to the calling thread (``cv2.setNumThreads(1)``) inside the block; as before after it.

    For runs of many calls on small pictures (a grid's cells or glyphs): OpenCV shares out even a 48 x 48
    labelling between its threads, and its helper thread then spins waiting for more work -- CPU burnt
    beside the calling thread, which runs slower for the hand-offs (the glyphs of seven 16x16 grids: 630 ->
    570 ms, and 1040 -> 570 ms of process CPU). The results are the same (OpenCV labels alike either way)."""
    with _threads_lock:
        before = cv2.getNumThreads()
        if before > 1:
            cv2.setNumThreads(1)
    try:
        yield
    finally:
        if before > 1:
            with _threads_lock:
                cv2.setNumThreads(before)


def _interiors(ink: np.ndarray, n: int, *, cell: int, cut: int, pairs: bool,
               least: list[list[float]] | None) -> tuple[np.ndarray, list[tuple[int, int]]] | None:
    """The cell interiors of ``ink`` (n * cell, n * cell) bool, ``cut`` pixels off each side, all at once: an
    (n, n, C', C') bool copy -- without the straight line remnants (``_without_line_remnants``) when
    ``pairs`` -- and the cells (row, col) ``_central_glyph`` is to look into: those holding ink, whose extent
    (``_extent``) reaches their ``least``. The same counts and extents as cell by cell, in a few operations
    on the whole grid (most cells hold nothing, or nothing tall enough on a second look). None when ``ink``
    is not n cells of ``cell`` pixels a side."""
    size = cell - 2 * cut
    if ink.shape != (n * cell, n * cell) or size < 1:
        return None
    inner = np.ascontiguousarray(ink.reshape(n, cell, n, cell)[:, cut:cell - cut, :, cut:cell - cut].transpose(0, 2, 1, 3))
    if pairs:
        band = np.zeros(size, bool)
        band[:max(1, round(EDGE_BAND * size))] = True
        band[size - max(1, round(EDGE_BAND * size)):] = True
        # the columns (then, those cleared, the rows) of the band that are ink along 90 % of the side
        inner &= ~(band & (10 * inner.sum(axis=2) >= 9 * size))[:, :, None, :]
        inner &= ~(band & (10 * inner.sum(axis=3) >= 9 * size))[:, :, :, None]
    rows, cols = inner.any(axis=3), inner.any(axis=2)  # (n, n, C') each
    held = rows.any(axis=2)
    if least is not None:
        first_row, last_row = rows.argmax(axis=2), size - 1 - rows[:, :, ::-1].argmax(axis=2)
        first_col, last_col = cols.argmax(axis=2), size - 1 - cols[:, :, ::-1].argmax(axis=2)
        extent = (np.maximum(last_row - first_row, last_col - first_col) + 1) / size
        wanted = np.array(least, float)
        held &= ~((wanted > 0.0) & (extent < wanted))
    return inner, [(r, c) for r, c in zip(*(i.tolist() for i in np.nonzero(held)))]


def measure(gray: np.ndarray, n: int, *, cell: int, trim: float = 0.1, pairs: bool = False,
            retrim: float | None = None, halo: int = 3, faint: float | None = None,
            least: list[list[float]] | None = None, keep_whole: bool = False,
            plain: dict | None = None, look=None) -> list[list[CellInk]]:
    """Ink per cell of the dewarped grid ``gray`` (n * cell, n * cell): an n x n list of ``CellInk``.

    ``trim`` is the share of the cell cut off each side before looking (the ruled lines live there);
    ``pairs``: cells may print two glyphs side by side (Sudoku 16x16 numbers 10..16); ``retrim`` (e.g.
    ``WIDE_TRIM``): a glyph running into the trimmed-off margin is looked at again with only this trimmed;
    ``halo``: a crop keeps the pixels within a ``halo`` x ``halo`` square of its glyph's ink (the rest white);
    ``faint`` (a share of the print's contrast): that ink also takes in the thin strokes joined to the glyph that
    are darker than their surroundings by this much (``faint_strokes``; the glyph's height is measured without);
    ``least`` (n x n): a caller wants only glyphs at least this tall (``height``) -- a cell whose glyph is
    shorter is measured as empty (height 0, no crop), and one whose ink cannot reach it is not looked into;
    ``keep_whole``: each crop's pixels before the whitening are kept too (``CellInk.whole``);
    ``plain`` (a dict): the crop (and whole, with ``keep_whole``) each cell looked at again with less trimmed
    (``retrim``) would have had without ``retrim`` is put in it by (row, col) -- ``without_retrim`` then gives
    what ``measure`` gives without ``retrim``, measured once;
    ``look(inked, crops_of)``: a look at the ink before the crops are built -- ``inked`` the cells (row, col) that
    get one, row by row, ``crops_of(cells)`` the crops of some of them (built once: the very arrays returned); it
    may raise to stop the measure (a screen giving the grid up on a sample of its glyphs pays for those alone).
    """
    norm = normalise(gray, cell=cell)
    dark = dark_print(norm)
    ink = norm < level_below(dark)  # ink_level(norm)
    cut = max(1, round(trim * cell))
    wide_cut = max(1, round(retrim * cell)) if retrim is not None else cut
    glyphs: dict[tuple[int, int], np.ndarray] = {}  # the central glyph's mask in the cells whose crop is built
    heights = [[0.0] * n for _ in range(n)]
    interiors = _interiors(ink, n, cell=cell, cut=cut, pairs=pairs, least=least)
    todo = interiors[1] if interiors is not None else [(r, c) for r in range(n) for c in range(n)]
    with opencv_alone():  # many small pictures
        for r, c in todo:
            if interiors is not None:
                inside = interiors[0][r, c]
            else:  # (not n cells of ``cell`` a side: cell by cell)
                inside = ink[r * cell + cut:(r + 1) * cell - cut, c * cell + cut:(c + 1) * cell - cut]
            mask, height = _central_glyph(inside, pairs=pairs, least=0.0 if least is None else least[r][c],
                                          looked=interiors is not None)
            heights[r][c] = height
            if height >= DIGIT_HEIGHT - DOUBT_BAND:
                glyphs[r, c] = mask
    built: dict[tuple[int, int], tuple] = {}  # (crop, whole) of the glyph cells whose crop is built so far
    if glyphs:
        def stretched(y0, x0, y1, x1):  # the print stretched to 0..255 over (y0, x0)..(y1, x1), uint8
            # (norm - dark) / span clipped to 0..1, x 255 (in place: same values), worked on the crop's pixels
            # alone (pixel by pixel, the same values): a grid given up on a sample (``look``) stretches no more
            out = np.divide(norm[y0:y1, x0:x1] - dark, max(1.0 - dark, 0.1))
            return np.multiply(np.clip(out, 0.0, 1.0, out=out), 255, out=out).astype(np.uint8)

        strokes = None
        if faint is not None:
            strokes = faint_strokes(norm, cell=cell, share=faint * max(1.0 - dark, 0.15),
                                    floor=FAINT_GRAIN * paper_grain(norm, level_below(dark)))
        def crop(mask, y0, x0, y1, x1):  # (the crop, its pixels before the whitening)
            patch = stretched(y0, x0, y1, x1)
            whole = patch.copy() if keep_whole else None
            if strokes is not None:
                mask = _with_faint(mask, ink[y0:y1, x0:x1], strokes[y0:y1, x0:x1])
            patch[~cv2.dilate(mask.astype(np.uint8), np.ones((halo, halo), np.uint8)).astype(bool)] = 255
            return patch, whole

        def build(r, c):  # (the cell's crop, its whole): each cell's alone, in any order
            mask = glyphs[r, c]
            box = (r * cell + cut, c * cell + cut, (r + 1) * cell - cut, (c + 1) * cell - cut)
            if _touches_edge(mask) and cut > wide_cut:
                # the glyph runs into the trimmed-off margin (a tall digit, a mesh a little off): look again
                # with less trimmed, and take that when the glyph is whole there
                wy0, wx0 = r * cell + wide_cut, c * cell + wide_cut
                wy1, wx1 = (r + 1) * cell - wide_cut, (c + 1) * cell - wide_cut
                wide, _ = _central_glyph(ink[wy0:wy1, wx0:wx1], pairs=pairs)
                if wide.any() and not _touches_edge(wide):
                    if plain is not None:
                        plain[r, c] = crop(mask, *box)
                    mask, box = wide, (wy0, wx0, wy1, wx1)
            return crop(mask, *box)

    def crops_of(cells: list[tuple[int, int]]) -> list[np.ndarray]:
        """The crops of ``cells`` (glyph cells (row, col)), each built once (the very arrays returned)."""
        with opencv_alone():
            for r, c in cells:
                if (r, c) not in built:
                    built[r, c] = build(r, c)
        return [built[rc][0] for rc in cells]

    if look is not None:
        look(list(glyphs), crops_of)
    crops_of(list(glyphs))
    return [[CellInk(height=h, p_filled=1.0 / (1.0 + math.exp(-(h - DIGIT_HEIGHT) / 0.025)),
                     crop=built[r, c][0] if (r, c) in built else None,
                     whole=built[r, c][1] if (r, c) in built else None)
             for c, h in enumerate(row)] for r, row in enumerate(heights)]


def without_retrim(inks: list[list[CellInk]], plain: dict) -> list[list[CellInk]]:
    """``inks`` (``measure``'s with ``retrim``) with the crops (and wholes) ``plain`` (its ``plain``) put back:
    ``measure``'s without ``retrim`` (the glyphs' heights do not depend on it)."""
    return [[dataclasses.replace(ink, crop=plain[r, c][0], whole=plain[r, c][1]) if (r, c) in plain else ink
             for c, ink in enumerate(row)] for r, row in enumerate(inks)]


Candidates = list[tuple[int | None, float]]  #: (value or None for empty, probability), best first


def combine(ink: CellInk, read: list[tuple[str, float]] | None, *, alphabet: str,
            values: tuple | None = None, renormalise: bool = True, dot_trust: float = 1.0) -> Candidates:
    """A cell's candidates from its ink and the reader's labels (``"."`` = nothing), best first.

    Label ``alphabet[i]`` means the value ``values[i]`` (default ``i + 1``); other labels are ignored and
    (when ``renormalise``) the rest renormalised -- without it the mass the reader gave symbols outside the
    alphabet is lost, so a glyph that is none of the puzzle's symbols reads as unlikely; "empty" gets the
    ink's doubt plus what the reader gave ``"."``, of which only the share ``dot_trust`` is believed when
    the ink shows a glyph (the rest goes to the symbols in proportion: a reader may take a plain thin
    glyph, a "1", for a stray mark, while the ink has measured a glyph of digit height in the cell centre).
    """
    values = values or tuple(range(1, len(alphabet) + 1))
    if read and dot_trust < 1.0:
        dot = sum(p for label, p in read if label == ".")
        symbols = sum(p for label, p in read if label in alphabet)
        if dot > 0 and symbols > 0:
            moved = dot * (1.0 - dot_trust)
            read = [(label, p * dot_trust if label == "." else p + moved * p / symbols if label in alphabet else p)
                    for label, p in read]
    p_empty = 1.0 - ink.p_filled
    scores: dict[int | None, float] = {None: p_empty}
    if read:
        total = (sum(p for label, p in read if label in alphabet or label == ".") or 1.0) if renormalise else 1.0
        for label, p in read:
            share = ink.p_filled * p / total
            if label == ".":
                scores[None] += share
            elif label and label in alphabet:
                value = values[alphabet.index(label)]
                scores[value] = scores.get(value, 0.0) + share
    else:
        scores[None] = 1.0
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return [(v, max(p, 1e-6)) for v, p in ranked]
