"""The rules of Takuzu, checked directly on grids (independent of the solver's search and tables).

Rules: every cell holds 0 or 1; no three equal values side by side in a row or
column; every row and column holds ``n/2`` zeros and ``n/2`` ones; no two rows
are identical and no two columns are identical.
"""
from __future__ import annotations

from typing import Optional

from ..puzzle import Grid, Puzzle

_NAMES = {0: "0s", 1: "1s"}
_WORDS = {0: "zeros", 1: "ones"}


def _cell(r: int, c: int) -> str:
    return f"r{r + 1}c{c + 1}"


def _units(grid: Grid):
    """Every row and column as ``(kind, number, [(cell, value), ...])`` with 1-based numbers."""
    n = len(grid)
    for r in range(n):
        yield "row", r + 1, [((r, c), grid[r][c]) for c in range(n)]
    for c in range(n):
        yield "column", c + 1, [((r, c), grid[r][c]) for r in range(n)]


def first_violation(grid: Grid) -> Optional[str]:
    """A sentence naming the first rule the filled cells of ``grid`` break, or None.

    Only filled cells count: a partial grid breaks the balance rule when a line has
    more than ``n/2`` of a value, and the distinct-lines rule when two *full* lines match.
    """
    n = len(grid)
    half = n // 2
    for kind, number, cells in _units(grid):
        for i in range(n - 2):
            values = {v for _, v in cells[i:i + 3]}
            if len(values) == 1 and None not in values:
                (v,) = values
                a, b = cells[i][0], cells[i + 2][0]
                return f"three {_NAMES[v]} in a {kind} at {_cell(*a)}..{_cell(*b)}"
        for v in (0, 1):
            count = sum(1 for _, x in cells if x == v)
            if count > half:
                return f"more than {half} {_WORDS[v]} in {kind} {number} ({count})"
    for kind, lines in (("rows", [list(row) for row in grid]), ("columns", [list(col) for col in zip(*grid)])):
        seen: dict[tuple, int] = {}
        for i, line in enumerate(lines):
            if None in line:
                continue
            key = tuple(line)
            if key in seen:
                return f"{kind} {seen[key] + 1} and {i + 1} are full and identical"
            seen[key] = i
    return None


def _well_formed(puzzle: Puzzle, grid: Grid, *, full: bool) -> bool:
    n = puzzle.size
    if len(grid) != n or any(len(row) != n for row in grid):
        return False
    allowed = (0, 1) if full else (0, 1, None)
    return all(v in allowed and not isinstance(v, bool) for row in grid for v in row)


def check_givens(puzzle: Puzzle) -> Optional[str]:
    """A sentence naming a rule the givens already break, or None."""
    if puzzle.size % 2 or not _well_formed(puzzle, puzzle.givens, full=False):
        return f"the givens are not a {puzzle.size}x{puzzle.size} grid of 0, 1 and empty cells of an even size"
    return first_violation(puzzle.givens)


def is_solution(puzzle: Puzzle, grid: Grid) -> bool:
    """True when ``grid`` is full, keeps every given, and breaks no rule."""
    if puzzle.size % 2 or not _well_formed(puzzle, grid, full=True):
        return False
    n = puzzle.size
    for r in range(n):
        for c in range(n):
            g = puzzle.givens[r][c]
            if g is not None and g != grid[r][c]:
                return False
    return first_violation(grid) is None
