"""A Takuzu 0 encloses paper and a 1 does not (scanner.ocr.glyph.encloses_hole): the hole weighs the engine's 0/1
split (scanner.readers.takuzu.digit_candidates(holed=, zero_odds=)), calibrated by the grid's own sure 0s."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from scanner import cells as cells_stage
from scanner.ocr import get_engine
from scanner.ocr.glyph import encloses_hole, normalise
from scanner.readers import takuzu

INKED = cells_stage.CellInk(height=0.6, p_filled=1.0, crop=np.full((32, 32), 255, np.uint8))


def _cell(text: str, *, side: int = 34, x: int | None = None, thickness: int = 2, blur: float = 0.0) -> np.ndarray:
    cell = np.full((side, side), 225, np.uint8)
    scale = side / 34
    org = (int((9 if x is None else x) * scale), int(27 * scale))
    cv2.putText(cell, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.95 * scale, 35, thickness, cv2.LINE_AA)
    if blur:
        cell = cv2.GaussianBlur(cell, (0, 0), blur)
    return cell


@pytest.mark.parametrize("side,thickness,blur", [(34, 2, 0.0), (24, 1, 0.0), (34, 3, 0.8), (48, 2, 1.0)])
def test_zeros_and_eights_enclose_paper_ones_and_sevens_do_not(side, thickness, blur):
    for text, holed in (("0", True), ("8", True), ("1", False), ("7", False)):
        assert encloses_hole(normalise(_cell(text, side=side, thickness=thickness, blur=blur))) is holed, text


def test_an_empty_cell_encloses_nothing():
    assert not encloses_hole(normalise(np.full((34, 34), 225, np.uint8)))


def test_the_hole_moves_only_the_split_between_zero_and_one():
    torn = [("1", 0.59), ("0", 0.39), ("7", 0.02)]  # a bare 1 of an unseen font, half read as 0
    before = dict(takuzu.digit_candidates(INKED, torn))
    unholed = dict(takuzu.digit_candidates(INKED, torn, holed=False, zero_odds=0.02))
    holed = dict(takuzu.digit_candidates(INKED, torn, holed=True))
    assert before[1] == pytest.approx(0.59) and before[0] == pytest.approx(0.39)
    # a centred glyph without a hole is the 1; with one, the 0
    assert unholed[1] / (unholed[0] + unholed[1]) > 0.96 and holed[0] / (holed[0] + holed[1]) > 0.96
    for got in (unholed, holed):
        assert got[0] + got[1] == pytest.approx(0.98) and got[None] == before[None]
    assert dict(takuzu.digit_candidates(INKED, torn, holed=None, zero_odds=0.02)) == before


def test_a_grid_whose_sure_zeros_show_no_hole_gives_the_missing_hole_no_weight():
    sure0 = [("0", 0.97), ("1", 0.02)]
    sure1 = [("1", 0.98), ("0", 0.01)]
    crisp = takuzu.unholed_zero_odds([sure0] * 30 + [sure1] * 30, [True] * 30 + [False] * 30)
    assert crisp == takuzu.ZERO_ODDS_FLOOR
    blurred_shut = takuzu.unholed_zero_odds([sure0] * 30 + [sure1] * 30, [False] * 28 + [True] * 2 + [False] * 30)
    assert blurred_shut > 0.8
    unknown = takuzu.unholed_zero_odds([sure0] * 5, [None] * 5)  # only the prior
    assert unknown == pytest.approx(takuzu.ZERO_PRIOR)


def test_glyph_holes_tell_a_centred_one_from_half_a_zero_cut_off_by_the_cell():
    zero, one = _cell("0"), _cell("1", x=8)
    half = _cell("0", x=-9)  # the right half of a 0 at the cell's left edge: a ")" off the centre
    expected = [True, False, None]
    assert takuzu.glyph_holes(object(), [zero, one, half]) == expected  # an engine keeping no glyphs
    assert takuzu.glyph_holes(get_engine("classifier"), [zero, one, half]) == expected
