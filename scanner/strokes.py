"""Ink and ruled strokes of a gray picture: the pixel tests the grid finders share.

``ink_mask`` marks what is darker than its neighbourhood; ``thin_strokes`` keeps the long thin dark strokes
along each axis of a rectified picture (a grid's ruled lines); ``run_on`` measures how much a lattice's lines
run on through a band beyond its end (a lattice that is part of a larger grid).
Pictures are (H, W) uint8 gray, masks (H, W) uint8 0 / 255.
"""
from __future__ import annotations

import cv2
import numpy as np

STROKE_CONTRAST = 10  #: gray levels a stroke must be darker than the paper either side of it
#: ``run_on`` above which a lattice's lines run on past its end (it is part of a larger grid)
RUNS_ON = 0.4


def ink_mask(gray: np.ndarray, *, block: int | None = None, offset: float = 8.0) -> np.ndarray:
    """(H, W) uint8 mask, 255 where the pixel is darker than its neighbourhood (ink): adaptive threshold,
    so shadows and glare do not matter. ``block`` is the neighbourhood side (odd; default ~1/25 of the long side)."""
    if block is None:
        block = max(11, (max(gray.shape) // 25) | 1)
    return cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block | 1, offset)


def thin_strokes(picture: np.ndarray, *, block: int, thin: int, reach: int,
                 ink: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The horizontal and the vertical strokes of ``picture`` (H, W) (each an (H, W) uint8 mask): ink
    (``ink_mask`` over ``block`` pixels; not without ``ink``) or strokes up to ``thin`` pixels wide darker than
    the paper either side (black top-hat), each kept where it runs at least ``reach`` pixels along its axis."""
    thin_only = _dark_strokes(picture, thin=thin, reach=reach)
    return with_ink(picture, thin_only, block=block, reach=reach) if ink else thin_only


def with_ink(picture: np.ndarray, strokes: tuple[np.ndarray, np.ndarray], *, block: int,
             reach: int) -> tuple[np.ndarray, np.ndarray]:
    """``thin_strokes(picture, ink=True)`` from its strokes without ink (``strokes``, ``thin_strokes(picture,
    ink=False)`` with the same ``reach``): the ink, kept where it runs ``reach`` pixels along each axis, added
    to them. For a caller that needs both: the dark strokes are found once."""
    mask = ink_mask(picture, block=block | 1, offset=6)
    # (each opened on its own: a line's end next to a block's rim in the ink mask would run on into it)
    return tuple(np.maximum(lines, cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones(along, np.uint8)))
                 for lines, along in zip(strokes, ((1, reach), (reach, 1))))


def _dark_strokes(picture: np.ndarray, *, thin: int, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """``thin_strokes`` without ink: the strokes up to ``thin`` pixels wide darker than the paper either side,
    each kept where it runs ``reach`` pixels along its axis (horizontal, vertical)."""
    # (the thin dark strokes across each direction: a line running along a dark block, a title bar, stays a line,
    # where the threshold against the neighbourhood's mean loses it in the block's shade)
    out = []
    for across, along in (((thin, 1), (1, reach)), ((1, thin), (reach, 1))):
        hat = cv2.morphologyEx(picture, cv2.MORPH_BLACKHAT, np.ones(across, np.uint8))
        strokes = np.where(hat > STROKE_CONTRAST, 255, 0).astype(np.uint8)
        out.append(cv2.morphologyEx(strokes, cv2.MORPH_OPEN, np.ones(along, np.uint8)))
    return out[0], out[1]


def mean_along(mask: np.ndarray, axis: int) -> np.ndarray:
    """``mask.mean(axis=axis)`` of a 2-D uint8 ``mask``, the same float64 values: its sums are whole numbers,
    exact in any order, so they are taken as integers by ``cv2.reduce`` (3-10 times sooner than numpy's mean,
    which sums a float64 copy) and divided by the count in float64, as numpy divides them."""
    return cv2.reduce(mask, axis, cv2.REDUCE_SUM, dtype=cv2.CV_32S).ravel() / mask.shape[axis]


def run_on(lines: np.ndarray, at: np.ndarray, band: tuple[int, int]) -> float:
    """How much a lattice's inner lines run on through the rows ``band`` (start, stop) of ``lines`` (H, W)
    line ink (the lines run down), its n + 1 lines at columns ``at`` (x, increasing): the share of the band's
    rows with ink within 2 pixels of each inner line, less the same share midway between the lines (a block
    of ink, a title bar, is no line running on), in -1..1; 0 when the band is under two rows."""
    s0, s1 = max(0, band[0]), min(lines.shape[0], band[1])
    if s1 - s0 < 2 or len(at) < 3:
        return 0.0
    near = cv2.dilate(np.pad((lines[s0:s1] > 0).astype(np.uint8), ((0, 0), (2, 2))), np.ones((1, 5), np.uint8))
    shares = mean_along(near, 0)

    def share(x: np.ndarray) -> np.ndarray:  # the shares at columns ``x`` (0 beyond the picture)
        c = np.round(x).astype(int) + 2
        return np.where((c >= 0) & (c < len(shares)), shares[np.clip(c, 0, len(shares) - 1)], 0.0)

    return float(np.mean(share(at[1:-1])) - np.mean(share((at[:-1] + at[1:]) / 2)))
