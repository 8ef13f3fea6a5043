"""Constraint propagation on cell candidates for any size: naked and hidden singles.

``cand[i]`` is the bitmask of the values cell i may still take (bit v-1 for
value v); ``fixed[i]`` is True once cell i's single value has been removed from
its peers. Used by the generic search and by the generator.
"""
from __future__ import annotations

from typing import Optional

from ..puzzle import Grid
from .geometry import Geometry


def candidates(givens: Grid, geo: Geometry) -> list[int]:
    """Initial candidates: a given's own bit, every value elsewhere (peers are cleared by ``propagate``)."""
    full = geo.full
    return [full if v is None else 1 << (v - 1) for row in givens for v in row]


def propagate(cand: list[int], fixed: list[bool], geo: Geometry, pending: Optional[list[int]] = None) -> bool:
    """Apply naked and hidden singles to a fixpoint, in place; False on a contradiction.

    ``pending``: cells known to hold a single value that may not be fixed yet
    (all cells are scanned when None).
    """
    peers, units, full = geo.peers, geo.units, geo.full
    stack = [i for i, c in enumerate(cand) if not fixed[i] and not c & (c - 1)] if pending is None else pending
    while True:
        while stack:
            i = stack.pop()
            if fixed[i]:
                continue
            v = cand[i]
            if not v:
                return False
            fixed[i] = True
            for p in peers[i]:
                c = cand[p]
                if c & v:
                    c ^= v
                    if not c:
                        return False
                    cand[p] = c
                    if not c & (c - 1):
                        stack.append(p)
        for unit in units:
            ones = twos = 0
            for i in unit:
                c = cand[i]
                twos |= ones & c
                ones |= c
            if ones != full:
                return False
            once = ones & ~twos
            if not once:
                continue
            for i in unit:
                c = cand[i]
                m = c & once
                if m and c != m:
                    if m & (m - 1):
                        return False  # this cell is the only place for two values
                    cand[i] = m
                    stack.append(i)
        if not stack:
            return True


def grid_of(cand: list[int], n: int) -> Grid:
    """The grid of single-valued candidates (None where a cell still has several)."""
    values = [c.bit_length() if c and not c & (c - 1) else None for c in cand]
    return [values[r * n:(r + 1) * n] for r in range(n)]
