"""The registry of puzzle kinds and the interface every kind implements.

Each kind is a subpackage (``solver.sudoku``, ``solver.futoshiki``,
``solver.takuzu``) exposing the functions of ``Kind`` at its top level.
Kinds are imported lazily so that reading one text puzzle stays fast.
"""
from __future__ import annotations

import importlib
from typing import Optional, Protocol

from .puzzle import Explanation, Grid, Puzzle, Result

NAMES = ("sudoku", "futoshiki", "takuzu")


class Kind(Protocol):
    """What every puzzle kind provides (Tatham-style: one interface for all)."""

    NAME: str
    SIZES: tuple[int, ...]  #: the grid sizes this kind supports

    def parse(self, text: str, *, source: str = "") -> list[Puzzle]:
        """Every puzzle in ``text`` (any of the kind's text formats); raises ``ParseError``."""

    def format_grid(self, puzzle: Puzzle, grid: Optional[Grid] = None) -> str:
        """The puzzle (or ``grid`` filled into it) as the kind's printed grid text."""

    def format_line(self, puzzle: Puzzle, grid: Optional[Grid] = None) -> str:
        """The puzzle on one line (Futoshiki: Tatham's Unequal game ID)."""

    def check_givens(self, puzzle: Puzzle) -> Optional[str]:
        """A sentence naming a rule the givens already break, or None."""

    def solve(self, puzzle: Puzzle) -> Result:
        """Exact solve: ``solved`` / ``ambiguous`` (two solutions) / ``impossible``."""

    def is_solution(self, puzzle: Puzzle, grid: Grid) -> bool:
        """Independent check of a full grid against the givens and every rule."""

    def explain(self, puzzle: Puzzle, *, max_steps: Optional[int] = None) -> Explanation:
        """Human-style solve with the technique ladder; grade = hardest technique used."""

    def generate(self, size: int, *, seed: int, difficulty: str = "medium") -> Puzzle:
        """A random puzzle with a unique solution."""


def get(name: str) -> Kind:
    """The kind module for ``name`` (one of ``NAMES``)."""
    if name not in NAMES:
        raise KeyError(f"unknown puzzle kind {name!r}; known: {', '.join(NAMES)}")
    return importlib.import_module(f"solver.{name}")  # type: ignore[return-value]


def of(puzzle: Puzzle) -> Kind:
    return get(puzzle.kind)
