"""Which way up the page around a grid is, for prints whose own marks cannot tell their turn (circles; a
Futoshiki with no digit given, whose signs turned are signs still): first the shape of the text around the grid
(``orient.page_turn``), then, when that does not tell, the page's words (``turn_text.refine``, 100-200 ms)."""
from __future__ import annotations

import numpy as np

from . import orient, turn_text
from .grid_find import gray_of


def page_orientation(loaded, mesh_small, n: int, *, timer, words: bool = True) -> orient.Orientation:
    """The page's ``orient.Orientation`` from the text around the grid (``mesh_small``: its n x n mesh in the
    detection copy). Read from the detection copy when it has ``orient.FRAME_CELL`` pixels per cell, else from
    the full picture; when the text's shape does not tell, its words are read too, from the full picture
    (``turn_text.refine``; not without an OCR engine, nor when ``words`` is false)."""
    with timer.stage("orient"):
        quad = np.asarray(mesh_small.quad, np.float64)
        per_cell = float(np.linalg.norm(quad[0] - quad[2])) / (1.414 * n)
        if per_cell >= orient.FRAME_CELL or loaded.scale >= 1.0:
            found = orient.page_turn(loaded.small, quad, n)
        else:
            found = orient.page_turn(full_gray(loaded), quad / loaded.scale, n)
    if found.turn is None and words:
        found = page_words(loaded, mesh_small, n, found, timer=timer)
    return found


def page_words(loaded, mesh_small, n: int, found: orient.Orientation, *, timer) -> orient.Orientation:
    """``found`` (the text's shape, ``page_orientation`` without words) with what the page's words add
    (``turn_text.refine``, read from the full picture)."""
    with timer.stage("orient text"):
        quad = np.asarray(mesh_small.quad, np.float64)
        return turn_text.refine(found, full_gray(loaded), quad / loaded.scale, n)


def full_gray(loaded) -> np.ndarray:
    """(H, W) uint8: the full-resolution photo in gray (``grid_find.gray_of``), converted once per photo
    (``loaded.memo``): the text's shape and the page's words are both read from it."""
    key = ("gray", "full")
    if key not in loaded.memo:
        loaded.memo[key] = gray_of(loaded.image)
    return loaded.memo[key]


def turn_or_guess(found: orient.Orientation) -> tuple[int, bool]:
    """(quarter turns clockwise that make the print upright, whether the page tells it surely): the page's
    turn, else the likeliest (``orient.likely_turn``) -- a guess, reported as unknown."""
    quarter = page_quarter(found)
    if quarter is None:
        return (-orient.likely_turn(found)) % 4, False
    return quarter, True


def page_quarter(found: orient.Orientation) -> int | None:
    """Quarter turns clockwise that make the page upright, None when its text does not tell surely."""
    return None if found.turn is None else (-found.turn) % 4
