"""Sudoku of sizes 4, 6, 9 and 16: formats, rules, exact solving, a human-style technique ladder, a generator.

Implements the ``solver.kinds.Kind`` interface at top level.
"""
from __future__ import annotations

from typing import Optional

from ..puzzle import Puzzle, Result
from .formats import format_grid, format_line, parse
from .geometry import SIZES, box_shape
from .rules import check_givens, is_solution
from . import search as _search

NAME = "sudoku"


def solve(puzzle: Puzzle) -> Result:
    """Exact solve: ``solved`` / ``ambiguous`` (two solutions) / ``impossible`` (with the clash as reason)."""
    if puzzle.size not in SIZES:
        raise ValueError(f"no Sudoku of size {puzzle.size}; sizes: {', '.join(map(str, SIZES))}")
    result = _search.solve(puzzle)
    if result.status == "impossible":  # name the clash when the givens themselves break a rule
        clash = check_givens(puzzle)
        if clash:
            return Result("impossible", reason=f"contradictory givens: {clash}", contradiction=True, nodes=result.nodes)
    return result


from .techniques import explain  # noqa: E402
from .generate import generate  # noqa: E402

__all__ = ["NAME", "SIZES", "parse", "format_grid", "format_line", "check_givens", "solve", "is_solution",
           "explain", "generate", "box_shape"]
