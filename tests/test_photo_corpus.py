"""The photo pipeline on the real training photos (slow: run with ``-m slow``)."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from scanner import photo
from solver.api import solve
from solver.errors import ScanSolveError
from solver.puzzle import Puzzle

from conftest import shared_path


def _truth(dat) -> list[list[int | None]]:
    return [[int(v) or None for v in line.split()] for line in dat.read_text().splitlines()[2:11]]


@pytest.mark.slow
def test_train_photos_found_read_and_never_wrong():
    folder = shared_path("sudoku_photos", "train")
    try:
        photo.get_engine("auto")
    except ScanSolveError as err:
        pytest.skip(f"the default digit engine is not available: {err}")
    outlines = {row[0]: np.array([float(v) for v in row[1:]]).reshape(4, 2)
                for row in list(csv.reader(open(folder / "outlines.csv")))[1:]}
    found = exact = wrong = 0
    names = sorted(p.name for p in folder.glob("*.jpg"))
    for name in names:
        try:
            record = photo.scan_photo(folder / name, draw=False)[0]  # the largest grid
        except ScanSolveError:
            continue
        if name in outlines:
            t = outlines[name]
            err = np.abs(np.array(record["quad"]) - t).max() / (np.linalg.norm(t[0] - t[2]) / 2 ** 0.5)
            found += err < 0.05
        truth = _truth(folder / name.replace(".jpg", ".dat"))
        exact += record["givens"] == truth
        if record["status"] == "solved":
            answer = solve(Puzzle("sudoku", 9, truth, box=(3, 3))).solution
            wrong += record["solution"] != answer  # a wrong answer drawn: the one outcome never allowed
    assert wrong == 0
    assert found >= 0.97 * len(outlines)
    assert exact >= 0.9 * len(names)
