"""Futoshiki (Tatham's "Unequal"): a Latin square of 1..n with inequality signs between neighbours.

Implements the ``solver.kinds.Kind`` interface.
"""
from __future__ import annotations

from .formats import format_grid, format_line, parse
from .generate import generate
from .rules import check_givens, is_solution
from .search import solve
from .techniques import explain

NAME = "futoshiki"
SIZES = (4, 5, 6, 7, 8, 9)

__all__ = ["NAME", "SIZES", "parse", "format_grid", "format_line", "check_givens", "solve",
           "is_solution", "explain", "generate"]
