"""The Sudoku reader: square ruled grids of 4, 6, 9 or 16 cells a side, one printed symbol per given."""
from __future__ import annotations

from solver.puzzle import Cell, Grid, Puzzle, Relation

import numpy as np

from .ruled import engine_read, read_ruled

BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}  #: box shape (rows, cols) per size
ALPHABET = "123456789ABCDEFG"  #: printed labels of the values 1..16 (16x16 grids print A..G for 10..16)


class SudokuReader:
    kind = "sudoku"

    def accepts(self, candidate) -> bool:
        return candidate.size in BOXES

    def read(self, loaded, candidate, engine, *, timer):
        n = candidate.size
        return read_ruled(loaded, candidate, engine, alphabet=ALPHABET[:n], values=tuple(range(1, n + 1)),
                          timer=timer, crops_reader=read_numbers if n > 9 else None)

    def make_puzzle(self, grid: Grid, relations: tuple[Relation, ...] = (), *, source: str = "",
                    index: int = 0) -> Puzzle:
        n = len(grid)
        return Puzzle(kind="sudoku", size=n, givens=[list(r) for r in grid], box=BOXES[n],
                      source=source, index=index)

    def labels(self, puzzle: Puzzle, solution: Grid) -> dict[Cell, str]:
        n = puzzle.size
        return {(r, c): ALPHABET[solution[r][c] - 1]
                for r in range(n) for c in range(n) if puzzle.givens[r][c] is None}


def split_glyphs(crop: np.ndarray) -> list[np.ndarray]:
    """The crop (h, w) uint8 (dark ink on white) cut at the empty columns between side-by-side glyphs: one
    crop per glyph, left to right (the whole crop when it holds one glyph, or more than two)."""
    ink = crop < 128
    cols = np.nonzero(ink.any(axis=0))[0]
    if len(cols) < 2:
        return [crop]
    gaps = np.nonzero(np.diff(cols) > 1)[0]
    if len(gaps) != 1:
        return [crop]
    cut = (cols[gaps[0]] + cols[gaps[0] + 1]) // 2 + 1
    parts = [crop[:, :cut], crop[:, cut:]]
    heights = [np.ptp(np.nonzero((p < 128).any(axis=1))[0]) + 1 for p in parts]
    if min(heights) < 0.5 * max(heights):  # a speck beside a digit, not a second digit
        return [crop]
    return parts


def read_numbers(engine, crops: list, *, alphabet: str) -> list[list[tuple[str, float]]]:
    """Readings over ``alphabet`` (labels "1".."9", "A".."G" for 10..16) of cells that print 10..16 as two
    digits: a cell with two glyphs is "1" then 0..6; with one glyph, the digit (letters are left to the
    engine, which knows none today)."""
    pieces, owners = [], []
    for i, crop in enumerate(crops):
        parts = split_glyphs(crop)
        pieces += parts
        owners.append(len(parts))
    readings = engine_read(engine, pieces, alphabet="0123456789") if pieces else []
    out, k = [], 0
    for count in owners:
        if count == 2:
            left, right = dict(readings[k]), dict(readings[k + 1])
            scores = {ALPHABET[9 + d]: left.get("1", 0.0) * right.get(str(d), 0.0) for d in range(7)}
            scores["."] = max(left.get(".", 0.0), right.get(".", 0.0))
        else:
            scores = {label: p for label, p in readings[k]}
        k += count
        out.append(sorted(((label, p) for label, p in scores.items() if label in alphabet or label == "."),
                          key=lambda t: -t[1]))
    return out


READER = SudokuReader()
