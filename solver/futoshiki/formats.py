"""Futoshiki text formats: the printed grid and Simon Tatham's Unequal game ID.

The printed grid (``2n - 1`` lines for an ``n x n`` puzzle) puts each cell at an
even character column (0, 2, 4, ...) of a *cell row* and the sign between two
horizontally adjacent cells at the odd column between them::

    1 .<3 .
    ^     v
    . . . .>.

A cell is a digit ``1..n`` or ``.``, ``0`` or ``_`` when empty; a horizontal sign
is ``<``, ``>`` or a space. Between two cell rows a *sign row* holds ``^`` (or
``∧``) under a cell when the upper cell is the smaller, ``v`` (``V``, ``∨``) when
it is the greater, at the cell's even column. Trailing spaces are ignored, so an
empty sign row may be a blank line; ``n`` comes from the first row's length.
This is the layout of Tatham's own text export (``game_text_format``).

The game ID is one line, ``n:cells``: ``n*n`` comma-separated cells in row
order, each its given (``0`` empty) followed by any of the letters ``U R D L``
naming the neighbours this cell is *greater* than. Tatham writes a trailing
comma; his loader also accepts a run of lowercase letters before a cell that
skips ``a=1, b=2, ...`` empty cells, and ``n`` may carry a difficulty suffix
(``5dk:...``). The adjacent variant (``5a:...``) is a different puzzle and is
refused.

Several puzzles are separated by blank lines; lines starting with ``#`` are
comments.
"""
from __future__ import annotations

import re
from typing import Optional

from ..errors import ParseError
from ..puzzle import Cell, Grid, Puzzle, Relation

NAME = "futoshiki"
MIN_SIZE, MAX_SIZE = 4, 9

EMPTY_CHARS = ".0_"
UP_SMALLER = "^∧"  #: the upper cell is the smaller
UP_GREATER = "vV∨"  #: the upper cell is the greater
SIGN_ROW_CHARS = set(UP_SMALLER + UP_GREATER + " ")

_GAME_ID = re.compile(r"(\d+)(a?)(?:d([a-z]))?:")


def parse(text: str, *, source: str = "") -> list[Puzzle]:
    """Every puzzle in ``text``, each as a printed grid or a game ID; raises ``ParseError``."""
    lines = text.splitlines()
    puzzles: list[Puzzle] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if _GAME_ID.match(stripped):
            puzzles.append(_parse_game_id(lines[i], i + 1, source))
            i += 1
        else:
            puzzle, i = _parse_grid(lines, i, source)
            puzzles.append(puzzle)
    for index, puzzle in enumerate(puzzles):
        puzzle.index = index
    return puzzles


def _error(message: str, line: int, col: int = 0, source: str = "") -> ParseError:
    return ParseError(message, line=line, col=col, source=source)


def _check_size(n: int, line: int, col: int, source: str) -> None:
    if not MIN_SIZE <= n <= MAX_SIZE:
        raise _error(f"a {n}x{n} grid: Futoshiki sizes are {MIN_SIZE} to {MAX_SIZE}", line, col, source)


# --- the printed grid ------------------------------------------------------------------------


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def _parse_grid(lines: list[str], start: int, source: str) -> tuple[Puzzle, int]:
    """The grid whose first cell row is ``lines[start]``, and the index after its last line."""
    first = lines[start].rstrip()
    indent = len(first) - len(first.lstrip())
    width = len(first) - indent
    if width % 2 == 0:
        raise _error(
            f"a cell row has cells at even columns and signs between them, so an odd length; "
            f"this one has {width} characters",
            start + 1, indent + width, source,
        )
    n = (width + 1) // 2
    _check_size(n, start + 1, indent + width, source)
    givens: Grid = [[None] * n for _ in range(n)]
    relations: list[Relation] = []
    row = 0  # the next line is a cell row when row is an integer, a sign row after it
    expect_cells = True
    i = start
    last = start
    while row < n:
        if i >= len(lines):
            raise _error(f"the grid ends after {row} of its {n} rows", last + 1, 0, source)
        raw = lines[i]
        if _is_comment(raw):
            i += 1
            continue
        body = raw.rstrip()
        if body and body[:indent].strip():
            raise _error(f"this line is indented less than the grid's first row ({indent} spaces)", i + 1, 1, source)
        body = body[indent:]
        if expect_cells:
            if not body.strip():
                raise _error(f"the grid ends after {row} of its {n} rows", i + 1, 0, source)
            _parse_cell_row(body, row, n, givens, relations, i + 1, indent, source)
            row += 1
        else:
            _parse_sign_row(body, row - 1, n, relations, i + 1, indent, source)
        expect_cells = not expect_cells
        last = i
        i += 1
    _reject_dangling_signs(lines, i, indent, n, source)
    relations.sort(key=lambda rel: (rel.a, rel.b))
    puzzle = Puzzle(NAME, n, givens, tuple(relations), source=source, line=start + 1)
    return puzzle, i


def _parse_cell_row(body: str, r: int, n: int, givens: Grid, relations: list[Relation],
                    line: int, indent: int, source: str) -> None:
    width = 2 * n - 1
    if len(body) != width:
        col = min(len(body), width) + 1
        raise _error(f"a cell row of this {n}x{n} grid has {width} characters; this one has {len(body)}",
                     line, indent + col, source)
    for j, ch in enumerate(body):
        col = indent + j + 1
        if j % 2 == 0:
            givens[r][j // 2] = _cell_value(ch, n, line, col, source)
        elif ch in "<>":
            relations.append(Relation((r, j // 2), (r, j // 2 + 1), ch))  # type: ignore[arg-type]
        elif ch != " ":
            raise _error(f"unexpected {ch!r} between two cells: expected '<', '>' or a space", line, col, source)


def _cell_value(ch: str, n: int, line: int, col: int, source: str) -> Optional[int]:
    if ch in EMPTY_CHARS:
        return None
    if ch.isdigit() and ch.isascii():
        value = int(ch)
        if value > n:
            raise _error(f"value {value} is larger than the grid size {n}", line, col, source)
        return value
    raise _error(f"unexpected {ch!r} where a cell belongs: expected a digit 1-{n} or '.'", line, col, source)


def _parse_sign_row(body: str, r: int, n: int, relations: list[Relation],
                    line: int, indent: int, source: str) -> None:
    width = 2 * n - 1
    for j, ch in enumerate(body):
        col = indent + j + 1
        if ch == " ":
            continue
        if j >= width:
            raise _error(f"a sign right of the last column: the grid is {n} cells wide", line, col, source)
        if ch in EMPTY_CHARS or ch.isdigit():
            raise _error(f"a cell row where the sign row between rows {r + 1} and {r + 2} belongs "
                         "(leave a blank line where there are no signs)", line, col, source)
        if ch not in SIGN_ROW_CHARS:
            raise _error(f"unexpected {ch!r} between two cell rows: expected '^', 'v' or a space", line, col, source)
        if j % 2:
            raise _error(f"the sign {ch!r} stands between two columns; it belongs under a cell (even column)",
                         line, col, source)
        c = j // 2
        op = "<" if ch in UP_SMALLER else ">"
        relations.append(Relation((r, c), (r + 1, c), op))  # type: ignore[arg-type]


def _reject_dangling_signs(lines: list[str], i: int, indent: int, n: int, source: str) -> None:
    """A sign row straight after the last cell row would point below the grid."""
    if i < len(lines):
        body = lines[i].rstrip()
        if body.strip() and set(body) <= SIGN_ROW_CHARS:
            col = len(body) - len(body.lstrip()) + 1
            raise _error(f"a sign below the last row points off the {n}x{n} grid", i + 1, col, source)


# --- Tatham's game ID ------------------------------------------------------------------------

#: Tatham's direction letters: the neighbour's offset ``(dr, dc)``.
_DIRECTIONS = {"U": (-1, 0), "R": (0, 1), "D": (1, 0), "L": (0, -1)}


def _parse_game_id(raw: str, line: int, source: str) -> Puzzle:
    indent = len(raw) - len(raw.lstrip())
    text = raw.strip()
    match = _GAME_ID.match(text)
    assert match is not None
    n = int(match.group(1))
    _check_size(n, line, indent + 1, source)
    if match.group(2):
        raise _error("the adjacent-number variant ('a' after the size) is not Futoshiki", line,
                     indent + match.start(2) + 1, source)
    givens: Grid = [[None] * n for _ in range(n)]
    greater: dict[Cell, set[Cell]] = {}
    p = match.end()
    i = 0
    while p < len(text):
        while p < len(text) and "a" <= text[p] <= "z":
            i += ord(text[p]) - ord("a") + 1
            p += 1
        if i >= n * n:
            raise _error(f"more than the {n * n} cells of a {n}x{n} grid", line, indent + p + 1, source)
        q = p
        while q < len(text) and text[q].isdigit() and text[q].isascii():
            q += 1
        if q == p:
            found = repr(text[p]) if p < len(text) else "the end of the line"
            raise _error(f"expected a number for cell {i + 1}, found {found}", line, indent + p + 1, source)
        value = int(text[p:q])
        if value > n:
            raise _error(f"value {value} is larger than the grid size {n}", line, indent + p + 1, source)
        cell = divmod(i, n)
        givens[cell[0]][cell[1]] = value or None
        p = q
        while p < len(text) and text[p] in _DIRECTIONS:
            dr, dc = _DIRECTIONS[text[p]]
            other = (cell[0] + dr, cell[1] + dc)
            if not (0 <= other[0] < n and 0 <= other[1] < n):
                raise _error(f"the flag {text[p]!r} of r{cell[0] + 1}c{cell[1] + 1} points off the grid",
                             line, indent + p + 1, source)
            greater.setdefault(cell, set()).add(other)
            p += 1
        i += 1
        if p < len(text):
            if text[p] != ",":
                raise _error(f"unexpected {text[p]!r} after cell {i}: expected a flag U R D L or ','",
                             line, indent + p + 1, source)
            p += 1
    if i < n * n:
        raise _error(f"only {i} of the {n * n} cells of a {n}x{n} grid", line, indent + len(text) + 1, source)
    relations = []
    for big, smalls in greater.items():
        for small in smalls:
            if big in greater.get(small, ()):
                raise _error(f"r{big[0] + 1}c{big[1] + 1} and r{small[0] + 1}c{small[1] + 1} "
                             "are each flagged greater than the other", line, indent + 1, source)
            relations.append(Relation.between(small, big))
    relations.sort(key=lambda rel: (rel.a, rel.b))
    return Puzzle(NAME, n, givens, tuple(relations), source=source, line=line)


# --- writing -----------------------------------------------------------------------------------


def _values(puzzle: Puzzle, grid: Optional[Grid]) -> Grid:
    return grid if grid is not None else puzzle.givens


def format_grid(puzzle: Puzzle, grid: Optional[Grid] = None) -> str:
    """The printed grid (trailing spaces dropped); ``grid`` replaces the givens when given."""
    n = puzzle.size
    values = _values(puzzle, grid)
    rows = [[" "] * (2 * n - 1) for _ in range(n)]
    for r in range(n):
        for c in range(n):
            rows[r][2 * c] = "." if values[r][c] is None else str(values[r][c])
    signs = [[" "] * (2 * n - 1) for _ in range(n - 1)]
    for rel in puzzle.relations:
        (ra, ca), (rb, cb) = rel.a, rel.b
        if ra == rb:
            rows[ra][2 * ca + 1] = rel.op
        else:
            signs[ra][2 * ca] = "^" if rel.op == "<" else "v"
    out = []
    for r in range(n):
        out.append("".join(rows[r]))
        if r < n - 1:
            out.append("".join(signs[r]).rstrip())
    return "\n".join(out)


def format_line(puzzle: Puzzle, grid: Optional[Grid] = None) -> str:
    """Tatham's Unequal game ID, e.g. ``4:0,0R,3,0D,...,`` (trailing comma, as his generator writes)."""
    n = puzzle.size
    values = _values(puzzle, grid)
    flags: dict[Cell, set[str]] = {}
    for rel in puzzle.relations:
        small, big = rel.smaller_greater()
        dr, dc = small[0] - big[0], small[1] - big[1]
        letter = next(k for k, off in _DIRECTIONS.items() if off == (dr, dc))
        flags.setdefault(big, set()).add(letter)
    cells = []
    for r in range(n):
        for c in range(n):
            mine = flags.get((r, c), set())
            cells.append(str(values[r][c] or 0) + "".join(k for k in "URDL" if k in mine))
    return f"{n}:" + ",".join(cells) + ","
