"""Exact solving: propagation, then depth-first search on the cell with fewest candidates.

The search counts solutions up to two, so ``solved`` is a proof of uniqueness.
"""
from __future__ import annotations

from typing import Optional

from ..puzzle import Grid, Puzzle, Result
from .propagate import Board, board_of, initial_candidates, propagate


def solve(puzzle: Puzzle) -> Result:
    """``solved`` (unique, proven), ``ambiguous`` (two different solutions) or ``impossible``."""
    board = board_of(puzzle)
    found, nodes = count_solutions(puzzle, board, limit=2)
    grids = [to_grid(cand, board.n) for cand in found]
    if not grids:
        return Result("impossible", reason="no grid satisfies every row, column and sign", nodes=nodes)
    if len(grids) == 1:
        return Result("solved", grids, nodes=nodes)
    return Result("ambiguous", grids, reason="more than one grid satisfies every rule", nodes=nodes)


def count_solutions(puzzle: Puzzle, board: Optional[Board] = None, *, limit: int = 2) -> tuple[list[list[int]], int]:
    """Up to ``limit`` solutions as candidate lists (one bit each), and the search nodes visited."""
    board = board or board_of(puzzle)
    cand = initial_candidates(puzzle, board)
    if not propagate(cand, list(range(len(cand))), board):
        return [], 1
    found: list[list[int]] = []
    nodes = search_from(cand, board, found, limit)
    return found, nodes


def search_from(cand: list[int], board: Board, found: list[list[int]], limit: int) -> int:
    """Search from candidates already propagated; appends up to ``limit`` solutions to ``found``."""
    return _search(cand, board, found, limit)


def _search(cand: list[int], board: Board, found: list[list[int]], limit: int) -> int:
    """Depth-first search from a propagated state; appends solutions to ``found``; returns nodes visited.

    Branches on the cell with fewest candidates, ties broken towards the cell
    with most signs to still-open neighbours (they propagate furthest).
    """
    above, below = board.above, board.below
    best, best_key = -1, (99, 0)
    for i, c in enumerate(cand):
        if c & (c - 1):
            k = c.bit_count()
            if k > best_key[0]:
                continue
            signs = 0  # ties go to the cell with most signs to open cells
            for j in above[i]:
                cj = cand[j]
                if cj & (cj - 1):
                    signs -= 1
            for j in below[i]:
                cj = cand[j]
                if cj & (cj - 1):
                    signs -= 1
            if (k, signs) < best_key:
                best, best_key = i, (k, signs)
    if best < 0:
        found.append(cand)
        return 1
    nodes = 1
    rest = cand[best]
    while rest:
        bit = rest & -rest
        rest ^= bit
        child = cand[:]
        child[best] = bit
        if propagate(child, [best], board):
            nodes += _search(child, board, found, limit)
            if len(found) >= limit:
                break
    return nodes


def to_grid(cand: list[int], n: int) -> Grid:
    """A full grid from single-bit candidates."""
    return [[cand[r * n + c].bit_length() for c in range(n)] for r in range(n)]
