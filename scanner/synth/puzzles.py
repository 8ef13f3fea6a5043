"""The puzzles printed on the synthetic pages: the solver's own generators, proved unique by its solver.

``make(kind, size, seed=..., difficulty=...)`` returns ``(puzzle, solution,
difficulty)``. The puzzle comes from ``solver.kinds.get(kind).generate`` and
its solution from ``solver.api.solve``, which re-checks it independently; a
generated puzzle that is not uniquely solvable is an error, never printed.
"""
from __future__ import annotations

from solver import kinds
from solver.api import solve
from solver.puzzle import Grid, Puzzle

DIFFICULTIES = ("easy", "medium", "hard")

#: Common printed sizes first; sizes are drawn with these weights when not given.
SIZE_WEIGHTS = {
    "sudoku": {9: 0.8, 6: 0.08, 4: 0.04, 16: 0.08},
    "futoshiki": {4: 0.08, 5: 0.3, 6: 0.25, 7: 0.2, 8: 0.1, 9: 0.07},
    "takuzu": {4: 0.02, 6: 0.14, 8: 0.18, 10: 0.22, 12: 0.18, 14: 0.14, 16: 0.06, 18: 0.03, 20: 0.03},
}
BOXES = {4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}


def sizes(kind: str) -> tuple[int, ...]:
    """The sizes the solver supports for ``kind``."""
    return tuple(kinds.get(kind).SIZES)


def pick_size(kind: str, rng) -> int:
    supported = set(sizes(kind))
    weights = {n: w for n, w in SIZE_WEIGHTS[kind].items() if n in supported} or {n: 1.0 for n in supported}
    ns = sorted(weights)
    p = [weights[n] for n in ns]
    return int(rng.choice(ns, p=[w / sum(p) for w in p]))


def make(kind: str, size: int, *, seed: int, difficulty: str) -> tuple[Puzzle, Grid]:
    """A puzzle with a unique solution, and that solution (raises RuntimeError otherwise)."""
    puzzle = kinds.get(kind).generate(size, seed=seed, difficulty=difficulty)
    result = solve(puzzle)
    if result.status != "solved":
        raise RuntimeError(f"{kind} {size} seed {seed}: the generator gave a puzzle that is {result.status}")
    return puzzle, result.solution
