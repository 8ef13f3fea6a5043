"""Takuzu text formats.

- *one puzzle a line*: ``n*n`` characters from ``0 1 . -`` (``.``/``-`` empty),
  optionally followed by whitespace and the known solution (``n*n`` of ``0 1``);
- *grid*: ``n`` lines of ``n`` characters (spaces between cells allowed); several
  grids are separated by blank lines.

Lines starting with ``#`` are comments. Errors are ``ParseError`` with a 1-based
line and column.
"""
from __future__ import annotations

import math
from typing import Optional

from ..errors import ParseError
from ..puzzle import Grid, Puzzle
from .rules import first_violation

NAME = "takuzu"
MIN_SIZE, MAX_SIZE = 4, 20
_VALUES = {"0": 0, "1": 1, ".": None, "-": None, "_": None}
_SYMBOLS = {None: ".", 0: "0", 1: "1"}


def _check_size(n: int, *, line: int, col: int, what: str) -> None:
    if n % 2:
        raise ParseError(f"{what}: Takuzu needs an even size, not {n}", line=line, col=col)
    if not MIN_SIZE <= n <= MAX_SIZE:
        raise ParseError(f"{what}: size {n} is outside {MIN_SIZE}..{MAX_SIZE}", line=line, col=col)


def _cells(text: str, *, line: int, col0: int, allow_empty: bool = True) -> list[Optional[int]]:
    """The values of the characters of ``text`` (which starts at 1-based column ``col0``), spaces skipped."""
    out: list[Optional[int]] = []
    for i, ch in enumerate(text):
        if ch in " \t":
            continue
        if ch not in _VALUES or (not allow_empty and _VALUES[ch] is None):
            expected = "0 or 1" if not allow_empty else "0, 1, '.' or '-'"
            raise ParseError(f"unexpected character {ch!r} (expected {expected})", line=line, col=col0 + i)
        out.append(_VALUES[ch])
    return out


def _is_line_format(first: str, rows_in_block: int) -> bool:
    fields = first.split()
    if len(fields) == 2 and len(fields[0]) >= MIN_SIZE * MIN_SIZE:
        return True
    if len(fields) != 1:
        return False
    length = len(fields[0])
    root = math.isqrt(length)
    square = root * root == length and root >= MIN_SIZE and root % 2 == 0
    return length > MAX_SIZE or (square and rows_in_block != length)


def _parse_line(raw: str, number: int, source: str) -> Puzzle:
    start = len(raw) - len(raw.lstrip())
    fields = raw.split()
    given_text = fields[0]
    values = _cells(given_text, line=number, col0=start + 1)
    length = len(given_text)
    root = math.isqrt(length)
    if root * root != length:
        raise ParseError(f"{length} cells is not a square number of cells", line=number, col=start + 1)
    _check_size(root, line=number, col=start + 1, what=f"{length} cells")
    n = root
    givens = [values[r * n:(r + 1) * n] for r in range(n)]
    known: Optional[Grid] = None
    if len(fields) > 2:
        col = raw.index(fields[2], raw.index(fields[1], start + length) + len(fields[1])) + 1
        raise ParseError("unexpected third field (expected givens and an optional solution)", line=number, col=col)
    if len(fields) == 2:
        sol_col = raw.index(fields[1], start + length) + 1
        if len(fields[1]) != length:
            raise ParseError(
                f"the solution has {len(fields[1])} cells, the givens {length}", line=number, col=sol_col
            )
        sol = _cells(fields[1], line=number, col0=sol_col, allow_empty=False)
        known = [sol[r * n:(r + 1) * n] for r in range(n)]
        for i, (g, s) in enumerate(zip(values, sol)):
            if g is not None and g != s:
                raise ParseError(
                    f"the solution contradicts the given {g} at r{i // n + 1}c{i % n + 1}", line=number, col=sol_col + i
                )
        broken = first_violation(known)
        if broken:
            raise ParseError(f"the solution breaks a rule: {broken}", line=number, col=sol_col)
    return Puzzle(kind=NAME, size=n, givens=givens, known_solution=known, source=source, line=number)


def _parse_grid(block: list[tuple[int, str]], source: str) -> Puzzle:
    first_number, first = block[0]
    rows: list[list[Optional[int]]] = []
    width = None
    for number, raw in block:
        values = _cells(raw, line=number, col0=1)
        if width is None:
            width = len(values)
        elif len(values) != width:
            raise ParseError(
                f"ragged grid: this line has {len(values)} cells, the first line {width}",
                line=number, col=len(raw.rstrip()) + 1 if len(values) < width else _col_of_cell(raw, width),
            )
        rows.append(values)
    if width != len(rows):
        raise ParseError(
            f"the grid is not square: {len(rows)} lines of {width} cells", line=first_number, col=1
        )
    _check_size(width, line=first_number, col=1, what=f"a {width}x{width} grid")
    return Puzzle(kind=NAME, size=width, givens=rows, source=source, line=first_number)


def _col_of_cell(raw: str, k: int) -> int:
    """The 1-based column of the ``k``-th (0-based) non-space character of ``raw``."""
    seen = 0
    for i, ch in enumerate(raw):
        if ch in " \t":
            continue
        if seen == k:
            return i + 1
        seen += 1
    return len(raw) + 1


def parse(text: str, *, source: str = "") -> list[Puzzle]:
    """Every puzzle in ``text`` (one a line, or grids separated by blank lines); raises ``ParseError``."""
    blocks: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped.startswith("#"):
            continue
        if not stripped:
            if current:
                blocks.append(current)
                current = []
            continue
        current.append((number, raw.rstrip()))
    if current:
        blocks.append(current)
    puzzles: list[Puzzle] = []
    for block in blocks:
        if _is_line_format(block[0][1], len(block)):
            puzzles.extend(_parse_line(raw, number, source) for number, raw in block)
        else:
            puzzles.append(_parse_grid(block, source))
    for i, p in enumerate(puzzles):
        p.index = i
    return puzzles



def format_grid(puzzle: Puzzle, grid: Optional[Grid] = None) -> str:
    """``n`` lines of cells separated by spaces, ``.`` for empty (``grid`` filled in when given)."""
    return "\n".join(" ".join(_SYMBOLS[v] for v in row) for row in puzzle.filled_in(grid))


def format_line(puzzle: Puzzle, grid: Optional[Grid] = None) -> str:
    """The puzzle (or ``grid`` filled in) on one line of ``n*n`` characters, ``.`` for empty."""
    return "".join(_SYMBOLS[v] for row in puzzle.filled_in(grid) for v in row)
