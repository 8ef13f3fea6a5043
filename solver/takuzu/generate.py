"""Random Takuzu puzzles with a unique solution.

A random full grid is built by search with random branching; then, in a
random order, each given is removed when the puzzle stays uniquely solvable
within the difficulty's means:

- ``easy``: pairs, gaps and counts alone finish it;
- ``medium``: propagation without search finishes it (whole-line reasoning and
  the distinct-lines rule: at most "count gaps" and "finished lines");
- ``hard``: only uniqueness is kept (the result usually needs search); a removal
  whose uniqueness test needs more than ``WORK_BUDGET`` probes is not made, which
  bounds both the generation time and the work a solver needs.

Removing a given ``v`` from a puzzle whose only solution is known keeps it unique
exactly when no solution has the opposite value there, a single existence test.
"""
from __future__ import annotations

import random

from ..puzzle import Grid, Puzzle
from . import search
from .formats import NAME
from .techniques import simple_closure

DIFFICULTIES = ("easy", "medium", "hard")
WORK_BUDGET = 300  #: candidate lines probed per uniqueness test before a given is kept as needed


def _full(grid: Grid) -> bool:
    return all(v is not None for row in grid for v in row)


def _keeps_unique(givens: Grid, r: int, c: int, value: int) -> bool:
    """True when ``givens`` (unique with ``value`` at ``(r, c)``) stays unique without that given."""
    reached = search.propagated(givens)
    if reached is not None and _full(reached):
        return True  # propagation alone finishes it: unique
    givens[r][c] = 1 - value
    try:
        return search.has_solution(givens, budget=WORK_BUDGET) is False
    finally:
        givens[r][c] = None


def generate(size: int, *, seed: int, difficulty: str = "medium") -> Puzzle:
    """A random ``size`` x ``size`` puzzle with a unique solution; the same ``seed`` gives the same puzzle."""
    if size % 2 or not 4 <= size <= 20:
        raise ValueError(f"Takuzu sizes are even, 4..20, not {size}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"unknown difficulty {difficulty!r}; known: {', '.join(DIFFICULTIES)}")
    rng = random.Random(f"takuzu-{size}-{seed}")
    solution = search.random_solution(size, rng)
    givens = [row[:] for row in solution]
    cells = [(r, c) for r in range(size) for c in range(size)]
    rng.shuffle(cells)
    for r, c in cells:
        value = givens[r][c]
        givens[r][c] = None
        if difficulty == "easy":
            keep = _full(simple_closure(givens))
        elif difficulty == "medium":
            reached = search.propagated(givens)
            keep = reached is not None and _full(reached)
        else:
            keep = _keeps_unique(givens, r, c, value)
        if not keep:
            givens[r][c] = value
    return Puzzle(kind=NAME, size=size, givens=givens, known_solution=solution, source=f"generated seed={seed}")
