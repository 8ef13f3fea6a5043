"""The rules, checked directly on grids: independent of the solvers (shares no code with them)."""
from __future__ import annotations

from typing import Optional

from ..puzzle import Grid, Puzzle

_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _regions(n: int, box: tuple[int, int]):
    """Every row, column and box as ``(name, [(row, col), ...])`` with 1-based names."""
    for r in range(n):
        yield f"row {r + 1}", [(r, c) for c in range(n)]
    for c in range(n):
        yield f"column {c + 1}", [(r, c) for r in range(n)]
    br, bc = box
    k = 0
    for r0 in range(0, n, br):
        for c0 in range(0, n, bc):
            k += 1
            yield f"box {k}", [(r0 + r, c0 + c) for r in range(br) for c in range(bc)]


def _box(puzzle: Puzzle) -> tuple[int, int]:
    n = puzzle.size
    if puzzle.box:
        return puzzle.box
    shapes = {4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}
    return shapes[n]


def check_givens(puzzle: Puzzle) -> Optional[str]:
    """A sentence naming the first clash among the givens (``"two 5s in row 3 (r3c1 and r3c7)"``), or None."""
    n = puzzle.size
    g = puzzle.givens
    for r, row in enumerate(g):
        for c, v in enumerate(row):
            if v is not None and not (isinstance(v, int) and 1 <= v <= n):
                return f"r{r + 1}c{c + 1} holds {v!r}, not a value from 1 to {n}"
    for name, cells in _regions(n, _box(puzzle)):
        seen: dict[int, list[tuple[int, int]]] = {}
        for r, c in cells:
            if g[r][c] is not None:
                seen.setdefault(g[r][c], []).append((r, c))
        for v, where in seen.items():
            if len(where) > 1:
                names = [f"r{r + 1}c{c + 1}" for r, c in where]
                listed = ", ".join(names[:-1]) + " and " + names[-1]
                return f"{_NUMBER_WORDS.get(len(where), str(len(where)))} {v}s in {name} ({listed})"
    return None


def is_solution(puzzle: Puzzle, grid: Grid) -> bool:
    """True when ``grid`` is full, keeps every given, and each row, column and box holds 1..n once."""
    n = puzzle.size
    if len(grid) != n or any(len(row) != n for row in grid):
        return False
    everything = set(range(1, n + 1))
    for r in range(n):
        for c in range(n):
            v = grid[r][c]
            if type(v) is not int or not 1 <= v <= n:
                return False
            if puzzle.givens[r][c] is not None and puzzle.givens[r][c] != v:
                return False
    return all({grid[r][c] for r, c in cells} == everything for _, cells in _regions(n, _box(puzzle)))
