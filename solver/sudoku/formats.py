"""Sudoku text formats: reading (one a line, printed grids, Project Euler 96) and writing.

Symbols: ``1``-``9`` then ``A``-``G`` for 10..16 (case-insensitive); ``.`` or
``0`` is an empty cell. Blank lines and lines starting with ``#`` are skipped.

- *one a line*: n*n symbols, then optional whitespace-separated fields (ignored);
- *printed grid*: n lines of n symbols where ``|``, ``-``, ``+`` and spaces are
  ignored and lines made only of those are box separators; grids are separated
  by blank lines;
- *Project Euler 96*: a ``Grid NN`` line, then 9 lines of 9 digits (0 empty).
"""
from __future__ import annotations

import re
from typing import Optional

from ..errors import ParseError
from ..puzzle import Grid, Puzzle
from .geometry import SIZES, box_shape

NAME = "sudoku"
SYMBOLS = "123456789ABCDEFG"
_VALUE = {ch: k + 1 for k, ch in enumerate(SYMBOLS)} | {ch.lower(): k + 1 for k, ch in enumerate(SYMBOLS)}
_EMPTY = set(".0")
_IGNORED = set("|-+ \t")
_EULER = re.compile(r"^\s*Grid\s+\d+\s*$")
_LINE_LENGTHS = {n * n: n for n in SIZES}
_SIZES_TEXT = ", ".join(map(str, SIZES[:-1])) + f" or {SIZES[-1]}"


def _symbol(ch: str, n: int, line: int, col: int) -> Optional[int]:
    """The value of one symbol (None for empty) in an n x n grid; ``ParseError`` otherwise."""
    if ch in _EMPTY:
        return None
    v = _VALUE.get(ch)
    if v is None:
        raise ParseError(f"unexpected character {ch!r} (cells are 1-9, A-G for 16x16, '.' or '0' for empty)",
                         line=line, col=col)
    if v > n:
        raise ParseError(f"value {ch!r} ({v}) is larger than the grid size {n}", line=line, col=col)
    return v


def _cells(text: str) -> list[tuple[str, int]]:
    """The symbols of a printed-grid row with their 1-based columns (separators dropped)."""
    return [(ch, k + 1) for k, ch in enumerate(text) if ch not in _IGNORED]


def _is_separator(text: str) -> bool:
    return bool(text.strip()) and all(ch in _IGNORED for ch in text)


def _puzzle(n: int, givens: Grid, line: int, source: str) -> Puzzle:
    return Puzzle(kind=NAME, size=n, givens=givens, box=box_shape(n), source=source, line=line)


def _parse_one_line(text: str, lineno: int, source: str) -> Puzzle:
    stripped = text.lstrip()
    start = len(text) - len(stripped) + 1  # 1-based column of the first symbol
    field = stripped.split()[0]
    n = _LINE_LENGTHS.get(len(field))
    if n is None:
        nearest = min(_LINE_LENGTHS, key=lambda k: abs(k - len(field)))
        col = start + (nearest if nearest < len(field) else len(field))  # the first extra symbol, or the end
        allowed = ", ".join(str(k) for k in list(_LINE_LENGTHS)[:-1]) + f" or {list(_LINE_LENGTHS)[-1]}"
        raise ParseError(f"a one-line Sudoku has {allowed} cells, this line has {len(field)}",
                         line=lineno, col=col)
    values = [_symbol(ch, n, lineno, start + k) for k, ch in enumerate(field)]
    return _puzzle(n, [values[r * n:(r + 1) * n] for r in range(n)], lineno, source)


def _parse_grid(rows: list[tuple[int, str]], source: str, *, expect: Optional[int] = None,
                header: int = 0) -> Puzzle:
    """A printed grid from its ``(line number, text)`` rows (separator lines already dropped).

    ``header``: the line of a Project Euler ``Grid NN`` header (where the puzzle starts).
    """
    first = header or rows[0][0]
    n = len(rows)
    if expect is not None and n != expect:
        raise ParseError(f"a Project Euler grid needs {expect} rows, found {n}", line=first, col=1)
    if n not in SIZES:
        width = len(_cells(rows[0][1]))
        raise ParseError(f"a grid of {n} rows x {width} columns is not a Sudoku size (sizes: {_SIZES_TEXT})",
                         line=first, col=1)
    givens: Grid = []
    for lineno, text in rows:
        cells = _cells(text)
        if len(cells) != n:
            col = cells[n][1] if len(cells) > n else len(text.rstrip()) + 1
            raise ParseError(f"a row of a {n}x{n} grid needs {n} cells, this one has {len(cells)}",
                             line=lineno, col=col)
        givens.append([_symbol(ch, n, lineno, col) for ch, col in cells])
    return _puzzle(n, givens, first, source)


def _blocks(lines: list[str]):
    """Groups of ``(line number, text)``: ``("euler", rows)`` or ``("block", rows)``."""
    block: list[tuple[int, str]] = []
    k = 0
    while k < len(lines):
        text = lines[k]
        lineno = k + 1
        if _EULER.match(text):
            if block:
                yield "block", block
                block = []
            rows = []
            k += 1
            while k < len(lines) and len(rows) < 9 and not _EULER.match(lines[k]):
                if lines[k].strip() and not _is_separator(lines[k]):
                    rows.append((k + 1, lines[k]))
                k += 1
            if not rows:
                raise ParseError(f"{text.strip()!r} is followed by no grid", line=lineno, col=1)
            yield "euler", [(lineno, text)] + rows
            continue
        if not text.strip() or text.lstrip().startswith("#"):
            if block:
                yield "block", block
                block = []
        else:
            block.append((lineno, text))
        k += 1
    if block:
        yield "block", block


def _is_line_block(block: list[tuple[int, str]]) -> bool:
    """True when a block holds one puzzle a line rather than one printed grid."""
    fields = block[0][1].split()
    if _IGNORED & set(fields[0]):
        return False  # box separators: a printed grid row
    first = len(fields[0])
    if first > 16 or len(fields) > 1 and first >= 16:
        return True
    return first == 16 and len(block) != 16


def parse(text: str, *, source: str = "") -> list[Puzzle]:
    """Every Sudoku in ``text``; ``ParseError`` (1-based line and column) on malformed text."""
    lines = text.splitlines()
    puzzles: list[Puzzle] = []
    for what, rows in _blocks(lines):
        if what == "euler":
            puzzles.append(_parse_grid(rows[1:], source, expect=9, header=rows[0][0]))
            continue
        if _is_line_block(rows):
            puzzles.extend(_parse_one_line(t, ln, source) for ln, t in rows)
        else:
            grid_rows = [(ln, t) for ln, t in rows if not _is_separator(t)]
            if grid_rows:
                puzzles.append(_parse_grid(grid_rows, source))
    if not puzzles:
        raise ParseError("no Sudoku in the text (it is empty)", source=source)
    for k, p in enumerate(puzzles):
        p.index = k
    return puzzles



def format_line(puzzle: Puzzle, grid: Optional[Grid] = None) -> str:
    """The puzzle (or ``grid`` filled into it) as one line of n*n symbols, ``.`` for empty."""
    return "".join("." if v is None else SYMBOLS[v - 1] for row in puzzle.filled_in(grid) for v in row)


def format_grid(puzzle: Puzzle, grid: Optional[Grid] = None) -> str:
    """A printed grid with box separators (``|`` and ``-+-``), ``.`` for empty."""
    n = puzzle.size
    br, bc = puzzle.box or box_shape(n)
    out = []
    for r, row in enumerate(puzzle.filled_in(grid)):
        if r and r % br == 0:
            out.append("-+-".join("-" * (2 * bc - 1) for _ in range(n // bc)))
        syms = ["." if v is None else SYMBOLS[v - 1] for v in row]
        out.append(" | ".join(" ".join(syms[c:c + bc]) for c in range(0, n, bc)))
    return "\n".join(out) + "\n"
