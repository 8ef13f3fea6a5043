"""Readers that cannot win do less: the order readers are asked in (those taking a floor last), the Sudoku
reader's floor (too few inked cells to solve)."""
from __future__ import annotations

import cv2
import numpy as np

from scanner import load, photo, revise
from scanner.rectify import Mesh
from scanner.readers import GridReading, sudoku
from scanner.timing import Timer
from solver.puzzle import Puzzle


def test_least_givens_of_a_unique_sudoku():
    assert sudoku.least_givens(4) == 4 and sudoku.least_givens(9) == 17
    assert sudoku.least_givens(6) == 5 and sudoku.least_givens(16) == 15  # n - 1 values at least


def _grid_page(n: int, *, box: int | None, side: int = 1200, margin: int = 100) -> tuple[np.ndarray, Mesh]:
    """A white page (side, side, 3) with an n x n ruled grid, every ``box``-th line three times as thick (None:
    all alike), and its mesh (page pixels)."""
    page = np.full((side, side, 3), 255, np.uint8)
    step = (side - 2 * margin) / n
    for i in range(n + 1):
        at = int(round(margin + i * step))
        width = 6 if (box and i % box == 0) or i in (0, n) else 2
        cv2.line(page, (at, margin), (at, side - margin), (0, 0, 0), width)
        cv2.line(page, (margin, at), (side - margin, at), (0, 0, 0), width)
    k = margin + np.arange(n + 1) * step
    return page, Mesh(n, np.stack(np.meshgrid(k, k), axis=-1).astype(np.float64))


class _Reader:
    """A fake reader of a 4 x 4 Sudoku: its readings, and what it was told."""

    def __init__(self, kind, cands, *, takes_floor=False):
        self.kind, self.cands, self.takes_floor, self.told = kind, cands, takes_floor, []

    def accepts(self, candidate):
        return True

    def read(self, loaded, candidate, engine, *, timer, **options):
        self.told.append(options)
        mesh = Mesh(4, np.stack(np.meshgrid(np.arange(5.0), np.arange(5.0)), axis=-1))
        return [GridReading(mesh=mesh, turn=0, cands=self.cands, fit=0.0, picture=np.zeros((4, 4), np.uint8),
                            cell=1)]

    def make_puzzle(self, grid, relations=(), *, source="", index=0):
        return Puzzle(kind="sudoku", size=4, givens=[list(r) for r in grid], box=(2, 2), source=source, index=index)


def test_readers_taking_a_floor_are_read_after_the_others_and_told_it():
    givens = [[1, None, None, None], [None, None, 3, None], [None, 4, None, None], [None, None, None, 2]]
    sure = [[[(v, 0.99), (None, 0.01)] if v else [(None, 1.0)] for v in row] for row in givens]
    floored, plain = _Reader("sudoku", sure, takes_floor=True), _Reader("sudoku", sure)
    got = photo._read_candidate(object(), [floored, plain], None, None, source="x", index=0,
                                solve=photo.solve_puzzle, timer=Timer())
    assert got[2].status == "solved" and got[0] is plain  # read first: the first of two alike stays
    assert plain.told == [{}]
    assert floored.told[0]["floor"] <= -revise.RIVAL_MARGIN  # the solved score (<= 0) less the margin


class _Cand:
    def __init__(self, quad, size):
        self.quad, self.size = np.asarray(quad, np.float32), size


def test_told_a_floor_the_sudoku_reader_reads_nothing_where_too_few_cells_are_inked():
    page, mesh = _grid_page(4, box=2)
    cv2.putText(page, "3", (300, 420), cv2.FONT_HERSHEY_SIMPLEX, 5, (0, 0, 0), 12)  # one given: never unique
    loaded = load.from_array(page, name="grid")
    cand = _Cand(mesh.scaled(loaded.scale).quad, 4)
    engine = photo.get_engine("auto")
    assert sudoku.READER.read(loaded, cand, engine, timer=Timer())  # read as ever without a floor
    assert sudoku.READER.read(loaded, cand, engine, timer=Timer(), floor=-1.0 - revise.RIVAL_MARGIN) == []
    # a solved score below -MAX_COST: a reading that cannot solve may still be the likeliest by far
    assert sudoku.READER.read(loaded, cand, engine, timer=Timer(), floor=-revise.MAX_COST - 3.0)
