"""Takuzu digits found only on a second look (scanner.readers.takuzu.digit_candidates(faint=)): a pale 0 or 1 is
read as one, and a blob the stretch made of a dark shadow's grain, which the engine reads as neither, as nothing."""
from __future__ import annotations

import numpy as np

from scanner import cells as cells_stage
from scanner.readers import takuzu

INKED = cells_stage.CellInk(height=0.6, p_filled=1.0, crop=np.full((32, 32), 255, np.uint8))


def test_a_faint_blob_read_as_another_digit_is_nothing_but_a_printed_one_stays_a_poor_takuzu():
    grain = [("7", 0.9), ("1", 0.06), (".", 0.01), ("0", 0.03)]
    value, p = takuzu.digit_candidates(INKED, grain, faint=True)[0]
    assert value is None and abs(p - 0.91) < 1e-9
    # plainly printed, the same reading leaves the mass on 7 out of every candidate (another kind's digits)
    best = takuzu.digit_candidates(INKED, grain)[0]
    assert best[0] == 1 and best[1] < 0.1


def test_a_faint_zero_or_one_is_read_as_itself():
    for value, reading in ((0, [("0", 0.97), (".", 0.02), ("8", 0.01)]), (1, [("1", 0.99), ("7", 0.01)])):
        for faint in (False, True):
            best = takuzu.digit_candidates(INKED, reading, faint=faint)[0]
            assert best[0] == value and best[1] > 0.95
