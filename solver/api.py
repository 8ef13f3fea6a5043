"""Reading puzzles from text of any kind, and solving them with an independent re-check."""
from __future__ import annotations

import re

from . import kinds
from .errors import ParseError, ScanSolveError, ExitCode
from .puzzle import Puzzle, Result

_SIGNS = set("<>^v∧∨")
_TATHAM_ID = re.compile(r"^\s*\d+(?:d[a-z])?:[0-9a-z]")
_EULER = re.compile(r"^\s*Grid\s+\d+", re.MULTILINE)
_SEPARATORS = set("|+ \t")


def sniff_kind(text: str) -> str:
    """Guess the kind of a puzzle text from its content.

    Project Euler ``Grid NN`` headers mean Sudoku; inequality signs or a Tatham
    game ID mean Futoshiki; a digit other than 0 and 1 means Sudoku (or
    Futoshiki for sizes Sudoku does not have: 5, 7, 8); only ``0 1 . -``
    means Takuzu.
    """
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise ParseError("no puzzle in the text (it is empty)")
    if _EULER.search(text):
        return "sudoku"
    if _TATHAM_ID.match(lines[0]):
        return "futoshiki"
    body = "".join(lines)
    if _SIGNS & set(body):
        return "futoshiki"
    first = lines[0].split()
    if len(first) >= 1 and len(first[0]) >= 16 and len(lines[0].split()) <= 2:
        # One puzzle a line: the first field holds the whole grid.
        cells = first[0]
        n = round(len(cells) ** 0.5)
    else:
        grid_lines = [ln for ln in lines if set(ln.strip()) - set("-+|= \t")]
        cells = "".join(ch for ch in "".join(grid_lines) if ch not in _SEPARATORS)
        n = len(grid_lines)
    symbols = set(cells) - set(".-_")
    if symbols <= {"0", "1"}:
        return "takuzu"
    if n in (5, 7, 8) and symbols <= set("0123456789"):
        return "futoshiki"
    return "sudoku"


def read_puzzles(text: str, *, kind: str = "auto", source: str = "") -> list[Puzzle]:
    """Every puzzle in ``text``, of ``kind`` (sniffed from the content when ``auto``).

    Raises ``ParseError`` (exit code MALFORMED) naming the line and column.
    """
    name = sniff_kind(text) if kind == "auto" else kind
    try:
        puzzles = kinds.get(name).parse(text, source=source)
    except ParseError as err:
        raise err.located(source=source) if source and not err.source else err
    if not puzzles:
        raise ParseError("no puzzle in the text", source=source)
    for i, p in enumerate(puzzles):
        p.source = source or p.source
        p.index = i
    return puzzles


def solve(puzzle: Puzzle) -> Result:
    """Solve exactly; every returned solution is re-checked by the kind's independent ``is_solution``.

    Givens that already break a rule give ``impossible`` with ``contradiction``
    set and the clash as ``reason``.
    """
    kind = kinds.of(puzzle)
    clash = kind.check_givens(puzzle)
    if clash:
        return Result("impossible", reason=f"contradictory givens: {clash}", contradiction=True)
    result = kind.solve(puzzle)
    for grid in result.solutions:
        if not kind.is_solution(puzzle, grid):
            raise ScanSolveError(
                f"internal error: the {puzzle.kind} solver returned a grid that breaks the rules",
                exit_code=ExitCode.SOFTWARE,
            )
    if result.status == "ambiguous" and (len(result.solutions) != 2 or result.solutions[0] == result.solutions[1]):
        raise ScanSolveError("internal error: an ambiguous result needs two different solutions")
    if result.status == "solved" and len(result.solutions) != 1:
        raise ScanSolveError("internal error: a solved result needs exactly one solution")
    if result.status == "solved" and puzzle.known_solution is not None and result.solution != puzzle.known_solution:
        result.reason = "the solution given with the puzzle differs from the unique solution found"
    return result


def grade(puzzle: Puzzle, result: Result) -> str | None:
    """The difficulty of a solved puzzle: the hardest human technique it needs, or ``"needs search"``."""
    if result.status != "solved":
        return None
    kind = kinds.of(puzzle)
    quick = getattr(kind, "grade", None)  # ``explain(puzzle).grade`` without the steps, where a kind has it
    return quick(puzzle) if quick is not None else kind.explain(puzzle).grade
