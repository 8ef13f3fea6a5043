"""The shipped classifier on real cells cut from the labelled Sudoku photos (slow; needs the shared data)."""
from __future__ import annotations

import pytest

from conftest import shared_path
from scanner.ocr import get_engine
from scanner.ocr.evaluate_cells import ALPHABET, Tally
from scanner.ocr.realcells import load_photos


@pytest.mark.slow
def test_classifier_on_real_cells():
    photos = load_photos(shared_path("sudoku_photos", "train"))
    engine = get_engine("classifier")
    tally = Tally(engine.name)
    for p in photos:
        tally.add(p.labels, engine.read(p.cells, alphabet=ALPHABET))
    assert tally.digits_right / tally.digits >= 0.97
    assert tally.empty_as_digit / tally.empties <= 0.005
    assert tally.top2 / tally.cells >= 0.99
