"""The Sudoku reader: square ruled grids of 4, 6, 9 or 16 cells a side, one printed symbol per given."""
from __future__ import annotations

from solver.puzzle import Cell, Grid, Puzzle, Relation

from .ruled import read_ruled

BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}  #: box shape (rows, cols) per size
ALPHABET = "123456789ABCDEFG"  #: printed labels of the values 1..16 (16x16 grids print A..G for 10..16)


class SudokuReader:
    kind = "sudoku"

    def accepts(self, candidate) -> bool:
        return candidate.size in BOXES

    def read(self, loaded, candidate, engine, *, timer):
        n = candidate.size
        return read_ruled(loaded, candidate, engine, alphabet=ALPHABET[:n],
                          values=tuple(range(1, n + 1)), timer=timer)

    def make_puzzle(self, grid: Grid, relations: tuple[Relation, ...] = (), *, source: str = "",
                    index: int = 0) -> Puzzle:
        n = len(grid)
        return Puzzle(kind="sudoku", size=n, givens=[list(r) for r in grid], box=BOXES[n],
                      source=source, index=index)

    def labels(self, puzzle: Puzzle, solution: Grid) -> dict[Cell, str]:
        n = puzzle.size
        return {(r, c): ALPHABET[solution[r][c] - 1]
                for r in range(n) for c in range(n) if puzzle.givens[r][c] is None}


READER = SudokuReader()
