"""The puzzle model shared by every kind.

Vocabulary (after Norvig): a *cell* is a ``(row, col)`` pair, 0-based; a *grid*
is a list of rows, each a list of values, with ``None`` for an empty cell; a
*unit* is a group of cells that must hold distinct values (Sudoku, Futoshiki);
a cell's *peers* share a unit with it; *candidates* are the values a cell may
still take.

Values: Sudoku and Futoshiki use 1..n, Takuzu uses 0 and 1.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

Cell = tuple[int, int]
Grid = list[list[Optional[int]]]
Status = Literal["solved", "ambiguous", "impossible", "unreadable"]


@dataclass(frozen=True)
class Relation:
    """``value(a) op value(b)`` between orthogonal neighbours; ``a`` is the upper or left cell."""

    a: Cell
    b: Cell
    op: Literal["<", ">"]

    def smaller_greater(self) -> tuple[Cell, Cell]:
        """The pair ``(smaller cell, greater cell)``."""
        return (self.a, self.b) if self.op == "<" else (self.b, self.a)

    def holds(self, va: int, vb: int) -> bool:
        return va < vb if self.op == "<" else va > vb

    def to_json(self) -> dict:
        return {"a": list(self.a), "b": list(self.b), "op": self.op}

    @staticmethod
    def between(smaller: Cell, greater: Cell) -> "Relation":
        """The relation saying ``smaller`` < ``greater``, normalised so ``a`` is upper/left."""
        if smaller < greater:
            return Relation(smaller, greater, "<")
        return Relation(greater, smaller, ">")


@dataclass
class Puzzle:
    """One puzzle of any kind: its geometry and givens.

    ``box`` is the Sudoku box shape ``(rows, cols)``; ``relations`` are the
    Futoshiki inequalities; ``known_solution`` is a solution that came with the
    text (Takuzu collections carry one) and is checked against, never trusted.
    """

    kind: str
    size: int
    givens: Grid
    relations: tuple[Relation, ...] = ()
    box: Optional[tuple[int, int]] = None
    known_solution: Optional[Grid] = None
    source: str = ""
    index: int = 0
    line: int = 0  #: 1-based line where the puzzle starts in its source text

    def copy_grid(self) -> Grid:
        return [list(row) for row in self.givens]

    def filled_in(self, grid: Optional[Grid] = None) -> Grid:
        """The givens with ``grid``'s values in the empty cells (the givens alone when ``grid`` is None)."""
        if grid is None:
            return self.givens
        return [[g if g is not None else v for g, v in zip(grow, vrow)] for grow, vrow in zip(self.givens, grid)]

    def empty_cells(self) -> list[Cell]:
        return [(r, c) for r in range(self.size) for c in range(self.size) if self.givens[r][c] is None]

    def given_count(self) -> int:
        return sum(v is not None for row in self.givens for v in row)


@dataclass
class Result:
    """The outcome of solving one puzzle.

    - ``solved``: ``solutions`` holds the unique solution;
    - ``ambiguous``: ``solutions`` holds two different solutions;
    - ``impossible``: no solution; ``reason`` says why when it is a simple clash
      (``contradiction`` is True when the givens themselves break a rule).
    """

    status: Status
    solutions: list[Grid] = field(default_factory=list)
    reason: Optional[str] = None
    contradiction: bool = False
    nodes: int = 0  #: search nodes visited (for benchmarks)

    @property
    def solution(self) -> Optional[Grid]:
        return self.solutions[0] if self.status == "solved" else None


@dataclass
class Step:
    """One human-style deduction: the technique's name, a readable sentence, and what it placed/removed."""

    technique: str
    text: str
    placements: list[tuple[Cell, int]] = field(default_factory=list)
    eliminations: list[tuple[Cell, int]] = field(default_factory=list)


@dataclass
class Explanation:
    """A human-style solve: the steps taken, the grade, and the grid reached.

    ``grade`` is the hardest technique used, or ``"needs search"`` when the
    ladder stalls before the grid is full (``complete`` is then False).
    """

    steps: list[Step]
    grade: str
    grid: Grid
    complete: bool
