"""A glyph broken into pieces at the ink level keeps its pieces (``cells._add_fragments``)."""
from __future__ import annotations

import numpy as np

from scanner import cells

CELL = 48


def _seven(*, bar_pieces: bool, edge_dash: bool = False) -> np.ndarray:
    """A cell holding a 7 whose bar, high in the cell, is broken into three pieces by two-pixel gaps (a pale
    thin stroke at the ink level), the right piece joined to the stem."""
    picture = np.full((CELL, CELL), 235, np.uint8)
    picture[8:11, 28:34] = 20  # the bar's right piece
    for y in range(8, 43):  # the slanted stem from the bar's right end down to the bottom
        x = int(round(31 - (y - 8) * 12 / 35))
        picture[y, x:x + 3] = 20
    if bar_pieces:
        picture[8:11, 17:22] = 20  # the bar's left piece
        picture[8:11, 24:26] = 20  # the bar's middle piece
    if edge_dash:
        picture[8:11, 5:9] = 20  # a dash from the trimmed margin into the interior (a neighbour's remnant)
    return picture


def _dark_columns(crop: np.ndarray, rows: slice) -> np.ndarray:
    return np.flatnonzero((crop[rows] < 128).any(axis=0))


def test_the_pieces_of_a_broken_bar_stay_with_the_glyph():
    ink = cells.measure(_seven(bar_pieces=True), 1, cell=CELL)[0][0]
    cut = round(0.1 * CELL)
    bar = _dark_columns(ink.crop, slice(8 - cut, 11 - cut))
    assert bar[0] <= 17 - cut  # the bar's left end is in the crop (beyond the halo of the stem's piece)
    assert set(range(17 - cut, 22 - cut)) <= set(bar.tolist())


def test_a_piece_touching_the_cell_edge_is_not_taken_as_a_fragment():
    ink = cells.measure(_seven(bar_pieces=True, edge_dash=True), 1, cell=CELL)[0][0]
    cut = round(0.1 * CELL)
    bar = _dark_columns(ink.crop, slice(8 - cut, 11 - cut))
    assert bar[0] > 8 - cut  # the dash from the margin stays out


def test_fragments_are_joined_only_when_near(monkeypatch):
    monkeypatch.setattr(cells, "FRAGMENT_GAP", 0.02)  # gaps of two pixels are now too wide to bridge
    ink = cells.measure(_seven(bar_pieces=True), 1, cell=CELL)[0][0]
    cut = round(0.1 * CELL)
    assert _dark_columns(ink.crop, slice(8 - cut, 11 - cut))[0] > 17 - cut


def _pair_cell(*, turned: bool) -> np.ndarray:
    """A 16x16 cell's "13" (a narrow stem beside a wide glyph), or the same turned a quarter (one over the other)."""
    picture = np.full((CELL, CELL), 235, np.uint8)
    picture[12:36, 5:9] = 20  # the 1's stem, off the cell's centre
    picture[12:36, 16:36] = 20  # the 3, a hollow block
    picture[16:32, 21:31] = 235
    return np.ascontiguousarray(np.rot90(picture)) if turned else picture


def test_a_turned_pair_keeps_both_digits_one_over_the_other():
    from scanner.readers import ruled
    for turned in (False, True):
        ink = cells.measure(_pair_cell(turned=turned), 1, cell=CELL, trim=ruled.PAIR_TRIM, pairs=True)[0][0]
        dark = ink.crop < 128
        lines = np.flatnonzero(dark.any(axis=1 if turned else 0))
        assert np.diff(lines).max() > 4  # both glyphs, with the gap between them


def test_a_bar_over_an_upright_glyph_is_no_partner():
    from scanner.readers import ruled
    picture = np.full((CELL, CELL), 235, np.uint8)
    picture[14:38, 18:30] = 20  # an upright glyph (taller than wide)
    picture[6:9, 16:32] = 20  # a line's remnant above it, as wide
    ink = cells.measure(picture, 1, cell=CELL, trim=ruled.PAIR_TRIM, pairs=True)[0][0]
    assert not (ink.crop[:9 - round(ruled.PAIR_TRIM * CELL)] < 128).any()


def test_the_pieces_of_a_broken_bar_stay_in_every_quarter_turn():
    # the cells are measured before the reading turns them: a turned page's 7 lies on its side
    inked = [int((cells.measure(np.ascontiguousarray(np.rot90(_seven(bar_pieces=True), k)), 1,
                                cell=CELL)[0][0].crop < 128).sum()) for k in range(4)]
    without = int((cells.measure(_seven(bar_pieces=False), 1, cell=CELL)[0][0].crop < 128).sum())
    assert min(inked) > without  # the pieces are in the crop, whichever way the 7 lies
    assert max(inked) - min(inked) <= 0.05 * max(inked)


def test_a_bar_over_an_upright_pair_is_no_partner():
    # an upright "13" side by side is wider than tall as a whole: whether a glyph lies on its side is judged on
    # the glyph itself
    from scanner.readers import ruled
    picture = np.full((CELL, CELL), 235, np.uint8)
    picture[14:38, 12:16] = 20  # the 1's stem, near enough the centre to be kept with the 3
    picture[14:38, 20:38] = 20  # the 3, a hollow block (the two together wider than tall)
    picture[18:34, 24:32] = 235
    picture[8:10, 12:38] = 20  # a line's remnant above the pair, as wide
    ink = cells.measure(picture, 1, cell=CELL, trim=ruled.PAIR_TRIM, pairs=True)[0][0]
    assert not (ink.crop[:10 - round(ruled.PAIR_TRIM * CELL)] < 128).any()
