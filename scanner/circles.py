"""Circle symbols in grid cells (Takuzu's black and white circles): the shape of each cell's mark, measured.

Works on the dewarped grid picture (``rectify.dewarp``, (n * C, n * C) gray): ``darkness`` normalises it
against the paper over a window wider than a cell (so a filled disc stays dark to its middle, which a
cell-sized window would take for paper) and ``mark`` measures one cell's interior of it.
A mark is *round* when its bounding box is about square and it spans most of
the cell (a printed ``0`` is clearly taller than wide, a ``1`` narrow); a round
mark is a *black* circle when its core is ink and a *white* one when its core
is paper inside a ring of ink.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import cv2

INK = 0.5  #: darkness above which a pixel is the mark
ROUND_ASPECT = (0.8, 1.25)  #: width / height of a round mark
ROUND_SPAN = 0.5  #: a round mark spans at least this share of the crop (circles are printed 55-80 % of a cell)
CIRCLE_SHARE = 0.75  #: share of a grid's marks that must be round for the grid to be read as circles
#: ... and most of them this square (the median of each mark's longer side over its shorter): printed circles are
#: square within a few per cent once dewarped, a bold print's 0s round enough to count as round are not. Dev d11 and
#: d13 (263 grids): circle grids' medians 1.0 .. 1.07; a 6 x 6 print in a bold serif, six 0s and two 1s, read
#: as black circles at 1.235 (the other digit grids 1.24 and up)
SQUARE_MARKS = 1.15


@dataclass(frozen=True)
class Extent:
    """A cell's mark's bounding box: ``width`` and ``height`` as shares of the crop side (``extent``); all
    ``is_circle_grid`` looks at."""

    width: float
    height: float

    @property
    def round(self) -> bool:
        lo, hi = ROUND_ASPECT
        return (lo <= self.width / max(self.height, 1e-9) <= hi
                and min(self.width, self.height) >= ROUND_SPAN)


@dataclass(frozen=True)
class Mark(Extent):
    """A cell's mark: its ``Extent`` (``width``, ``height``), ``core`` the mean darkness (0 paper .. 1 ink) of
    its middle (a disc of 40 % of its radius) and ``rim`` the darkness of the ring of ink around it."""

    core: float
    rim: float


ANGLES = 48  #: directions the radial profile is sampled in


def darkness(gray: np.ndarray, *, cell: int) -> np.ndarray:
    """(H, W) float32 in 0 (paper) .. 1 (the darkest print) of a dewarped grid picture ``gray`` (H, W) uint8,
    against the paper brightness over a window of 1.5 cells."""
    g = gray.astype(np.float32)
    k = int(1.5 * cell) | 1
    # closed in uint8 when given so (a max then a min over the window: the same levels as closing the float
    # copy, each exact in float32), a quarter of the float closing's time (1.9 against 7 ms on a 20 x 20 grid)
    closed = cv2.morphologyEx(gray if gray.dtype == np.uint8 else g, cv2.MORPH_CLOSE,
                              cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    paper = cv2.blur(closed.astype(np.float32, copy=False), (k, k))
    norm = np.clip(g / np.maximum(paper, 1.0), 0.0, 1.0)
    dark = float(np.percentile(norm, 1.5))
    return np.clip((1.0 - norm) / max(1.0 - dark, 0.1), 0.0, 1.0)


def cell_interior(dark: np.ndarray, row: int, col: int, *, cell: int, trim: float = 0.1) -> np.ndarray:
    """The interior (C', C') of cell (row, col) of a ``darkness`` picture, ``trim`` of the cell cut off each side."""
    cut = max(1, round(trim * cell))
    return dark[row * cell + cut:(row + 1) * cell - cut, col * cell + cut:(col + 1) * cell - cut]


def radial_profile(dark: np.ndarray, *, centre: tuple[float, float] | None = None) -> np.ndarray:
    """(R,) darkness of a cell interior ``dark`` (h, w) (0 paper .. 1 ink) at radii 0, 1, ... pixels from ``centre``
    (row, col; default the ink's centroid away from the crop's border), the median over ``ANGLES``
    directions: a ring or a disc around the centre darkens every direction, a digit or a line remnant a few."""
    h, w = dark.shape
    if centre is None:
        band = max(1, round(0.08 * min(h, w)))
        inner = dark[band:h - band, band:w - band]
        weight = inner.sum()
        if weight > 1e-6:
            yy, xx = np.mgrid[band:h - band, band:w - band]
            centre = (float((yy * inner).sum() / weight), float((xx * inner).sum() / weight))
        else:
            centre = ((h - 1) / 2.0, (w - 1) / 2.0)
    cy, cx = centre
    radii = np.arange(0, max(h, w) // 2 + 1, dtype=np.float32)
    theta = np.linspace(0, 2 * np.pi, ANGLES, endpoint=False, dtype=np.float32)
    ys = np.clip(np.round(cy + radii[:, None] * np.sin(theta)[None, :]).astype(int), 0, h - 1)
    xs = np.clip(np.round(cx + radii[:, None] * np.cos(theta)[None, :]).astype(int), 0, w - 1)
    return np.median(dark[ys, xs], axis=1)


def mark(crop: np.ndarray, dark: np.ndarray) -> Mark | None:
    """The ``Mark`` of a cell: its extent from ``crop`` (h, w) uint8 (``scanner.cells.CellInk.crop``: the
    central mark alone, dark on white), its core and rim from the radial profile of its interior ``dark``
    (h, w) (``cell_interior``; same pixels) around the mark's centre. None when the crop holds no ink.

    The rim is the darkest radius (inked in every direction when the mark is a circle), the core the
    mean darkness inside 40 % of the mark's radius."""
    box = _ink_box(crop)
    if box is None:
        return None
    y0, y1, x0, x1 = box
    return _mark_of(crop, box, radial_profile(dark, centre=((y0 + y1 - 1) / 2.0, (x0 + x1 - 1) / 2.0)))


def _mark_of(crop: np.ndarray, box: tuple[int, int, int, int], profile: np.ndarray) -> Mark:
    """The ``Mark`` of ``crop`` whose ink spans ``box`` (``_ink_box``), from the radial ``profile`` (R,) of its
    interior about the box's centre: the rim the darkest radius, the core the mean inside 40 % of the radius."""
    y0, y1, x0, x1 = box
    side = float(max(crop.shape))
    radius = max((y1 - y0) + (x1 - x0), 2) / 4.0
    rim = float(profile[: int(radius * 1.15) + 1].max())
    core = float(profile[: max(1, int(0.4 * radius) + 1)].mean())
    return Mark(width=(x1 - x0) / side, height=(y1 - y0) / side, core=core, rim=rim)


def marks(crops: list[np.ndarray], darks: list[np.ndarray]) -> list[Mark | None]:
    """``[mark(crop, dark) for crop, dark in zip(crops, darks)]``, the radial profiles of all the cells gathered
    and their medians taken at once when the interiors ``darks`` share one shape (a grid's cells do): the same
    indices, values and medians, row by row."""
    boxes = [_ink_box(crop) for crop in crops]
    todo = [i for i, box in enumerate(boxes) if box is not None]
    if len({darks[i].shape for i in todo}) != 1:
        return [mark(crop, dark) for crop, dark in zip(crops, darks)]
    h, w = darks[todo[0]].shape
    stack = np.stack([darks[i] for i in todo])  # (k, h, w)
    # each cell's centre as ``mark`` takes it (float64 of the box's whole-numbered bounds)
    cy = np.array([(boxes[i][0] + boxes[i][1] - 1) / 2.0 for i in todo], np.float64)[:, None, None]
    cx = np.array([(boxes[i][2] + boxes[i][3] - 1) / 2.0 for i in todo], np.float64)[:, None, None]
    radii = np.arange(0, max(h, w) // 2 + 1, dtype=np.float32)
    theta = np.linspace(0, 2 * np.pi, ANGLES, endpoint=False, dtype=np.float32)
    ys = np.clip(np.round(cy + (radii[:, None] * np.sin(theta)[None, :])[None]).astype(int), 0, h - 1)
    xs = np.clip(np.round(cx + (radii[:, None] * np.cos(theta)[None, :])[None]).astype(int), 0, w - 1)
    profiles = np.median(stack[np.arange(len(todo))[:, None, None], ys, xs], axis=2)  # (k, R)
    out: list[Mark | None] = [None] * len(crops)
    for profile, i in zip(profiles, todo):
        out[i] = _mark_of(crops[i], boxes[i], profile)
    return out


def extent(crop: np.ndarray) -> Extent | None:
    """The ``Extent`` of a cell's mark in ``crop`` (as ``mark``'s: its ``width`` and ``height``), None when the
    crop holds no ink -- without the radial profile, which a grid of digits never needs."""
    box = _ink_box(crop)
    if box is None:
        return None
    y0, y1, x0, x1 = box
    side = float(max(crop.shape))
    return Extent(width=(x1 - x0) / side, height=(y1 - y0) / side)


def _ink_box(crop: np.ndarray) -> tuple[int, int, int, int] | None:
    """(y0, y1, x0, x1) bounding the ink (darker than 128) of ``crop`` (h, w) uint8, None when there is none."""
    ys, xs = np.nonzero(crop < 128)
    if len(ys) == 0:
        return None
    return ys.min(), ys.max() + 1, xs.min(), xs.max() + 1


RING_REACH = (0.2, 0.45)  #: radii (shares of a cell) a circle's ring is looked for at about a cell's centre
RING_MIDDLE = 0.12  #: radius (share of a cell) of a cell's middle, paper inside a white circle
#: a cell is even odds a white circle when its ring stands out this many spreads above the grid's paper cells
#: (``ring_probabilities``: its ring contrast against the paper cells' median, over their robust spread), and the
#: logistic scale. On 160 generated circle grids (tk dev, dev16/18/20, takuzu dev / big, synth300; misfound grids
#: left out) empty cells reached 7.5 (99.99 % below 6.2), white circles the ink measure missed (thin, faint, in
#: glare, or wider than the trimmed cell) 11.0 and up. An absolute contrast could not tell them apart: thick or
#: blurred ruled lines darken every cell's outer radii (a blurred 20 x 20 print's empty cells 0.11..0.17, its white
#: circles 0.20..0.24, where the threshold was 0.26). With the larger of two counts (``ring_contrasts``: the ring at
#: one radius, or found per direction), on 393 circle grids (tk dev/16/18/20, takuzu dev / big, turn nat, synth300,
#: the three retired held-outs, seeds 880000..882029) empty cells reach 7.8 (99.9 % below 4.4) and white circles
#: 10.9 and up, where the ring at one radius alone let white circles fall to 8.0 (an 18 x 18 photo's thin grey
#: rings, drawn a little oval: four read as empty) and the ring per direction alone to 1.7 (a 14 x 14 print's faint
#: rings in glare on grainy paper)
RING_SPREADS, RING_SPREAD_SCALE = 9.5, 1.2
RING_SPREAD_FLOOR = 0.005  #: least spread of the paper cells' ring contrast (a clean print's is near 0)
DISC_CORE, DISC_OUTSIDE = 0.2, 0.42  #: a black disc's core and the paper outside it (radii, shares of a cell)
#: disc contrast (``disc_contrast``) at even odds of a black circle, and the scale: on the same grids empty cells
#: reach 0.075 (shading darkens core and outside alike), white circles 0.12, black discs the ink measure missed
#: (printed grey, in shadow) 0.23..0.28, black discs read 0.30 and up (99.9 %)
DISC_CONTRAST, DISC_SCALE = 0.18, 0.02


def centre_samples(dark: np.ndarray, n: int, *, cell: int) -> np.ndarray:
    """(n, n, R, A) darkness about each cell's centre of a ``darkness`` picture ``dark`` (n * cell, n * cell) at
    radii 0 .. 0.45 cell (pixels) in ``ANGLES`` directions."""
    radii = np.arange(0, int(RING_REACH[1] * cell) + 1, dtype=np.float32)
    theta = np.linspace(0, 2 * np.pi, ANGLES, endpoint=False, dtype=np.float32)
    dy = np.round(radii[:, None] * np.sin(theta)[None, :]).astype(int)  # (R, A)
    dx = np.round(radii[:, None] * np.cos(theta)[None, :]).astype(int)
    centre = np.round(np.arange(n) * cell + (cell - 1) / 2.0).astype(int)  # (n,)
    side = n * cell
    ys = np.clip(centre[:, None, None, None] + dy[None, None], 0, side - 1)  # (n, 1, R, A)
    xs = np.clip(centre[None, :, None, None] + dx[None, None], 0, side - 1)  # (1, n, R, A)
    return dark[ys, xs]


def _upper_median(values: np.ndarray) -> np.ndarray:
    """The upper median over the last axis (``ANGLES`` directions)."""
    half = values.shape[-1] // 2
    return np.partition(values, half, axis=-1)[..., half]


def centre_profiles(dark: np.ndarray, n: int, *, cell: int, samples: np.ndarray | None = None) -> np.ndarray:
    """(n, n, R) darkness about each cell's centre at radii 0 .. 0.45 cell (pixels) of a ``darkness`` picture
    ``dark`` (n * cell, n * cell): at each radius the (upper) median over ``ANGLES`` directions, so that a
    ring or a disc darkens it and a ruled line or a stray mark, which cover a few directions, do not.
    ``samples``: ``centre_samples`` of ``dark`` when already taken."""
    return _upper_median(centre_samples(dark, n, cell=cell) if samples is None else samples)


def ring_contrasts(samples: np.ndarray, *, cell: int, profiles: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two (n, n) measures of how much darker than its middle a ring about each cell's centre is
    (``centre_samples`` (n, n, R, A)), each less the mean within ``RING_MIDDLE`` (of the median profile): the
    darkest radius within ``RING_REACH`` of the (upper) median over the directions at each radius; and, in
    each direction, the darkest radius within ``RING_REACH``, the (upper) median of those over the directions
    -- a ring a little off the centre or drawn oval by the photo passes each radius in only some directions,
    while each direction finds it at its own radius (the second is the noisier on grainy paper, where the first
    holds a faint ring better). A white circle scores high on both; paper, shading and black discs near 0.
    ``profiles``: the median profiles of ``samples`` (``centre_profiles``) when already taken."""
    profiles = _upper_median(samples) if profiles is None else profiles
    reach = slice(int(RING_REACH[0] * cell), None)
    middle = profiles[:, :, :int(RING_MIDDLE * cell) + 1].mean(axis=2)
    at_radius = profiles[:, :, reach].max(axis=2)
    per_direction = _upper_median(samples[:, :, reach, :].max(axis=2))
    return at_radius - middle, per_direction - middle


def disc_contrast(profiles: np.ndarray, *, cell: int) -> np.ndarray:
    """(n, n) how much darker each cell's core (within ``DISC_CORE``) is than its paper outside a disc (beyond
    ``DISC_OUTSIDE``), from ``centre_profiles``. A black disc scores high, even printed grey; paper, shading
    and white circles near 0 or below."""
    core = profiles[:, :, :int(DISC_CORE * cell) + 1].mean(axis=2)
    return core - profiles[:, :, int(DISC_OUTSIDE * cell):].mean(axis=2)


def ring_probabilities(samples: np.ndarray, paper: np.ndarray, *, cell: int,
                       profiles: np.ndarray | None = None) -> np.ndarray:
    """(n, n) probability that each cell holds a white circle, from its ring about the centre
    (``centre_samples`` (n, n, R, A)) measured against the cells ``paper`` ((n, n) bool: those the ink measure
    found empty, nearly all of them paper): their median profile is taken off every cell's (the ruled lines'
    blur and the print's grain darken all cells alike at some radii), and each ring contrast
    (``ring_contrasts``) counts in spreads above theirs (median, robust spread); the larger count decides,
    ``RING_SPREADS`` at even odds. ``profiles``: ``centre_profiles`` of the same picture when already taken
    (a median less the same number is the median less it: the profiles less ``base`` are the samples' less it)."""
    n = samples.shape[0]
    if paper.sum() < n:  # hardly any empty cell: the grid as a whole is the background
        paper = np.ones((n, n), bool)
    profiles = _upper_median(samples) if profiles is None else profiles
    base = np.median(profiles[paper], axis=0)  # (R,)
    spreads = []
    for contrast in ring_contrasts(samples - base[None, None, :, None], cell=cell,
                                   profiles=profiles - base[None, None, :]):
        typical = float(np.median(contrast[paper]))
        spread = max(1.4826 * float(np.median(np.abs(contrast[paper] - typical))), RING_SPREAD_FLOOR)
        spreads.append((contrast - typical) / spread)
    z = np.clip((np.maximum(*spreads) - RING_SPREADS) / RING_SPREAD_SCALE, -40.0, 40.0)
    return np.clip(1.0 / (1.0 + np.exp(-z)), 1e-4, 1.0 - 1e-4)


def disc_probability(contrast: float) -> float:
    """Probability that a cell whose disc contrast (``disc_contrast``) is ``contrast`` holds a black circle."""
    return min(max(_sigmoid((contrast - DISC_CONTRAST) / DISC_SCALE), 1e-4), 1.0 - 1e-4)


def is_circle_grid(marks: list[Extent | None]) -> bool:
    """True when the marks of a grid's inked cells are circles (most of them round, ``CIRCLE_SHARE``, and square,
    ``SQUARE_MARKS``): ``mark``'s or ``extent``'s (the same ``round``)."""
    seen = [m for m in marks if m is not None]
    if len(seen) < 2 or sum(m.round for m in seen) < CIRCLE_SHARE * len(seen):
        return False
    return float(np.median([max(m.width, m.height) / max(min(m.width, m.height), 1e-9) for m in seen])) <= SQUARE_MARKS


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, x))))


def black_probability(m: Mark) -> float:
    """Probability that the round mark ``m`` is a black (filled) circle rather than a white ring."""
    return min(max(_sigmoid((m.core - 0.5) / 0.07), 1e-4), 1.0 - 1e-4)


def circle_probability(m: Mark) -> float:
    """How much ``m`` looks like a printed circle at all, 0..1: inked all round at some radius (the rim) and
    spanning a good part of the cell. (Its roundness is judged over the whole grid, ``is_circle_grid``: a
    cell at the grid's edge may be clipped by a slightly misplaced line.)"""
    span = max(m.width, m.height)
    return min(max(_sigmoid((m.rim - 0.45) / 0.06) * _sigmoid((span - 0.42) / 0.04), 1e-4), 1.0 - 1e-4)
