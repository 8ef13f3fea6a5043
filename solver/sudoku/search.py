"""Exact solving: propagation to a fixpoint, then branching, counting up to two solutions.

9x9 puzzles go to the band-bitmask solver (``bands``); other sizes to the
generic cell-candidate search below (minimum-remaining-values branching,
iterative, plain list copies as the undo).
"""
from __future__ import annotations

import random
from typing import Optional

from ..puzzle import Grid, Puzzle, Result
from . import bands
from .geometry import Geometry, geometry
from .propagation import candidates, grid_of, propagate


def _branch_cell(cand: list[int], fixed: list[bool], geo: Geometry) -> int:
    """An open cell with the fewest candidates, ties broken by the most open peers (-1 when all are fixed)."""
    fewest = geo.n + 1
    tied: list[int] = []
    for i, c in enumerate(cand):
        if not fixed[i]:
            k = c.bit_count()
            if k < fewest:
                fewest, tied = k, [i]
            elif k == fewest:
                tied.append(i)
    if len(tied) <= 1:
        return tied[0] if tied else -1
    peers = geo.peers
    return max(tied, key=lambda i: sum(not fixed[p] for p in peers[i]))


def search(givens: Grid, geo: Geometry, *, limit: int = 2, rng: Optional[random.Random] = None) -> tuple[list[Grid], int]:
    """Up to ``limit`` solutions and the number of nodes visited (generic, any size).

    With ``rng`` the branch order is shuffled (used to make random full grids).
    """
    n = geo.n
    cand = candidates(givens, geo)
    fixed = [False] * len(cand)
    solutions: list[Grid] = []
    stack: list[tuple[list[int], list[bool]]] = []
    nodes = 0
    ok = propagate(cand, fixed, geo)
    while True:
        nodes += 1
        if ok:
            best = _branch_cell(cand, fixed, geo)
            if best < 0:
                solutions.append(grid_of(cand, n))
                if len(solutions) >= limit:
                    break
            else:
                c = cand[best]
                bits = []
                while c:
                    bit = c & -c
                    bits.append(bit)
                    c ^= bit
                if rng is not None:
                    rng.shuffle(bits)
                for bit in bits[:0:-1]:
                    alt = cand[:]
                    alt[best] = bit
                    stack.append((alt, fixed[:], best))
                cand[best] = bits[0]
                ok = propagate(cand, fixed, geo, [best])
                continue
        if not stack:
            break
        cand, fixed, i = stack.pop()
        ok = propagate(cand, fixed, geo, [i])
    return solutions, nodes


def _is_standard_9x9(puzzle: Puzzle) -> bool:
    return puzzle.size == 9 and tuple(puzzle.box or (3, 3)) == (3, 3)


def count_solutions(puzzle: Puzzle, limit: int = 2) -> tuple[list[Grid], int]:
    """Up to ``limit`` solutions of ``puzzle`` and the nodes visited, with the fastest solver for its size."""
    if _is_standard_9x9(puzzle):
        return bands.search(puzzle.givens, limit)
    return search(puzzle.givens, geometry(puzzle.size, puzzle.box), limit=limit)


def solve(puzzle: Puzzle) -> Result:
    """``solved`` (unique, proven), ``ambiguous`` (two different solutions) or ``impossible``."""
    solutions, nodes = count_solutions(puzzle, 2)
    if len(solutions) == 1:
        return Result("solved", solutions, nodes=nodes)
    if len(solutions) == 2:
        return Result("ambiguous", solutions, nodes=nodes)
    if nodes == 1:
        reason = "the givens lead to a contradiction by singles alone (a cell or a unit runs out of candidates)"
    else:
        reason = f"every way of filling the grid fails ({nodes} search nodes tried)"
    return Result("impossible", reason=reason, nodes=nodes)
