"""Takuzu (Binairo): fill an even ``n`` x ``n`` grid with 0 and 1.

Rules: no three equal values side by side in a row or column; ``n/2`` zeros and
``n/2`` ones in every row and column; no two identical rows, no two identical columns.

The ``Kind`` interface of ``solver.kinds``: ``formats`` (text in and out),
``rules`` (independent checks), ``search`` (exact solving), ``techniques``
(the human ladder), ``generate`` (random unique puzzles).
"""
from .formats import NAME, format_grid, format_line, parse
from .generate import generate
from .rules import check_givens, is_solution
from .search import solve
from .techniques import TECHNIQUES, explain, grade

SIZES = tuple(range(4, 21, 2))

__all__ = [
    "NAME", "SIZES", "TECHNIQUES", "check_givens", "explain", "format_grid", "grade", "format_line",
    "generate", "is_solution", "parse", "solve",
]
