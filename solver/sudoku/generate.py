"""Random puzzles with a unique solution, deterministic by seed.

A random full grid comes from the generic search with shuffled branch order
(the first box is filled with a random permutation first). Givens are then removed in 180-degree-symmetric pairs, in random
order, as long as the puzzle stays acceptable for the difficulty:

- ``easy``: solvable by naked and hidden singles alone, and at least about
  half the cells stay given;
- ``medium``: solvable by naked and hidden singles alone, as few givens as that allows;
- ``hard``: as ``medium``, then more pairs removed while the solution stays
  unique (may need advanced techniques or search).
"""
from __future__ import annotations

import random

from ..puzzle import Grid, Puzzle
from .geometry import SIZES, box_shape, geometry
from .propagation import candidates, propagate
from .search import count_solutions, search

DIFFICULTIES = ("easy", "medium", "hard")


def full_grid(size: int, rng: random.Random) -> Grid:
    """A random complete grid of ``size``."""
    geo = geometry(size)
    br, bc = geo.box
    grid: Grid = [[None] * size for _ in range(size)]
    values = list(range(1, size + 1))
    rng.shuffle(values)
    for r in range(br):
        for c in range(bc):
            grid[r][c] = values[r * bc + c]
    solutions, _ = search(grid, geo, limit=1, rng=rng)
    return solutions[0]


def _singles_solve(givens: Grid, size: int) -> bool:
    geo = geometry(size)
    cand = candidates(givens, geo)
    fixed = [False] * len(cand)
    return propagate(cand, fixed, geo) and all(fixed)


def generate(size: int, *, seed: int, difficulty: str = "medium") -> Puzzle:
    """A random Sudoku of ``size`` with a unique solution; the same seed gives the same puzzle."""
    if size not in SIZES:
        raise ValueError(f"no Sudoku of size {size}; sizes: {', '.join(map(str, SIZES))}")
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"unknown difficulty {difficulty!r}; known: {', '.join(DIFFICULTIES)}")
    rng = random.Random(f"sudoku-{size}-{seed}")  # one grid per seed: harder removes more from it
    solution = full_grid(size, rng)
    givens: Grid = [row[:] for row in solution]
    cells = size * size
    floor = cells // 2 if difficulty == "easy" else 0
    order = [i for i in range(cells) if i <= cells - 1 - i]
    rng.shuffle(order)
    count = cells
    box = box_shape(size)

    def unique(g: Grid) -> bool:
        return len(count_solutions(Puzzle("sudoku", size, g, box=box), 2)[0]) == 1

    # Singles first (cheap); for "hard", the pairs they could not remove are retried with a full uniqueness check.
    rejected: list[int] = []
    passes = [(order, lambda g: _singles_solve(g, size))]
    if difficulty == "hard":
        passes.append((rejected, unique))
    for cells_to_try, acceptable in passes:
        for i in list(cells_to_try):
            pair = {i, cells - 1 - i}
            if count - len(pair) < floor:
                break
            for j in pair:
                givens[j // size][j % size] = None
            if acceptable(givens):
                count -= len(pair)
            else:
                rejected.append(i)
                for j in pair:
                    givens[j // size][j % size] = solution[j // size][j % size]
    return Puzzle(kind="sudoku", size=size, givens=givens, box=box, source=f"generated:{seed}:{difficulty}")
